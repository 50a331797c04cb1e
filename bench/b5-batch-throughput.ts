/**
 * B5 batch throughput (docs: /work/shared/design/BENCHMARKS.md, bench/README.md).
 *
 * What-if queries through `BatchPool` (Piscina workers, each with its own Session and
 * wasm kernel) with 1, 10, 100 and 1,000 queries per task, on 1 and 2 workers, against
 * the same queries answered one by one on the calling thread. Figures: queries per
 * second, the 2-vs-1-worker ratio (same run), and the per-task overhead the batching
 * removes ((time per query at batch 1 - at batch 1,000) on 1 worker).
 *
 * Every cell is measured twice, with the answer memo (engine/answer-memo.ts: an equal
 * request but for its names reuses the earlier answer) and without it (every answer
 * computed, as for a sweep of all-distinct requests). B5's query mix is B3's 60 WhatIfs
 * reshaped to 8 gang shapes, every query under its own job name: a few hundred distinct
 * requests as the memo keys them (counted and printed), each asked many times. A memo run starts cold
 * (on a fresh pool, opened and warmed with the memo off), so its hit rate is that of its
 * own queries on a fresh memo in each worker; it is printed.
 *
 * Two snapshots:
 * - `full`: B3's snapshot (10,000 nodes, 1,011 quotas, ~40,000 jobs). With the memo:
 *   100,000 queries. Without: 4,000 (`--full-queries`), a warm answer being ~0.3 ms.
 * - `small`: the same generator at 200 nodes and 40 quotas. With the memo: 100,000
 *   queries; without: as many as `--small-budget` seconds of single-thread answering
 *   allow, up to 100,000 (printed).
 *
 * Every timed run starts after a full garbage collection (timing.ts `collectGarbage`):
 * what the runs before it left (100,000 answers, a closed pool) is garbage by then, and
 * collecting it inside the timed region would time those runs on the calling thread, on
 * one of the two cores the workers share with it.
 *
 * Eligibility tables are built before timing (`BatchPool.warm` + one untimed pass). A
 * sample of the pool's answers (every 97th) is compared with in-thread answers computed
 * without the memo; the bench fails if they differ.
 *
 *   npm run build && npm run bench:b5   # the compiled dist/, in the workers and in-thread
 *   npm run -s bench:b5 -- --json       # JSON only
 *   npm run bench:b5 -- --only small    # one snapshot
 *   npm run bench:b5 -- --only small --quick   # the harness's smoke run: 1 run per cell, batches 1 and 1,000
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type * as AnswerMemoModule from '../src/engine/answer-memo.js';
import type * as BatchPoolModule from '../src/pool/batch-pool.js';
import type { BatchQuery } from '../src/pool/batch-pool.js';
import { jobSpecDoc } from '../src/policy/write/to-docs.js';
import type * as SessionModule from '../src/engine/session.js';
import type * as StartEstimateModule from '../src/simulate/start-estimate.js';
import { b3Policy } from './b3-policy.js';
import { compiled } from './compiled.js';
import { collectGarbage, formatUs, printRows, sinceUs } from './timing.js';

// The compiled engine (dist/) on the calling thread too, as the workers run it, so the
// in-thread baseline and the pool time the same code (bench/compiled.ts says why).
const { BatchPool } = await compiled<typeof BatchPoolModule>('pool/batch-pool');
const { Session } = await compiled<typeof SessionModule>('engine/session');
const { requestKey } = await compiled<typeof AnswerMemoModule>('engine/answer-memo');
const { estimateStart } = await compiled<typeof StartEstimateModule>('simulate/start-estimate');
type Session = SessionModule.Session;

const json = process.argv.includes('--json');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ONLY = arg('--only');
/** `--quick` (the harness's smoke run): one run per cell and a shorter CPU-loop ceiling, every figure still printed. */
const QUICK = process.argv.includes('--quick');
/** Queries of a memo run (both snapshots). */
const MEMO_QUERIES = Number(arg('--queries') ?? 100_000);
/** Queries of a run without the memo on the full snapshot. */
const FULL_QUERIES = Number(arg('--full-queries') ?? 4000);
const SMALL_MAX = Number(arg('--small-queries') ?? 100_000);
/** Single-thread seconds of answering (without the memo) one small run may take (sets its query count). */
const SMALL_BUDGET_S = Number(arg('--small-budget') ?? 3);
/** --quick keeps the two ends its figures read (the per-task overhead, 1 vs 1,000; the 2-worker rate at 1,000): each memo cell opens a fresh pool, most of the quick run's time. */
const BATCHES = QUICK ? [1, 1000] : [1, 10, 100, 1000];
const WORKERS = [1, 2];
const MODES = ['memo', 'no-memo'] as const;
type Mode = (typeof MODES)[number];
const NOW = Date.parse('2026-11-20T12:00:00Z');
/** Every 97th answer is compared with the in-thread answer. */
const SAMPLE = 97;

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
  mode: Mode;
  workers: number;
  batch: number;
  queries: number;
  tasks: number;
  /** Queries per second: median of the repeats, with min and max. */
  qps: number;
  qpsMin: number;
  qpsMax: number;
  /** With the memo: answers the workers' memos gave, over all repeats (0-1). */
  hitRate?: number;
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
    // As a program sends a job: the values a WhatIf's `submit` holds (the pipeline checks them, engine/request.ts).
    const doc = jobSpecDoc(w.submit);
    return { request: { submit: { ...doc, name: `b5-${i}`, pods, resources: { ...(doc.resources as object), gpu } } }, query: w.name };
  });
}

/**
 * Answers `queries` one by one on the calling thread. Keeps only the sampled answers (as
 * JSON) and the decision counts: holding 100,000 answers would time the collector
 * copying them (measured: 2× per answer), not the answers.
 */
async function inThread(session: Session, queries: BatchQuery[], memo: boolean): Promise<{ seconds: number; sample: Map<number, string>; decisions: Record<string, number> }> {
  session.answerMemo = memo;
  const sample = new Map<number, string>();
  const decisions: Record<string, number> = {};
  collectGarbage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const a = (await session.ask(q.request, { query: q.query ?? 'submit' })).answer!;
    decisions[a.decision] = (decisions[a.decision] ?? 0) + 1;
    if (i % SAMPLE === 0) sample.set(i, JSON.stringify(a));
  }
  const seconds = sinceUs(start) / 1e6;
  return { seconds, sample, decisions };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const hitRate = (s: { hits: number; misses: number; skipped: number }): number => s.hits / Math.max(1, s.hits + s.misses + s.skipped);

async function runVariant(v: Variant) {
  const gen = b3Policy({ nodes: v.nodes, fanout: v.fanout });
  const files = gen.files;
  let start = process.hrtime.bigint();
  // The pool's workers estimate a wait's start (pool/batch-worker.ts): so does the in-thread session the answers are compared with.
  const { session, findings } = Session.open(files, { now: NOW, answerMemo: false, estimator: (policy, job, o) => estimateStart(policy, job, { backend: 'wasm', ...o }) });
  const openMs = sinceUs(start) / 1000;
  if (!session) throw new Error(`B5 ${v.name} policy does not load: ${JSON.stringify(findings.slice(0, 3))}`);

  // Warm the in-thread session (tables, JIT) without the memo, then size the runs.
  const classes = session.policy.whatIfs.length * SHAPES.length;
  const probe = makeQueries(session, Math.min(classes, 480));
  await inThread(session, probe, false);
  const probeTime = await inThread(session, probe, false);
  const perQueryUs = (probeTime.seconds * 1e6) / probe.length;
  const count: Record<Mode, number> = {
    memo: MEMO_QUERIES,
    'no-memo': v.name === 'full' ? FULL_QUERIES : Math.max(2000, Math.min(SMALL_MAX, Math.floor((SMALL_BUDGET_S * 1e6) / perQueryUs / 1000) * 1000)),
  };
  const all = makeQueries(session, Math.max(count.memo, count['no-memo']));
  // Distinct requests as the memo keys them (WhatIfs on the same quota and priority reshaped alike are one).
  const distinct = new Set(all.map((q) => requestKey(q.request.submit as object))).size;
  const queries: Record<Mode, BatchQuery[]> = { memo: all.slice(0, count.memo), 'no-memo': all.slice(0, count['no-memo']) };

  // In-thread, without the memo (the figure before the memo) and with it, on a cold memo.
  const off = await inThread(session, queries['no-memo'], false);
  const statsBefore = { ...session.answerMemoStats };
  // The session opened with the memo off and has answered nothing with it: its memo is cold.
  const on = await inThread(session, queries.memo, true);
  const statsAfter = session.answerMemoStats;
  const inThreadHits = hitRate({ hits: statsAfter.hits - statsBefore.hits, misses: statsAfter.misses - statsBefore.misses, skipped: statsAfter.skipped - statsBefore.skipped });
  // The answers every pool run is checked against: computed in full, never from the memo.
  session.answerMemo = false;
  const expected = new Map(off.sample);
  for (let i = 0; i < all.length; i += SAMPLE) if (!expected.has(i)) expected.set(i, JSON.stringify((await session.ask(all[i]!.request, { query: all[i]!.query ?? 'submit' })).answer));
  for (const [i, a] of on.sample) if (a !== expected.get(i)) throw new Error(`B5 ${v.name}: in-thread answer ${i} with the memo differs from the answer computed without it`);

  const cells: Cell[] = [];
  const key = `b5/${v.name}`;
  const poolOpenMs: Record<number, number> = {};
  // A pool opened and warmed (tables, JIT) with the memo off: its workers' memos are cold.
  const openPool = async (workers: number): Promise<{ pool: InstanceType<typeof BatchPool>; warmMs: number }> => {
    const pool = new BatchPool({ workers });
    start = process.hrtime.bigint();
    await pool.warm(key, files, { now: NOW });
    const warmMs = sinceUs(start) / 1000;
    // One untimed pass: every worker builds its tables for the queries' classes.
    await pool.answerAll(key, files, probe, { now: NOW, batchSize: 10, answerMemo: false });
    return { pool, warmMs };
  };
  for (const workers of WORKERS) {
    const { pool: shared, warmMs } = await openPool(workers);
    poolOpenMs[workers] = warmMs;
    try {
      for (const mode of MODES) {
        for (const batch of BATCHES) {
          const rates: number[] = [];
          const stats = { hits: 0, misses: 0, skipped: 0 };
          for (let r = 0; r < v.repeats; r++) {
            // Each memo run on a fresh pool, so on a cold memo in every worker (a memo lives
            // as long as its worker's Session); runs without it share one pool.
            const pool = mode === 'memo' ? (await openPool(workers)).pool : shared;
            try {
              const input = queries[mode];
              const before = { ...pool.answerMemoStats };
              collectGarbage();
              start = process.hrtime.bigint();
              const answers = await pool.answerAll(key, files, input, { now: NOW, batchSize: batch, answerMemo: mode === 'memo' });
              rates.push(input.length / (sinceUs(start) / 1e6));
              for (const k of ['hits', 'misses', 'skipped'] as const) stats[k] += pool.answerMemoStats[k] - before[k];
              for (let i = 0; i < input.length; i += SAMPLE) {
                if (JSON.stringify(answers[i]) !== expected.get(i)) throw new Error(`B5 ${v.name} (${mode}): pool answer ${i} differs from the in-thread answer`);
              }
            } finally {
              if (pool !== shared) await pool.close();
            }
          }
          const n = queries[mode].length;
          cells.push({
            mode,
            workers,
            batch,
            queries: n,
            tasks: Math.ceil(n / batch),
            qps: median(rates),
            qpsMin: Math.min(...rates),
            qpsMax: Math.max(...rates),
            ...(mode === 'memo' ? { hitRate: hitRate(stats) } : {}),
          });
        }
      }
    } finally {
      await shared.close();
    }
  }
  const at = (m: Mode, w: number, b: number) => cells.find((c) => c.mode === m && c.workers === w && c.batch === b)!;
  const scaling = Object.fromEntries(MODES.map((m) => [m, Object.fromEntries(BATCHES.map((b) => [b, at(m, 2, b).qps / at(m, 1, b).qps]))])) as Record<Mode, Record<number, number>>;
  // Per-task overhead the batching removes, on one worker: extra µs per query at batch 1.
  const taskOverheadUs = Object.fromEntries(MODES.map((m) => [m, 1e6 / at(m, 1, 1).qps - 1e6 / at(m, 1, 1000).qps])) as Record<Mode, number>;
  return {
    variant: v.name,
    cluster: gen.stats,
    /** Distinct requests in the query mix, as the memo keys them. */
    distinctRequests: distinct,
    queries: count,
    repeats: v.repeats,
    decisions: off.decisions,
    openInThreadMs: openMs,
    poolWarmMs: poolOpenMs,
    inThread: {
      'no-memo': { qps: count['no-memo'] / off.seconds, usPerQuery: (off.seconds * 1e6) / count['no-memo'] },
      memo: { qps: count.memo / on.seconds, usPerQuery: (on.seconds * 1e6) / count.memo, hitRate: inThreadHits },
    },
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
  const pct = (x: number | undefined) => (x === undefined ? '' : `${(x * 100).toFixed(1)} %`);
  console.log(`B5 batch throughput — node ${r.node}, ${r.cores} cores; queries per second (median of repeats, min-max); target ≥ 100,000 q/s on 2 workers at batch 1,000, ≥ 1.7× from 1 to 2 workers`);
  console.log(
    `2-thread speed-up of a plain CPU loop on this machine now: ${r.parallelCeiling.before.toFixed(2)}x before, ${r.parallelCeiling.after.toFixed(2)}x after (2.00 = two free cores; load average ${r.loadAverage1m.toFixed(2)} at start)`,
  );
  for (const v of r.variants) {
    const c = v.cluster;
    console.log(
      `\n[${v.variant}] ${n(c.nodes)} nodes × 8 GPUs, ${n(c.quotas)} quotas, ${n(c.jobs)} jobs; query mix: B3's WhatIfs in 8 shapes, ${n(v.distinctRequests)} distinct requests, every query under its own job name; ${v.repeats} run(s) per cell`,
    );
    console.log(
      `answers: ${Object.entries(v.decisions)
        .map(([k, x]) => `${n(x)} ${k}`)
        .join(', ')}; Session.open in-thread ${n(v.openInThreadMs)} ms; pool warm (open in each worker) ${Object.entries(v.poolWarmMs)
        .map(([w, ms]) => `${w}w ${n(ms)} ms`)
        .join(', ')}`,
    );
    console.log(
      `in-thread: without the memo ${n(v.inThread['no-memo'].qps)} q/s (${formatUs(v.inThread['no-memo'].usPerQuery)} per query, ${n(v.queries['no-memo'])} queries); with it ${n(v.inThread.memo.qps)} q/s (${formatUs(v.inThread.memo.usPerQuery)}, ${n(v.queries.memo)} queries, hit rate ${pct(v.inThread.memo.hitRate)} on a cold memo)`,
    );
    for (const mode of MODES) {
      console.log(
        mode === 'memo'
          ? `\nwith the answer memo (${n(v.queries.memo)} queries per run, each run on a cold memo in every worker):`
          : `\nwithout the memo (every answer computed, as for all-distinct requests; ${n(v.queries['no-memo'])} queries per run):`,
      );
      printRows(
        ['batch', 'tasks', '1 worker q/s', '2 workers q/s', '2w/1w', '2w vs in-thread', ...(mode === 'memo' ? ['hit rate 1w / 2w'] : [])],
        BATCHES.map((b) => {
          const one = v.cells.find((x) => x.mode === mode && x.workers === 1 && x.batch === b)!;
          const two = v.cells.find((x) => x.mode === mode && x.workers === 2 && x.batch === b)!;
          const cell = (x: Cell) => (v.repeats > 1 ? `${n(x.qps)} (${n(x.qpsMin)}-${n(x.qpsMax)})` : n(x.qps));
          return [
            String(b),
            n(one.tasks),
            cell(one),
            cell(two),
            `${v.scaling[mode][b]!.toFixed(2)}x`,
            `${(two.qps / v.inThread[mode].qps).toFixed(2)}x`,
            ...(mode === 'memo' ? [`${pct(one.hitRate)} / ${pct(two.hitRate)}`] : []),
          ];
        }),
      );
      const overhead = v.taskOverheadUs[mode];
      console.log(`per-task overhead removed by batching (1 worker, batch 1 vs 1,000): ${overhead > 0 ? `${formatUs(overhead)} per task` : 'below the noise at this answer time'}`);
    }
  }
  console.log('\nAnchors (BENCHMARKS.md B5):');
  for (const a of ANCHORS) console.log(`  ${a}`);
}

const result = await run();
if (json) console.log(JSON.stringify(result, null, 2));
else printTable(result);
