/**
 * B3 what-if with preemption (docs: /work/shared/design/BENCHMARKS.md, bench/README.md).
 *
 * A generated policy (bench/b3-policy.ts): 10,000 nodes × 8 GPUs all allocated, 1,011
 * quotas in 3 levels with selfPreemption and childPreemption clauses, ~40,000 running
 * jobs with explicit placements (in quota, borrowing, idle), and priority-9 WhatIfs
 * needing 1x8, 4x8 and 16x8 GPUs. Measured per what-if answer, through the public
 * `Session.answer` (admission + rules' tables + kernel + explanation), for the wasm
 * kernel and the pure-TS twin in the same run:
 *
 * - one-time costs: generating the text, load + validate, Session.open (load + compile
 *   rules + snapshot + kernel load), and the first answer (which builds the eligibility
 *   table of its (quota, priority) with json-rules-engine);
 * - cold answers: the first answer of each WhatIf (each builds its own table);
 * - warm answers: the same WhatIfs answered again, several rounds: median and p99 per
 *   shape, and the share of that time spent inside the kernel (place + selectVictims).
 *
 * Both kernels' answers are compared; the bench fails if they differ.
 *
 *   npm run bench:b3                 # table
 *   npm run -s bench:b3 -- --json    # JSON only
 *   npm run bench:b3 -- --nodes 2000 # a smaller cluster (quick look)
 */
import type { Answer } from '../src/engine/answer.js';
import { findCandidates } from '../src/engine/preemption-problem.js';
import { overruns, totalRequest } from '../src/engine/usage.js';
import { Session } from '../src/engine/session.js';
import { loadPolicy } from '../src/policy/load-policy.js';
import { b3Policy, type B3Query } from './b3-policy.js';
import { distribution, formatUs, printRows, sinceUs, timeKernelCalls, type Distribution } from './timing.js';

const json = process.argv.includes('--json');
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg('--nodes', 10_000);
const WARM_ROUNDS = { wasm: arg('--rounds', 5), reference: Math.max(1, Math.ceil(arg('--rounds', 5) / 2)) };
const SHAPES = ['1x8', '4x8', '16x8'] as const;

/** Figures B3 is compared with (BENCHMARKS.md), per what-if answer. */
const ANCHORS = [
  { what: 'kube-scheduler preemption: dry runs on >= 10% of nodes (1,000 here), a greedy per node', us: null as number | null },
  { what: 'kube-scheduler PreemptionAsync threshold at 5,000 nodes (570 pods/s)', us: 1e6 / 570 },
  { what: 'an exact per-node DP over 10,000 nodes (measured here)', us: 1550 },
];

interface BackendRun {
  backend: 'wasm' | 'reference';
  openMs: number;
  firstQueryUs: number;
  cold: Distribution;
  warm: Record<(typeof SHAPES)[number] | 'all', Distribution>;
  /** CPU time per warm answer, all shapes (µs; the clock's resolution is 1 µs). */
  warmCpu: Distribution;
  /** Mean µs per warm answer spent inside kernel.place / kernel.selectVictims. */
  kernelUsPerAnswer: number;
  kernelCallsPerAnswer: number;
  /** One `findCandidates` call (the in-quota target) per WhatIf, timed alone: after the first answers it reads the snapshot's memo. */
  findCandidates: Distribution;
  /** Candidates per call (median). */
  candidates: number;
  answers: Answer[];
}

async function runBackend(backend: 'wasm' | 'reference', files: Array<{ path: string; text: string }>, queries: B3Query[]): Promise<BackendRun> {
  let start = process.hrtime.bigint();
  // The answer memo off: the warm rounds ask the same 60 WhatIfs again, and B3 times a
  // complete answer, not a memo hit (B5 reports both).
  const { session, findings } = Session.open(files, { backend, answerMemo: false });
  const openMs = sinceUs(start) / 1000;
  if (!session) throw new Error(`B3 policy does not load: ${JSON.stringify(findings.slice(0, 3))}`);
  const whatIfs = session.policy.whatIfs;
  const kernelTime = timeKernelCalls(session.snapshot!.kernel);

  const answers: Answer[] = [];
  const cold: number[] = [];
  for (const w of whatIfs) {
    start = process.hrtime.bigint();
    answers.push(await session.answerJob(w.name, w.submit));
    cold.push(sinceUs(start));
  }
  kernelTime.us = 0;
  kernelTime.calls = 0;
  const warm: Record<string, number[]> & { all: number[] } = { all: [], '1x8': [], '4x8': [], '16x8': [] };
  // CPU time per answer too (user + system of this process): on a shared machine wall time
  // includes waiting for a core, CPU time does not.
  const warmCpu: number[] = [];
  const shapeOf = new Map(queries.map((q) => [q.name, `${q.pods}x${q.gpu}`]));
  for (let round = 0; round < WARM_ROUNDS[backend]; round++) {
    for (const w of whatIfs) {
      const cpu = process.cpuUsage();
      start = process.hrtime.bigint();
      await session.answerJob(w.name, w.submit);
      const us = sinceUs(start);
      const used = process.cpuUsage(cpu);
      warmCpu.push(used.user + used.system);
      warm.all.push(us);
      warm[shapeOf.get(w.name)!]!.push(us); // every query's shape is one of SHAPES
    }
  }
  const n = warm.all.length;
  // The hot spot, alone: candidate lookup over every running job (one table lookup each).
  const snap = session.snapshot!;
  const fc: number[] = [];
  const counts: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const w of whatIfs) {
      const q = snap.tree.indexOf(w.submit.quota);
      const table = await session.tables.tableFor(q, w.submit.priority);
      const over = overruns(snap.tree, snap.usage, q, totalRequest(w.submit), 'in-quota');
      start = process.hrtime.bigint();
      const found = findCandidates(snap, table, snap.poolIndexOf(w.submit.quota), over);
      fc.push(sinceUs(start));
      counts.push(found.candidates.length);
    }
  }
  return {
    findCandidates: distribution(fc),
    candidates: distribution(counts).medianUs,
    backend,
    openMs,
    firstQueryUs: cold[0]!,
    cold: distribution(cold),
    warm: Object.fromEntries(Object.entries(warm).map(([k, v]) => [k, distribution(v)])) as BackendRun['warm'],
    warmCpu: distribution(warmCpu),
    kernelUsPerAnswer: kernelTime.us / n,
    kernelCallsPerAnswer: kernelTime.calls / n,
    answers,
  };
}

async function run() {
  let start = process.hrtime.bigint();
  const gen = b3Policy({ nodes: NODES });
  const generateMs = sinceUs(start) / 1000;

  start = process.hrtime.bigint();
  const loaded = loadPolicy(gen.files);
  const loadMs = sinceUs(start) / 1000;
  if (!loaded.policy) throw new Error(`B3 policy does not load: ${JSON.stringify(loaded.findings.slice(0, 3))}`);

  const wasm = await runBackend('wasm', gen.files, gen.queries);
  const twin = await runBackend('reference', gen.files, gen.queries);
  const disagree = wasm.answers.findIndex((a, i) => JSON.stringify(a) !== JSON.stringify(twin.answers[i]));
  if (disagree >= 0) throw new Error(`wasm and reference answers differ on ${wasm.answers[disagree]!.query}`);

  const decisions: Record<string, number> = {};
  for (const a of wasm.answers) {
    const k = `${a.decision}${a.standing ? ` (${a.standing})` : ''}`;
    decisions[k] = (decisions[k] ?? 0) + 1;
  }
  const victims = distribution(wasm.answers.filter((a) => a.decision === 'preempt').map((a) => a.victims.length));
  const strip = (r: BackendRun) => ({ ...r, answers: undefined });
  return {
    benchmark: 'B3 what-if with preemption',
    node: process.version,
    cluster: gen.stats,
    queries: gen.queries.length,
    warmRounds: WARM_ROUNDS,
    decisions,
    victimsPerPreempt: { median: victims.medianUs, max: victims.maxUs },
    oneTime: { generateMs, loadValidateMs: loadMs, openWasmMs: wasm.openMs, openReferenceMs: twin.openMs, firstQueryWasmUs: wasm.firstQueryUs, firstQueryReferenceUs: twin.firstQueryUs },
    wasm: strip(wasm),
    reference: strip(twin),
    /** Median reference time / median wasm time, warm, per shape. */
    ratio: Object.fromEntries([...SHAPES, 'all' as const].map((s) => [s, twin.warm[s].medianUs / wasm.warm[s].medianUs])),
    answersAgree: true,
    anchors: ANCHORS,
  };
}

function printTable(r: Awaited<ReturnType<typeof run>>): void {
  const c = r.cluster;
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`B3 what-if with preemption — node ${r.node}`);
  console.log(
    `cluster: ${n(c.nodes)} nodes × 8 GPUs (${n(c.gpus)} GPUs, all allocated: ${n(c.inQuotaGpus)} in quota, ${n(c.borrowingGpus)} borrowing, ${n(c.idleGpus)} idle), ${n(c.quotas)} quotas, ${n(c.jobs)} running jobs (${n(c.pods)} pods), ${(c.bytes / 1e6).toFixed(1)} MB of YAML`,
  );
  console.log(
    `queries: ${r.queries} priority-9 WhatIfs (${SHAPES.map((s) => s).join(', ')}); answers: ${Object.entries(r.decisions)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}; victims per preempt: median ${r.victimsPerPreempt.median}, max ${r.victimsPerPreempt.max}`,
  );
  console.log(`wasm and reference answers: identical (${r.queries} of ${r.queries})\n`);
  console.log('One-time costs');
  const o = r.oneTime;
  printRows(
    ['step', 'wasm', 'reference'],
    [
      ['generate the YAML (bench only)', `${o.generateMs.toFixed(0)} ms`, ''],
      ['load + validate (loadPolicy)', `${o.loadValidateMs.toFixed(0)} ms`, ''],
      ['Session.open (load + rules + snapshot + kernel load)', `${o.openWasmMs.toFixed(0)} ms`, `${o.openReferenceMs.toFixed(0)} ms`],
      ['first answer (builds its eligibility table)', formatUs(o.firstQueryWasmUs), formatUs(o.firstQueryReferenceUs)],
      [
        'cold answers, each builds a table: median (p99)',
        `${formatUs(r.wasm.cold.medianUs)} (${formatUs(r.wasm.cold.p99Us)})`,
        `${formatUs(r.reference.cold.medianUs)} (${formatUs(r.reference.cold.p99Us)})`,
      ],
    ],
  );
  console.log(`\nWarm answers (tables built), per answer: ${r.warmRounds.wasm} rounds wasm, ${r.warmRounds.reference} rounds reference`);
  const cell = (d: Distribution) => `${formatUs(d.medianUs)} / ${formatUs(d.p99Us)} (${formatUs(d.minUs)}-${formatUs(d.maxUs)})`;
  printRows(
    ['shape', 'n', 'wasm median / p99 (min-max)', 'reference median / p99 (min-max)', 'ref/wasm'],
    [...SHAPES, 'all' as const].map((s) => [s, String(r.wasm.warm[s].samples), cell(r.wasm.warm[s]), cell(r.reference.warm[s]), `${r.ratio[s]!.toFixed(2)}x`]),
  );
  console.log(
    `CPU time per warm answer (wasm, all shapes): median ${formatUs(r.wasm.warmCpu.medianUs)}, p99 ${formatUs(r.wasm.warmCpu.p99Us)} (${formatUs(r.wasm.warmCpu.minUs)}-${formatUs(r.wasm.warmCpu.maxUs)}); reference ${formatUs(r.reference.warmCpu.medianUs)}`,
  );
  console.log('\nWhere a warm answer goes (wasm run)');
  printRows(
    ['part', 'per answer', 'share of the median answer'],
    [
      [
        'inside the kernel (place + selectVictims), mean',
        `${formatUs(r.wasm.kernelUsPerAnswer)} (${r.wasm.kernelCallsPerAnswer.toFixed(1)} calls)`,
        `${((100 * r.wasm.kernelUsPerAnswer) / r.wasm.warm.all.medianUs).toFixed(0)}%`,
      ],
      [
        `findCandidates alone (memoized per snapshot state), one call, median (p99); ~${n(Math.round(r.wasm.candidates))} candidates`,
        `${formatUs(r.wasm.findCandidates.medianUs)} (${formatUs(r.wasm.findCandidates.p99Us)})`,
        `${((100 * r.wasm.findCandidates.medianUs) / r.wasm.warm.all.medianUs).toFixed(0)}% (1-2 calls per answer)`,
      ],
    ],
  );
  console.log(
    `kernel alone, reference/wasm: ${(r.reference.kernelUsPerAnswer / r.wasm.kernelUsPerAnswer).toFixed(1)}x (${formatUs(r.reference.kernelUsPerAnswer)} vs ${formatUs(r.wasm.kernelUsPerAnswer)} per answer); end to end the TypeScript around it dominates.`,
  );
  console.log('Anchors (BENCHMARKS.md B3, per what-if):');
  for (const a of ANCHORS) console.log(`  ${a.what}${a.us ? `: ${formatUs(a.us)}` : ''}`);
}

const result = await run();
if (json) console.log(JSON.stringify(result, null, 2));
else printTable(result);
