/**
 * B2 placement latency (docs: /work/shared/design/BENCHMARKS.md, bench/README.md).
 *
 * Synthetic clusters of 100, 1,000 and 10,000 nodes × 8 GPUs, 80% of GPUs allocated
 * (seeded, so every run measures the same state); gang shapes 1x8, 4x8, 16x2 and 64x1.
 * For each, the wasm kernel and the pure-TS twin are timed in the same run, call by call
 * (median, min, max), and the twin/kernel ratio of medians is the figure to compare
 * across runs. A no-op call gives the JS → wasm round-trip floor, and selectVictims is
 * timed on the 10,000-node cluster with every job a candidate.
 *
 *   npm run bench:b2             # table
 *   npm run -s bench:b2 -- --json   # JSON only
 *   npm run bench:b2 -- --quick     # 1,000 and 10,000 nodes only, shorter sampling
 */
import type { Candidate, GangRequest, Kernel, QuotaConstraint } from '../src/kernel/types.js';
import type * as ReferenceModule from '../src/kernel/reference.js';
import type * as WasmKernelModule from '../src/kernel/wasm-kernel.js';
import { compiled } from './compiled.js';
import { syntheticCluster } from './synthetic-cluster.js';
import { formatUs, measure, type TimingSummary } from './timing.js';

// The compiled kernel and twin (dist/), as the CLI runs them: bench/compiled.ts says why.
const { WasmKernel } = await compiled<typeof WasmKernelModule>('kernel/wasm-kernel');
const { ReferenceKernel } = await compiled<typeof ReferenceModule>('kernel/reference');

const quick = process.argv.includes('--quick');
/** Node counts: 10,000 is B2's size; 1,000 and 50,000 show whether cost depends on it. */
const SIZES = quick ? [1_000, 10_000] : [1_000, 10_000, 50_000];
const BUDGET_MS = quick ? 300 : 1000;
const SHAPES: Array<[pods: number, gpu: number]> = [
  [1, 8],
  [4, 8],
  [16, 2],
  [64, 1],
];
const ALLOCATED = 0.8;
const json = process.argv.includes('--json');

/** Figures B2 is compared with (BENCHMARKS.md), all per placement. */
const ANCHORS = [
  { what: 'full SIMD scan of the 10 KB bitmap (measured here)', us: 1.2 },
  { what: 'native floor', us: 0.2, note: '~0.1-0.3 µs' },
  { what: 'plain JS scan', us: 20 },
  { what: 'kube-scheduler at 5,000 nodes (680 pods/s)', us: 1500, note: '~1.5 ms a pod' },
];

interface Row {
  case: string;
  nodes: number;
  ok: boolean;
  kernel: TimingSummary;
  twin: TimingSummary | null;
  /** Median twin time / median kernel time. */
  ratio: number | null;
}

const gang = (pods: number, gpu: number): GangRequest => ({ pods, gpu, cpu: 0, mem: 0, pool: 0, strategy: 'binpack', strict: false });

/**
 * Kernel calls per timed sample of a placement: the clock costs ~0.1 µs a reading here,
 * an eighth of a 1x8 placement, so a sample times PLACE_BATCH calls back to back and
 * reports their mean; min, median and max are over those samples.
 */
const PLACE_BATCH = 10;
/** Untimed calls before a placement cell's samples, so the JIT has compiled the path. */
const PLACE_WARMUP = 2_000;

function compare(name: string, nodes: number, kernel: Kernel, twin: Kernel, op: (k: Kernel) => { ok: boolean }, budgetMs: number, timeTwin = true, batch = 1): Row {
  const answer = op(kernel);
  const expected = op(twin);
  if (JSON.stringify(answer) !== JSON.stringify(expected)) throw new Error(`${name}: kernel and twin disagree`);
  const k = measure(() => op(kernel), batch > 1 ? { budgetMs, batch, warmup: PLACE_WARMUP } : { budgetMs });
  if (!timeTwin) return { case: name, nodes, ok: answer.ok, kernel: k, twin: null, ratio: null };
  // The twin is O(pods × nodes) per placement: in --quick, a few samples of it suffice for a ratio.
  // A twin call of a second or more (64x1 at 10,000 nodes) gets one sample in --quick: the answer check warmed it.
  const slow = quick && name.startsWith('place 64x');
  const t = measure(
    () => op(twin),
    quick ? (slow ? { warmup: 0, maxSamples: 1, minSamples: 1, budgetMs: 0 } : { budgetMs, maxSamples: 200, warmup: 1, minSamples: 3 }) : { budgetMs, maxSamples: 200 },
  );
  return { case: name, nodes, ok: answer.ok, kernel: k, twin: t, ratio: t.medianUs / k.medianUs };
}

function run(): { rows: Row[]; meta: Record<string, unknown> } {
  const rows: Row[] = [];
  const wasm = new WasmKernel();
  const twin = new ReferenceKernel();
  let victimsCluster = { jobs: 0, pods: 0 };

  rows.push({
    case: 'no-op JS→wasm round trip',
    nodes: 0,
    ok: true,
    kernel: measure(() => wasm.noop(), { batch: 10_000, maxSamples: 50, budgetMs: 500 }),
    twin: null,
    ratio: null,
  });

  // Warm the JIT on every shape first (the wasm tiers up on its own clock), so the first
  // size measured is not the slowest only because it came first.
  wasm.load(syntheticCluster({ nodes: 500, allocated: ALLOCATED, seed: 3 }));
  for (const [pods, gpu] of SHAPES) for (let i = 0; i < 10 * PLACE_WARMUP; i++) wasm.place(gang(pods, gpu));

  for (const nodes of SIZES) {
    const snapshot = syntheticCluster({ nodes, allocated: ALLOCATED, seed: 2 });
    wasm.load(snapshot);
    twin.load(snapshot);
    for (const [pods, gpu] of SHAPES) {
      const req = gang(pods, gpu);
      // The twin costs O(pods × nodes) per placement: in --quick only the one-pod shapes
      // and the headline 64x1 at 10,000 nodes time it (a few samples), so every figure prints.
      rows.push(compare(`place ${pods}x${gpu}`, nodes, wasm, twin, (k) => k.place(req), BUDGET_MS, !quick || pods === 1 || (pods === 64 && nodes === 10_000), PLACE_BATCH));
    }
    if (nodes === 10_000 && !quick) {
      victimsCluster = { jobs: snapshot.jobs.length, pods: snapshot.jobs.reduce((s, j) => s + j.pods.length, 0) };
      const all: Candidate[] = snapshot.jobs.map((_, job) => ({ job, constraintMask: 1 }));
      const cases: Array<[string, GangRequest, QuotaConstraint[]]> = [
        ['selectVictims 16x8, fits already', gang(16, 8), []],
        ['selectVictims 16x8, 128-GPU quota deficit', gang(16, 8), [{ resource: 0, deficit: 128 }]],
        ['selectVictims 500x8, frees 100 nodes', gang(500, 8), []],
      ];
      for (const [name, req, constraints] of cases) {
        rows.push(compare(name, nodes, wasm, twin, (k) => k.selectVictims(req, [{ standing: 'in-quota', candidates: all, constraints: constraints }]), 2 * BUDGET_MS));
      }
    }
  }
  return {
    rows,
    meta: {
      node: process.version,
      sizes: SIZES,
      allocated: ALLOCATED,
      gpusPerNode: 8,
      victimsCluster,
      wasmCalls: wasm.wasmCallCount(),
      anchors: ANCHORS,
    },
  };
}

function printTable(rows: Row[], meta: Record<string, unknown>): void {
  const head = ['nodes', 'case', 'ok', 'kernel median (min-max)', 'twin median (min-max)', 'twin/kernel'];
  const cell = (t: TimingSummary | null): string => (t ? `${formatUs(t.medianUs)} (${formatUs(t.minUs)}-${formatUs(t.maxUs)})` : '-');
  const body = rows.map((r) => [r.nodes ? r.nodes.toLocaleString('en-US') : '-', r.case, r.ok ? 'yes' : 'no', cell(r.kernel), cell(r.twin), r.ratio === null ? '-' : `${r.ratio.toFixed(1)}x`]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cols: string[]): string => cols.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(`B2 placement latency — 8-GPU nodes, ${ALLOCATED * 100}% of GPUs allocated, binpack; per call, node ${process.version}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
  const cluster = meta.victimsCluster as { jobs: number; pods: number };
  console.log(`\nselectVictims: all ${cluster.jobs.toLocaleString('en-US')} jobs (${cluster.pods.toLocaleString('en-US')} pods) are candidates.`);
  console.log('Anchors (BENCHMARKS.md B2, per placement):');
  for (const a of ANCHORS) console.log(`  ${a.what}: ${a.note ?? formatUs(a.us)}`);
}

const { rows, meta } = run();
if (json) console.log(JSON.stringify({ benchmark: 'B2 placement latency', ...meta, rows }, null, 2));
else printTable(rows, meta);
