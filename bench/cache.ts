/**
 * The compiled-policy cache (issue 22 item 3): CPU time of a cold open of B3's policy
 * (bench/b3-policy.ts, 10,000 nodes by default) beside a warm re-open served by the cache,
 * and of `quotient check policies/` cold (`--no-cache`) beside warm, as whole processes.
 *
 * Each open runs in a fresh process, as a user's next command does (no JIT or memo carried
 * over), reading B3's files from a folder as the CLI does: `open` figures are the CPU time
 * (user + system) of Session.open alone, measured in that process (reading the files is
 * reported apart); `write` is a cold open that also writes the entry. `check` figures are the
 * whole process's CPU time (start-up included: bench/start.ts measures that part alone),
 * reported at exit by a preloaded probe (bench/usage-probe.mjs). Median, minimum and
 * maximum over `--runs` runs, and warm/cold ratios of the medians. The machines here are
 * shared: CPU time, not wall time.
 *
 *   npm run build                                        # `check` runs the CLI from dist/
 *   npm run bench:cache -- [--nodes 10000] [--runs 5] [--json]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const PROBE = join(ROOT, 'bench', 'usage-probe.mjs');
const HERE = fileURLToPath(import.meta.url);

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** One open in this process (a child of the benchmark): reads the policy's folder as the CLI does, opens it, and prints the CPU time of each as JSON. */
async function child(mode: 'cold' | 'write' | 'warm', dir: string, policy: string): Promise<void> {
  const { readBundles } = await import('../src/policy/parse/read-files.js');
  const { Session } = await import('../src/engine/session.js');
  const { PolicyCache } = await import('../src/engine/policy-cache.js');
  const cache = mode === 'cold' ? false : new PolicyCache(dir);
  const before = process.cpuUsage();
  const [bundle] = readBundles([policy]);
  const read = process.cpuUsage(before);
  const start = performance.now();
  const { session } = Session.open(bundle!.files, { cache, now: 0 });
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(before);
  if (!session) throw new Error('B3 did not open');
  const stats = cache ? cache.stats : undefined;
  const ms = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
  process.stdout.write(JSON.stringify({ readMs: ms(read), cpuMs: ms(used) - ms(read), wallMs, stages: session.timings.map((t) => [t.stage, Math.round(t.ms)]), stats }));
}

interface Summary {
  medianMs: number;
  minMs: number;
  maxMs: number;
}

const summary = (xs: number[]): Summary => {
  const s = [...xs].sort((a, b) => a - b);
  return { medianMs: round(s[s.length >> 1]!), minMs: round(s[0]!), maxMs: round(s.at(-1)!) };
};
const round = (x: number): number => Math.round(x * 10) / 10;

/** Runs one open in a child process. */
function openIn(mode: 'cold' | 'write' | 'warm', dir: string, policy: string): { readMs: number; cpuMs: number; stages: Array<[string, number]>; stats?: { hits: number } } {
  const p = spawnSync(process.execPath, ['--import', 'tsx', HERE, '--child', mode, '--dir', dir, '--policy', policy], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`open ${mode} failed: ${p.stderr}`);
  return JSON.parse(p.stdout) as { readMs: number; cpuMs: number; stages: Array<[string, number]>; stats?: { hits: number } };
}

/** The CPU time (ms) of one whole `quotient ARGS` process. */
function processCpu(args: string[], env: NodeJS.ProcessEnv, usage: string): number {
  const p = spawnSync(process.execPath, ['--import', pathToFileURL(PROBE).href, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, QUOTIENT_BENCH_USAGE_FILE: usage, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (p.status === 2 || p.status === null) throw new Error(`quotient ${args.join(' ')} failed: ${p.stderr}`);
  const u = JSON.parse(readFileSync(usage, 'utf8')) as { userCPUTime: number; systemCPUTime: number };
  return (u.userCPUTime + u.systemCPUTime) / 1000;
}

async function main(): Promise<void> {
  if (process.argv.includes('--child')) {
    const at = process.argv.indexOf('--child');
    await child(process.argv[at + 1] as 'cold' | 'write' | 'warm', process.argv[process.argv.indexOf('--dir') + 1]!, process.argv[process.argv.indexOf('--policy') + 1]!);
    return;
  }
  const json = process.argv.includes('--json');
  const nodes = arg('--nodes', 10_000);
  const runs = arg('--runs', 5);
  const tmp = mkdtempSync(join(tmpdir(), 'quotient-bench-cache-'));
  try {
    // B3's files in a folder, read by each run as the CLI reads a policy.
    const { b3Policy } = await import('./b3-policy.js');
    const policy = join(tmp, 'b3');
    for (const f of b3Policy({ nodes }).files) {
      mkdirSync(dirname(join(tmp, f.path)), { recursive: true });
      writeFileSync(join(tmp, f.path), f.text);
    }
    const cold: number[] = [];
    const read: number[] = [];
    const write: number[] = [];
    const warm: number[] = [];
    let warmStages: Array<[string, number]> = [];
    let coldStages: Array<[string, number]> = [];
    let entryBytes = 0;
    for (let r = 0; r < runs; r++) {
      const dir = join(tmp, `b3-${r}`);
      const c = openIn('cold', dir, policy);
      cold.push(c.cpuMs);
      read.push(c.readMs);
      coldStages = c.stages;
      write.push(openIn('write', dir, policy).cpuMs);
      const w = openIn('warm', dir, policy);
      if (w.stats?.hits !== 1) throw new Error('the warm open was not served by the cache');
      warm.push(w.cpuMs);
      warmStages = w.stages;
      entryBytes = readdirSync(dir).reduce((s, n) => s + statSync(join(dir, n)).size, 0);
    }
    const usage = join(tmp, 'usage.json');
    const checkDir = join(tmp, 'check');
    const checkArgs = ['check', 'policies/'];
    processCpu(checkArgs, { QUOTIENT_CACHE_DIR: checkDir }, usage); // writes the entries (and warms the file cache)
    const checkCold: number[] = [];
    const checkWarm: number[] = [];
    for (let r = 0; r < runs; r++) {
      checkCold.push(processCpu([...checkArgs, '--no-cache'], {}, usage));
      checkWarm.push(processCpu(checkArgs, { QUOTIENT_CACHE_DIR: checkDir }, usage));
    }
    const nodeBare: number[] = [];
    for (let r = 0; r < runs; r++) {
      const p = spawnSync(process.execPath, ['--import', pathToFileURL(PROBE).href, '-e', '0'], { env: { ...process.env, QUOTIENT_BENCH_USAGE_FILE: usage } });
      if (p.status !== 0) throw new Error('node -e 0 failed');
      const u = JSON.parse(readFileSync(usage, 'utf8')) as { userCPUTime: number; systemCPUTime: number };
      nodeBare.push((u.userCPUTime + u.systemCPUTime) / 1000);
    }
    const b3 = {
      nodes,
      read: summary(read),
      cold: summary(cold),
      write: summary(write),
      warm: summary(warm),
      ratio: round((summary(warm).medianMs / summary(cold).medianMs) * 100) / 100,
      entryBytes,
      coldStages,
      warmStages,
    };
    const check = { cold: summary(checkCold), warm: summary(checkWarm), ratio: round((summary(checkWarm).medianMs / summary(checkCold).medianMs) * 100) / 100, nodeE0: summary(nodeBare) };
    const result = { runs, b3, check, targets: { b3WarmMs: 250, b3WarmRatio: 0.2, checkWarmMs: 250 } };
    if (json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const f = (s: Summary): string => `${s.medianMs.toFixed(0)} ms (${s.minMs.toFixed(0)}-${s.maxMs.toFixed(0)})`;
    console.log(`compiled-policy cache, ${runs} runs, CPU time median (min-max)`);
    console.log(`B3 ${nodes.toLocaleString('en-US')} nodes, Session.open in a fresh process:`);
    console.log(`  read the files        ${f(b3.read)}   (not in the figures below)`);
    console.log(`  cold (no cache)       ${f(b3.cold)}   stages ${coldStages.map(([s, ms]) => `${s} ${ms}`).join(', ')}`);
    console.log(`  cold + write entry    ${f(b3.write)}   entry ${(entryBytes / 1e6).toFixed(1)} MB`);
    console.log(`  warm (cache hit)      ${f(b3.warm)}   stages ${warmStages.map(([s, ms]) => `${s} ${ms}`).join(', ')}`);
    console.log(`  warm / cold           ${b3.ratio}   (targets: warm <= 250 ms, <= 0.2 of cold)`);
    console.log(`quotient check policies/, whole process:`);
    console.log(`  cold (--no-cache)     ${f(check.cold)}`);
    console.log(`  warm                  ${f(check.warm)}   (target <= 250 ms)`);
    console.log(`  warm / cold           ${check.ratio}`);
    console.log(`  node -e 0             ${f(check.nodeE0)}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
