/**
 * B3's scale curve (issue 11 item 2; docs/performance.md): the B3 policy generated at
 * several node counts, each opened in its own child process — so each gets a clean heap
 * and its own peak RSS — and measured the way a user meets it: the policy's files read
 * from disk, `Session.open` (load + validate + rules + snapshot + kernel), then its
 * priority-9 WhatIfs answered once (each builds its eligibility table) and three more
 * rounds warm, then 200 distinct WhatIfs (bench/b3d-policy.ts, as B3d) asked once each. Figures per size: open CPU and wall time, peak RSS of the process, the
 * heap right after the open and after a full collection (live data), warm answer CPU
 * median and p99, distinct answer CPU median and p99. Target (issue 11): 10,000 nodes
 * open in ≤ 1.5 s CPU under 400 MiB; 50,000 nodes and ~200,000 jobs in ≤ 10 s under
 * 1.5 GiB; (issue 22) 100,000 nodes and ~400,000 jobs in ≤ 15 s under 1.5 GiB, a distinct
 * answer ≤ 2 ms median.
 *
 *   npm run bench:scale                        # 100, 1,000, 10,000, 50,000, 100,000 nodes (minutes)
 *   npm run bench:scale -- --sizes 100,1000    # some sizes
 *   npm run -s bench:scale -- --json           # JSON
 *
 * A policy past the default size limits (16 MiB of YAML) is opened with the limits raised
 * through QUOTIENT_MAX_POLICY_BYTES and QUOTIENT_MAX_POLICY_NODES, as its finding says;
 * Node's heap stays at its default. The child opens the policy with the compiled engine
 * (dist/, `npm run build` first), what the CLI runs: tsx's on-the-fly compile inflates it. Below 1,000 nodes the tree is 3 × 3 × 3 (40 quotas), as B5's small snapshot, since
 * 1,011 quotas need more GPUs than 100 nodes hold; from 1,000 on it is B3's 1,011.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as SessionModule from '../src/engine/session.js';
import { compiled } from './compiled.js';
import { b3Policy } from './b3-policy.js';
import { b3Askable, distinctWhatIfs, whatIfText } from './b3d-policy.js';
import { distribution, formatUs, printRows } from './timing.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const childAt = argv.indexOf('--child');
const sizesAt = argv.indexOf('--sizes');
const SIZES = sizesAt >= 0 ? (argv[sizesAt + 1] ?? '').split(',').map(Number) : [100, 1_000, 10_000, 50_000, 100_000];
const WARM_ROUNDS = 3;
/** Distinct WhatIfs (bench/b3d-policy.ts) asked once each per size: B3d's figure along the curve. */
const DISTINCT = 200;

/** One size's figures, as the child reports them. */
interface ScalePoint {
  nodes: number;
  quotas: number;
  jobs: number;
  megabytes: number;
  openCpuMs: number;
  openWallMs: number;
  /** Peak resident set of the child process (text read, session open, answers), MiB. */
  peakRssMiB: number;
  /** Heap in use right after the open, MiB: what the session keeps plus garbage not yet collected. */
  heapAfterOpenMiB: number;
  /** Heap in use after a full collection following the open, MiB: what the session keeps. */
  liveHeapAfterOpenMiB: number;
  firstAnswersCpuMs: number;
  warmCpu: { medianUs: number; p99Us: number; samples: number };
  /** CPU per answer of DISTINCT distinct WhatIfs, each asked once (B3d), after the warm rounds. */
  distinctCpu: { medianUs: number; p99Us: number; samples: number };
  decisions: Record<string, number>;
}

/** The child: open the policy in `dir`, answer its WhatIfs, print one ScalePoint as JSON. */
async function child(dir: string): Promise<void> {
  // The compiled engine (dist/), as `quotient` runs it: through tsx the open costs more (bench/compiled.ts).
  const { Session } = await compiled<typeof SessionModule>('engine/session');
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { nodes: number; quotas: number; jobs: number; bytes: number };
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  // The answer memo off: the warm rounds repeat the WhatIfs, and the curve is of complete answers.
  const { session, findings } = Session.open(files, { answerMemo: false });
  const used = process.cpuUsage(cpu0);
  const openWallMs = performance.now() - wall0;
  if (!session) throw new Error(`the policy at ${meta.nodes} nodes does not load: ${JSON.stringify(findings.slice(0, 3))}`);
  const heapAfterOpenMiB = process.memoryUsage().heapUsed / 2 ** 20;
  // The child runs with --expose-gc: one full collection tells live data from garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const liveHeapAfterOpenMiB = process.memoryUsage().heapUsed / 2 ** 20;
  const whatIfs = session.policy.whatIfs.filter((w) => !w.name.startsWith('d-'));
  const distinctOnes = session.policy.whatIfs.filter((w) => w.name.startsWith('d-'));
  const decisions: Record<string, number> = {};
  const first = process.cpuUsage();
  for (const w of whatIfs) {
    const a = await session.answerJob(w.name, w.submit);
    decisions[a.decision] = (decisions[a.decision] ?? 0) + 1;
  }
  const firstUsed = process.cpuUsage(first);
  const warm: number[] = [];
  for (let r = 0; r < WARM_ROUNDS; r++) {
    for (const w of whatIfs) {
      const c = process.cpuUsage();
      await session.answerJob(w.name, w.submit);
      const u = process.cpuUsage(c);
      warm.push(u.user + u.system);
    }
  }
  const distinct: number[] = [];
  for (const w of distinctOnes) {
    const c = process.cpuUsage();
    await session.answerJob(w.name, w.submit);
    const u = process.cpuUsage(c);
    distinct.push(u.user + u.system);
  }
  const dd = distribution(distinct);
  const d = distribution(warm);
  const point: ScalePoint = {
    nodes: meta.nodes,
    quotas: meta.quotas,
    jobs: meta.jobs,
    megabytes: meta.bytes / 1e6,
    openCpuMs: (used.user + used.system) / 1000,
    openWallMs,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    heapAfterOpenMiB,
    liveHeapAfterOpenMiB,
    firstAnswersCpuMs: (firstUsed.user + firstUsed.system) / 1000,
    warmCpu: { medianUs: d.medianUs, p99Us: d.p99Us, samples: d.samples },
    distinctCpu: { medianUs: dd.medianUs, p99Us: dd.p99Us, samples: dd.samples },
    decisions,
  };
  process.stdout.write(`${JSON.stringify(point)}\n`);
}

/** The parent: per size, generate the policy into a temp folder and measure it in a child. */
function parent(): { loadAverage1m: number; node: string; points: ScalePoint[] } {
  const script = fileURLToPath(import.meta.url);
  const points: ScalePoint[] = [];
  for (const nodes of SIZES) {
    if (!Number.isInteger(nodes) || nodes < 10) {
      process.stderr.write(`bench:scale: --sizes takes node counts of 10 or more, comma-separated (got ${argv[sizesAt + 1] ?? ''})\n`);
      process.exit(2);
    }
    // From 100,000 nodes, 4 jobs per node as issue 22 asks (400,000): B3's budgets alone make ~3.6 (b3Policy `jobs`).
    const gen = b3Policy({ nodes, ...(nodes < 1_000 ? { fanout: [3, 3, 3] as [number, number, number] } : {}), ...(nodes >= 100_000 ? { jobs: 4 * nodes } : {}) });
    const dir = mkdtempSync(join(tmpdir(), 'quotient-scale-'));
    try {
      gen.files.forEach((f, i) => writeFileSync(join(dir, `${i}-${f.path.split('/').at(-1)!}`), f.text));
      writeFileSync(join(dir, `${gen.files.length}-distinct.yaml`), whatIfText(distinctWhatIfs(b3Askable(gen.files[0]!.text), DISTINCT)));
      writeFileSync(join(dir, 'meta.json'), JSON.stringify({ nodes, quotas: gen.stats.quotas, jobs: gen.stats.jobs, bytes: gen.stats.bytes }));
      if (!json) process.stderr.write(`bench:scale: ${nodes.toLocaleString('en-US')} nodes...\n`);
      // A policy past the default size limits is opened the way its finding tells a user to: raised limits.
      const env = { ...process.env, QUOTIENT_MAX_POLICY_BYTES: String(Math.max(16 * 2 ** 20, 2 * gen.stats.bytes)), QUOTIENT_MAX_POLICY_NODES: String(Math.max(2_000_000, 40 * gen.stats.jobs)) };
      const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--child', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env });
      if (run.status !== 0) throw new Error(`bench:scale: the child at ${nodes} nodes failed:\n${(run.stderr || String(run.error)).trim().split('\n').slice(-8).join('\n')}`);
      points.push(JSON.parse(run.stdout) as ScalePoint);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { loadAverage1m: loadavg()[0] ?? 0, node: process.version, points };
}

if (childAt >= 0) {
  await child(argv[childAt + 1]!);
} else {
  const result = parent();
  if (json) {
    console.log(JSON.stringify({ benchmark: 'B3 scale curve', ...result }, null, 2));
  } else {
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(`B3 scale curve — node ${result.node}, load average ${result.loadAverage1m.toFixed(2)} at the end; each size in its own process`);
    printRows(
      ['nodes', 'quotas', 'jobs', 'YAML', 'open CPU', 'open wall', 'peak RSS', 'heap after open (live)', 'warm answer CPU median / p99', 'distinct answer CPU median / p99'],
      result.points.map((p) => [
        n(p.nodes),
        n(p.quotas),
        n(p.jobs),
        `${p.megabytes.toFixed(1)} MB`,
        `${(p.openCpuMs / 1000).toFixed(2)} s`,
        `${(p.openWallMs / 1000).toFixed(2)} s`,
        `${n(p.peakRssMiB)} MiB`,
        `${n(p.heapAfterOpenMiB)} MiB (${n(p.liveHeapAfterOpenMiB)} MiB)`,
        `${formatUs(p.warmCpu.medianUs)} / ${formatUs(p.warmCpu.p99Us)}`,
        `${formatUs(p.distinctCpu.medianUs)} / ${formatUs(p.distinctCpu.p99Us)}`,
      ]),
    );
    console.log(
      'Targets (issue 11): 10,000 nodes open in ≤ 1.5 s CPU, ≤ 400 MiB; 50,000 nodes / ~200,000 jobs in ≤ 10 s, ≤ 1.5 GiB; warm answer ≤ 0.5 ms median, ≤ 2 ms p99. Issue 22: 100,000 nodes / ~400,000 jobs in ≤ 15 s CPU, ≤ 1.5 GiB, a distinct answer ≤ 2 ms median.',
    );
  }
}
