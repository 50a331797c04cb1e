/**
 * The benchmark harness (issue 11 item 1; BENCHMARKS.md): runs each benchmark in its own
 * child process — so each gets a clean heap and its own peak RSS, read from the child's
 * getrusage through bench/rss-probe.mjs — collects its `--json` answer, and prints one
 * table of headline figures with the anchor or target each is compared with.
 *
 *   npm run bench                          # every benchmark, full size (minutes)
 *   npm run bench -- --quick               # every benchmark, small sizes (under a minute)
 *   npm run -s bench -- --quick --json     # JSON: machine, mode, per benchmark its figures and raw answer
 *   npm run bench -- --only b2,b7          # some of them
 *
 * Speed figures are medians with min and max, or ratios measured inside one benchmark's
 * run (kernel vs twin, 1 vs 2 workers); nothing here compares runs across processes.
 * Exit 0 when every benchmark ran, 1 when one failed (its stderr is shown), 2 on bad flags.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCHMARKS, type Figure } from './registry.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const json = argv.includes('--json');
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',').filter(Boolean) : null;
const known = new Set(['--quick', '--json', '--only']);
const unknown = argv.filter((a, i) => a.startsWith('--') && !known.has(a) && argv[i - 1] !== '--only');
if (unknown.length > 0 || (only && only.some((id) => !BENCHMARKS.some((b) => b.id === id)))) {
  process.stderr.write(`bench: unknown flag or benchmark: ${[...unknown, ...(only ?? []).filter((id) => !BENCHMARKS.some((b) => b.id === id))].join(', ')}\n`);
  process.stderr.write(`usage: npm run bench -- [--quick] [--json] [--only ${BENCHMARKS.map((b) => b.id).join(',')}]\n`);
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const probe = new URL('./rss-probe.mjs', import.meta.url).href;

/** One benchmark's run as the harness reports it. */
interface BenchRun {
  id: string;
  title: string;
  command: string;
  exitCode: number | null;
  wallSeconds: number;
  /** Peak resident set size of the child process (all its threads), MiB. */
  peakRssMiB: number | null;
  figures: Figure[];
  /** The benchmark's own `--json` answer. */
  result: unknown;
  error?: string;
}

function runOne(id: string): BenchRun {
  const bench = BENCHMARKS.find((b) => b.id === id)!;
  const args = [...(quick ? bench.quickArgs : bench.fullArgs), '--json'];
  const dir = mkdtempSync(join(tmpdir(), 'quotient-bench-'));
  const rssFile = join(dir, 'rss');
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', probe, bench.script, ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, QUOTIENT_BENCH_RSS_FILE: rssFile, NO_COLOR: '1' },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  let peakRssMiB: number | null;
  try {
    peakRssMiB = Number(readFileSync(rssFile, 'utf8')) / 1024;
  } catch {
    peakRssMiB = null;
  }
  rmSync(dir, { recursive: true, force: true });
  const base = { id, title: bench.title, command: `node --import tsx ${bench.script} ${args.join(' ')}`, exitCode: child.status, wallSeconds, peakRssMiB };
  if (child.status !== 0) {
    return { ...base, figures: [], result: null, error: (child.stderr || String(child.error ?? 'failed')).trim().split('\n').slice(-8).join('\n') };
  }
  let result: unknown;
  try {
    result = JSON.parse(child.stdout);
  } catch {
    return { ...base, figures: [], result: null, error: 'the benchmark did not print JSON on stdout' };
  }
  return { ...base, figures: bench.figures(result), result };
}

const ids = only ?? BENCHMARKS.map((b) => b.id);
const runs: BenchRun[] = [];
for (const id of ids) {
  if (!json) process.stderr.write(`bench: running ${id}${quick ? ' (quick)' : ''}...\n`);
  runs.push(runOne(id));
}

const machine = {
  node: process.version,
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? 'unknown',
  loadAverage1m: loadavg()[0] ?? 0,
};

if (json) {
  process.stdout.write(`${JSON.stringify({ machine, mode: quick ? 'quick' : 'full', benchmarks: runs }, null, 2)}\n`);
} else {
  const head = ['bench', 'figure', 'ours', 'anchor / target', 'peak RSS', 'wall'];
  const body: string[][] = [];
  for (const r of runs) {
    const rss = r.peakRssMiB === null ? '-' : `${r.peakRssMiB.toFixed(0)} MiB`;
    const wall = `${r.wallSeconds.toFixed(1)} s`;
    if (r.error) body.push([r.id, 'FAILED', r.error.split('\n').at(-1) ?? '', '', rss, wall]);
    r.figures.forEach((f, i) => body.push([i === 0 ? r.id : '', f.figure, f.ours, f.anchor, i === 0 ? rss : '', i === 0 ? wall : '']));
  }
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cols: string[]): string =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(`Quotient benchmarks (${quick ? 'quick' : 'full'}) — node ${machine.node}, ${machine.cpus} cores (${machine.cpuModel}), load average ${machine.loadAverage1m.toFixed(2)}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
  for (const r of runs.filter((x) => x.error)) process.stderr.write(`\n${r.id} failed (${r.command}):\n${r.error}\n`);
}
process.exit(runs.some((r) => r.error) ? 1 : 0);
