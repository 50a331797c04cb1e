/**
 * Start-up (issue 22 item 2): whole `quotient` processes as a user starts them, beside a
 * bare `node -e 0`. Each command runs `--runs` times (after one run not counted, which
 * warms the file cache); figures are the child's CPU time (user + system, all its threads:
 * the machines here are shared, so wall time says more about the neighbours) as minimum and
 * median, and the median wall time beside them. A preloaded probe reports the child's CPU
 * time at exit (the same probe for `node -e 0`, so its own cost is on both sides).
 *
 *   npm run build                          # the CLI runs from dist/
 *   npm run bench:start -- [--runs 7] [--json]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const json = process.argv.includes('--json');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(process.argv[runsAt + 1]) : 7;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The commands timed, each with its target (CPU seconds, issue 22). */
const CASES: Array<{ name: string; args: string[]; targetS?: number }> = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'quotient --version', args: [CLI, '--version'], targetS: 0.15 },
  { name: 'quotient --help', args: [CLI, '--help'] },
  { name: 'quotient check policies/', args: [CLI, 'check', 'policies/'], targetS: 0.4 },
  { name: 'quotient whatif policies/', args: [CLI, 'whatif', 'policies/'], targetS: 0.6 },
];

const PROBE = `import { writeFileSync } from 'node:fs';
process.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.QUOTIENT_BENCH_USAGE, String((u.userCPUTime + u.systemCPUTime) / 1000)); });
`;

interface Summary {
  min: number;
  median: number;
  max: number;
}

const summary = (xs: number[]): Summary => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[s.length >> 1]!, max: s.at(-1)! };
};

const tmp = mkdtempSync(join(tmpdir(), 'quotient-bench-start-'));
try {
  const probe = join(tmp, 'probe.mjs');
  const usage = join(tmp, 'usage.txt');
  writeFileSync(probe, PROBE);
  const rows = CASES.map((c) => {
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let r = 0; r <= RUNS; r++) {
      const start = performance.now();
      const p = spawnSync(process.execPath, ['--import', pathToFileURL(probe).href, ...c.args], {
        cwd: ROOT,
        env: { ...process.env, QUOTIENT_BENCH_USAGE: usage, NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const ms = performance.now() - start;
      if (p.status !== 0) throw new Error(`${c.name} exited ${p.status}: ${p.stderr.toString().slice(0, 2000)}`);
      if (r === 0) continue; // the warm-up run
      cpu.push(Number(readFileSync(usage, 'utf8')));
      wall.push(ms);
    }
    return { command: c.name, cpuMs: summary(cpu), wallMs: summary(wall), targetMs: c.targetS === undefined ? undefined : c.targetS * 1000 };
  });
  const result = { benchmark: 'Start-up: whole processes', node: process.version, runs: RUNS, rows };
  if (json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`Start-up — node ${process.version}; ${RUNS} runs each after one not counted; CPU is user + system of the whole process`);
    console.log('command                     CPU min    CPU median  wall median  target (CPU)');
    for (const r of rows)
      console.log(
        `${r.command.padEnd(26)}  ${`${r.cpuMs.min.toFixed(0)} ms`.padStart(8)}  ${`${r.cpuMs.median.toFixed(0)} ms`.padStart(10)}  ${`${r.wallMs.median.toFixed(0)} ms`.padStart(11)}  ${r.targetMs === undefined ? '' : `≤ ${r.targetMs} ms`}`,
      );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
