/**
 * B5 batch throughput (docs: /work/shared/design/BENCHMARKS.md, bench/README.md).
 *
 * What-if queries through `BatchPool` (Piscina workers, each with its own Session and
 * wasm kernel) with 1, 10, 100 and 1,000 queries per task, on 1 and 2 workers, against
 * the same queries answered one by one on the calling thread. Figures: queries per
 * second, the 2-vs-1-worker ratio (same run), and the per-task overhead the batching
 * removes ((time per query at batch 1 - at batch 1,000) on 1 worker).
 *
 * Two snapshots, because one figure cannot show both effects:
 * - `full`: B3's snapshot (10,000 nodes, 1,011 quotas, ~40,000 jobs). A warm answer
 *   takes milliseconds there (see B3), so 100,000 queries would take hours on 2 cores:
 *   the bench answers 2,000 (`--full-queries`) and says so. Task overhead is invisible
 *   at this size; the worker scaling is what this row shows.
 * - `small`: the same generator at 200 nodes and 40 quotas, where an answer takes
 *   ~0.1 ms and the Piscina round trip matters: as many queries as fit a fixed time
 *   budget, up to 100,000 (printed).
 *
 * Queries: the snapshot's priority-9 WhatIfs (1x8 / 4x8 / 16x8 on projects, teams and
 * divisions) with their gang reshaped round-robin (1-16 pods of 8 GPUs, or one pod of
 * 1, 2 or 4), so every (quota, priority) eligibility table is built in the warm-up and
 * the timed runs measure answering, not table building. Pools are opened and warmed
 * (`BatchPool.warm` + one untimed pass) before timing. A sample of the pool's answers
 * is compared with the in-thread answers; the bench fails if they differ.
 *
 *   npm run build && npm run bench:b5   # the compiled dist/, in the workers and in-thread
 *   npm run -s bench:b5 -- --json       # JSON only
 *   npm run bench:b5 -- --only small    # one snapshot
 *   npm run bench:b5 -- --only small --quick   # the harness's smoke run: 1 run per cell
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Answer } from '../src/engine/answer.js';
import type * as BatchPoolModule from '../src/engine/batch-pool.js';
import type { BatchQuery } from '../src/engine/batch-pool.js';
import type * as SessionModule from '../src/engine/session.js';
import { b3Policy } from './b3-policy.js';
import { compiled } from './compiled.js';
import { formatUs, printRows, sinceUs } from './timing.js';

// The compiled engine (dist/) on the calling thread too, as the workers run it, so the
// in-thread baseline and the pool time the same code (bench/compiled.ts says why).
const { BatchPool } = await compiled<typeof BatchPoolModule>('engine/batch-pool');
const { Session } = await compiled<typeof SessionModule>('engine/session');
type Session = SessionModule.Session;

const json = process.argv.includes('--json');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ONLY = arg('--only');
/** `--quick` (the harness's smoke run): one run per cell and a shorter CPU-loop ceiling, every figure still printed. */
const QUICK = process.argv.includes('--quick');
const FULL_QUERIES = Number(arg('--full-queries') ?? 2000);
const SMALL_MAX = Number(arg('--small-queries') ?? 100_000);
/** Single-thread seconds of answering one small run may take (sets the small query count). */
const SMALL_BUDGET_S = Number(arg('--small-budget') ?? 3);
const BATCHES = [1, 10, 100, 1000];
const WORKERS = [1, 2];
const NOW = Date.parse('2026-11-20T12:00:00Z');

/** Figures B5 is compared with (BENCHMARKS.md). */
const ANCHORS = ['a Piscina round trip measured here: 35-50 µs (compare: per-task overhead above)', '26-29k tiny tasks/s on 2 workers', '2.3 µs per query when 10k are batched in one task'];

interface Variant {
  name: 'full' | 'small';
  nodes: number;
  fanout: [number, number, number];
  repeats: number;
}

const VARIANTS: Variant[] = [
  { name: 'small', nodes: 200, fanout: [3, 3, 3], repeats: QUICK ? 1 : 3 },
  { name: 'full', nodes: 10_000, fanout: [10, 10, 9], repeats: 1 },
];

interface Cell {
  workers: number;
  batch: number;
  tasks: number;
  /** Queries per second: median of the repeats, with min and max. */
  qps: number;
  qpsMin: number;
  qpsMax: number;
}

const SHAPES: Array<[pods: number, gpu: number]> = [
  [1, 8],
  [2, 8],
  [4, 8],
  [8, 8],
  [16, 8],
  [1, 1],
  [1, 2],
  [1, 4],
];

function makeQueries(session: Session, n: number): BatchQuery[] {
  const whatIfs = session.policy.whatIfs;
  return Array.from({ length: n }, (_, i) => {
    const w = whatIfs[i % whatIfs.length]!;
    const [pods, gpu] = SHAPES[Math.floor(i / whatIfs.length) % SHAPES.length]!;
    return { query: w.name, job: { ...w.submit, name: `b5-${i}`, pods, resources: { ...w.submit.resources, gpu } } };
  });
}

async function inThread(session: Session, queries: BatchQuery[]): Promise<{ seconds: number; answers: Answer[] }> {
  const answers: Answer[] = [];
  const start = process.hrtime.bigint();
  for (const q of queries) answers.push(await session.answer(q.query, q.job));
  return { seconds: sinceUs(start) / 1e6, answers };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function runVariant(v: Variant) {
  const gen = b3Policy({ nodes: v.nodes, fanout: v.fanout });
  const files = gen.files;
  let start = process.hrtime.bigint();
  const { session, findings } = Session.open(files, { now: NOW });
  const openMs = sinceUs(start) / 1000;
  if (!session) throw new Error(`B5 ${v.name} policy does not load: ${JSON.stringify(findings.slice(0, 3))}`);

  // Warm the in-thread session (tables, JIT), then size the run.
  const probe = makeQueries(session, Math.min(session.policy.whatIfs.length * SHAPES.length, 480));
  await inThread(session, probe);
  const probeTime = await inThread(session, probe);
  const perQueryUs = (probeTime.seconds * 1e6) / probe.length;
  const n = v.name === 'full' ? FULL_QUERIES : Math.max(2000, Math.min(SMALL_MAX, Math.floor((SMALL_BUDGET_S * 1e6) / perQueryUs / 1000) * 1000));
  const queries = makeQueries(session, n);
  const base = await inThread(session, queries);
  const baselineQps = n / base.seconds;

  const cells: Cell[] = [];
  const key = `b5/${v.name}`;
  const poolOpenMs: Record<number, number> = {};
  for (const workers of WORKERS) {
    const pool = new BatchPool({ workers });
    try {
      start = process.hrtime.bigint();
      await pool.warm(key, files, { now: NOW });
      poolOpenMs[workers] = sinceUs(start) / 1000;
      // One untimed pass: every worker builds its tables for the queries' classes.
      await pool.answerAll(key, files, probe, { now: NOW, batchSize: 10 });
      for (const batch of BATCHES) {
        const rates: number[] = [];
        for (let r = 0; r < v.repeats; r++) {
          start = process.hrtime.bigint();
          const answers = await pool.answerAll(key, files, queries, { now: NOW, batchSize: batch });
          rates.push(n / (sinceUs(start) / 1e6));
          for (let i = 0; i < n; i += 97) {
            if (JSON.stringify(answers[i]) !== JSON.stringify(base.answers[i])) throw new Error(`B5 ${v.name}: pool answer ${i} differs from the in-thread answer`);
          }
        }
        cells.push({ workers, batch, tasks: Math.ceil(n / batch), qps: median(rates), qpsMin: Math.min(...rates), qpsMax: Math.max(...rates) });
      }
    } finally {
      await pool.close();
    }
  }
  const at = (w: number, b: number) => cells.find((c) => c.workers === w && c.batch === b)!;
  const scaling = Object.fromEntries(BATCHES.map((b) => [b, at(2, b).qps / at(1, b).qps]));
  // Per-task overhead the batching removes, on one worker: extra µs per query at batch 1.
  const taskOverheadUs = 1e6 / at(1, 1).qps - 1e6 / at(1, 1000).qps;
  const decisions: Record<string, number> = {};
  for (const a of base.answers) decisions[a.decision] = (decisions[a.decision] ?? 0) + 1;
  return {
    variant: v.name,
    cluster: gen.stats,
    queries: n,
    repeats: v.repeats,
    decisions,
    openInThreadMs: openMs,
    poolWarmMs: poolOpenMs,
    inThread: { qps: baselineQps, usPerQuery: 1e6 / baselineQps },
    cells,
    scaling,
    taskOverheadUs,
  };
}

/**
 * The 2-thread speed-up this machine gives right now: the same CPU loop on 1 thread,
 * then on 2 at once. Machines here are shared; read 2w/1w against this ceiling.
 */
async function parallelCeiling(): Promise<number> {
  const code = `const { parentPort } = require('node:worker_threads'); let x = 0; for (let i = 0; i < ${QUICK ? '1e8' : '4e8'}; i++) x = (x + i * 7) | 0; parentPort.postMessage(x);`;
  const time = async (threads: number): Promise<number> => {
    const start = process.hrtime.bigint();
    await Promise.all(Array.from({ length: threads }, () => new Promise((resolve, reject) => new Worker(code, { eval: true }).once('message', resolve).once('error', reject))));
    return sinceUs(start);
  };
  await time(1);
  const ratios: number[] = [];
  for (let r = 0; r < (QUICK ? 2 : 3); r++) {
    const one = await time(1);
    const two = await time(2);
    ratios.push((2 * one) / two);
  }
  return median(ratios);
}

async function run() {
  const ceilingBefore = await parallelCeiling();
  const load = loadavg()[0] ?? 0;
  const variants = [];
  for (const v of VARIANTS) if (!ONLY || ONLY === v.name) variants.push(await runVariant(v));
  const ceilingAfter = await parallelCeiling();
  return {
    benchmark: 'B5 batch throughput',
    node: process.version,
    cores: availableParallelism(),
    loadAverage1m: load,
    parallelCeiling: { before: ceilingBefore, after: ceilingAfter },
    variants,
    anchors: ANCHORS,
  };
}

function printTable(r: Awaited<ReturnType<typeof run>>): void {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`B5 batch throughput — node ${r.node}, ${r.cores} cores; queries per second (median of repeats, min-max)`);
  console.log(
    `2-thread speed-up of a plain CPU loop on this machine now: ${r.parallelCeiling.before.toFixed(2)}x before, ${r.parallelCeiling.after.toFixed(2)}x after (2.00 = two free cores; load average ${r.loadAverage1m.toFixed(2)} at start)`,
  );
  for (const v of r.variants) {
    const c = v.cluster;
    console.log(
      `\n[${v.variant}] ${n(c.nodes)} nodes × 8 GPUs, ${n(c.quotas)} quotas, ${n(c.jobs)} jobs; ${n(v.queries)} queries${v.variant === 'full' ? ' (not 100,000: a warm answer takes ms on this snapshot, see B3)' : v.queries < 100_000 ? " (the time budget's worth, not 100,000)" : ''}, ${v.repeats} run(s) per cell`,
    );
    console.log(
      `answers: ${Object.entries(v.decisions)
        .map(([k, x]) => `${n(x)} ${k}`)
        .join(', ')}; Session.open in-thread ${n(v.openInThreadMs)} ms; pool warm (open in each worker) ${Object.entries(v.poolWarmMs)
        .map(([w, ms]) => `${w}w ${n(ms)} ms`)
        .join(', ')}`,
    );
    console.log(`in-thread baseline: ${n(v.inThread.qps)} q/s (${formatUs(v.inThread.usPerQuery)} per query)`);
    printRows(
      ['batch', 'tasks', '1 worker q/s', '2 workers q/s', '2w/1w', '2w vs in-thread'],
      BATCHES.map((b) => {
        const one = v.cells.find((x) => x.workers === 1 && x.batch === b)!;
        const two = v.cells.find((x) => x.workers === 2 && x.batch === b)!;
        const cell = (x: Cell) => (v.repeats > 1 ? `${n(x.qps)} (${n(x.qpsMin)}-${n(x.qpsMax)})` : n(x.qps));
        return [String(b), n(one.tasks), cell(one), cell(two), `${v.scaling[b]!.toFixed(2)}x`, `${(two.qps / v.inThread.qps).toFixed(2)}x`];
      }),
    );
    console.log(`per-task overhead removed by batching (1 worker, batch 1 vs 1,000): ${v.taskOverheadUs > 0 ? `${formatUs(v.taskOverheadUs)} per task` : 'below the noise at this answer time'}`);
  }
  console.log('\nAnchors (BENCHMARKS.md B5):');
  for (const a of ANCHORS) console.log(`  ${a}`);
}

const result = await run();
if (json) console.log(JSON.stringify(result, null, 2));
else printTable(result);
