/**
 * The wasm kernel caches each node's fragmentation between queries, and memoizes each
 * node's rank for the workload's shapes (assembly/fragmentation.ts); every change of a
 * node drops its entry and outdates its memo (state.ts `setNodeMask`). This property interleaves every path that changes a node — placements
 * by fragmentation and by binpack (changed, then undone by the query's undo log), victim
 * selection's freeing and re-occupying, addJob, removeJob — and a change of workload,
 * and after each step holds every cached score equal to the score computed afresh and
 * to the definition (src/kernel/fragmentation.ts) over the state this test tracks
 * itself; answers are compared with the twin's at each step too (most requests ask a
 * workload shape, so they read memoized ranks).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kernelTwins } from '../helpers/differential.js';
import { MILLI, kernelWorkload, nodeFragmentation } from '../../src/kernel/fragmentation.js';
import type { GangRequest, KernelJob, KernelNode, KernelPod, WorkloadShape } from '../../src/kernel/types.js';
import { PLENTY, node } from '../unit/kernel/kernel-builders.js';

const SHARES = [100, 250, 460, 500, 810] as const;

const shapeArb = fc
  .record({
    kind: fc.constantFrom('whole', 'share', 'cpu'),
    gpu: fc.constantFrom(1, 2, 4, 8),
    milli: fc.constantFrom(...SHARES),
    cpu: fc.constantFrom(0, 500, 2000),
    mem: fc.constantFrom(0, 0, 1000, 2500, 4000),
    models: fc.constantFrom(0, 0, 1, 2),
    weight: fc.constantFrom(1, 3, 0.5),
  })
  .map((s): WorkloadShape => {
    if (s.kind === 'cpu') return { gpu: 0, cpu: s.cpu || 500, weight: s.weight };
    if (s.kind === 'share') return { gpu: 1, milli: s.milli, cpu: s.cpu, mem: s.mem, models: s.models, weight: s.weight };
    return { gpu: s.gpu, cpu: s.cpu, mem: s.mem, models: s.models, weight: s.weight };
  });

const reqArb: fc.Arbitrary<ReqFields> = fc.record({
  pods: fc.integer({ min: 1, max: 3 }),
  milli: fc.constantFrom(0, 0, 250, 460, 810),
  gpu: fc.constantFrom(1, 1, 2, 4),
  cpu: fc.constantFrom(0, 0, 500),
  mem: fc.constantFrom(0, 0, 500, 1000, 2000),
  second: fc.boolean(),
  typical: fc.option(fc.nat(5), { nil: null, freq: 2 }),
});

/** The generated request fields (reqArb). */
interface ReqFields {
  pods: number;
  milli: number;
  gpu: number;
  cpu: number;
  /** Memory per pod: asked even with a typical shape's gpu/milli/cpu, so one memo column sees pods of several memory asks. */
  mem: number;
  second: boolean;
  /** Ask for the shape of this entry of the workload (mod its length), as most pods do: the wasm memoizes ranks for those. */
  typical: number | null;
}

const opArb = fc.oneof(
  fc.record({ kind: fc.constant('place' as const), req: reqArb, keep: fc.boolean() }),
  fc.record({ kind: fc.constant('binpack' as const), req: reqArb }),
  fc.record({ kind: fc.constant('victims' as const), req: reqArb, picks: fc.array(fc.nat(7), { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('sweep' as const), req: reqArb }),
);

/**
 * Memory asks a `sweep` step places one request's shape with, in turn, on an unchanged
 * state: rising, then falling, so the memory left after the pod crosses the workload's
 * memory asks both ways (a slot filled at one level must not answer for a lower or a higher one).
 */
const SWEEP_MEMS = [0, 500, 1000, 2000, 3000, 5000, 8000, 5000, 3000, 2000, 1000, 500, 0] as const;

const caseArb = fc.record({
  nodes: fc.array(
    fc.record({ gpus: fc.constantFrom(1, 2, 4, 8), model: fc.nat(2), cpuSteps: fc.option(fc.nat(10), { nil: null, freq: 3 }), memSteps: fc.option(fc.nat(10), { nil: null, freq: 3 }) }),
    { minLength: 1, maxLength: 6 },
  ),
  first: fc.array(shapeArb, { minLength: 1, maxLength: 6 }),
  second: fc.array(shapeArb, { minLength: 1, maxLength: 6 }),
  ops: fc.array(opArb, { minLength: 4, maxLength: 24 }),
});

/** Milli left per GPU, free cpu and free memory of node `n`, from the loaded node and the live jobs' pods (the test's own reading). */
function stateOf(base: KernelNode, n: number, live: ReadonlyMap<number, KernelJob>): { left: number[]; freeCpu: number; freeMem: number } {
  const left = new Array<number>(base.gpus).fill(MILLI);
  let freeCpu = base.freeCpu;
  let freeMem = base.freeMem;
  for (const job of live.values())
    for (const p of job.pods) {
      if (p.node !== n) continue;
      freeCpu -= p.cpu;
      freeMem -= p.mem;
      for (let g = 0; g < base.gpus; g++) if (Math.floor(p.mask / 2 ** g) % 2 === 1) left[g] = p.milli ? left[g]! - p.milli : 0;
    }
  return { left, freeCpu, freeMem };
}

describe('fragmentation cache (wasm)', () => {
  it('holds every cached node score equal to a fresh one and to the definition, through every kind of node change', () => {
    let checked = 0;
    let placedKept = 0;
    let removed = 0;
    let victimCalls = 0;
    let workloadSwitches = 0;
    let typicalAsked = 0;
    let sweeps = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const k = kernelTwins();
        const wasm = k.wasm;
        const nodes = c.nodes.map((n) => node({ gpus: n.gpus, model: n.model, cpu: n.cpuSteps === null ? PLENTY : n.cpuSteps * 500, mem: n.memSteps === null ? PLENTY : n.memSteps * 1000 }));
        k.load({ nodes, jobs: [] });
        const live = new Map<number, KernelJob>();
        let workload: readonly WorkloadShape[] | null = null;
        let order = 0;
        const requestOf = (q: ReqFields, strategy: GangRequest['strategy']): GangRequest => {
          const shapes = q.second ? c.second : c.first;
          const typical = q.typical === null ? undefined : shapes[q.typical % shapes.length];
          const shape = typical && typical.gpu > 0 ? { gpu: typical.gpu, milli: typical.milli ?? 0, cpu: typical.cpu } : q;
          const share = shape.milli > 0;
          if (typical && typical.gpu > 0) typicalAsked++;
          return {
            pods: q.pods,
            gpu: share ? 1 : shape.gpu,
            cpu: shape.cpu,
            mem: q.mem,
            pool: 0,
            strategy,
            strict: false,
            workload: shapes,
            ...(share ? { milli: shape.milli } : {}),
          };
        };
        const check = (): void => {
          if (workload === null) return;
          const weights = kernelWorkload(workload);
          const cached = wasm.fragmentationScores(true);
          const fresh = wasm.fragmentationScores(false);
          nodes.forEach((base, n) => {
            const { left, freeCpu, freeMem } = stateOf(base, n, live);
            const defined = nodeFragmentation({ left, freeCpu, freeMem, model: base.model ?? 0 }, weights);
            expect(fresh[n]).toBe(defined);
            if (cached[n]! >= 0) {
              expect(cached[n]).toBe(defined);
              checked++;
            }
          });
        };
        for (const op of c.ops) {
          if (op.kind === 'remove') {
            const ids = [...live.keys()];
            if (ids.length > 0) {
              const id = ids[op.pick % ids.length]!;
              k.change((x) => x.removeJob(id), 'removeJob');
              live.delete(id);
              removed++;
            }
          } else if (op.kind === 'binpack') {
            const req = requestOf(op.req, 'binpack');
            k.ask((x) => x.place(req), 1, 'place by binpack');
          } else {
            const req = requestOf(op.req, 'fragmentation');
            if (req.workload !== workload) workloadSwitches++;
            workload = req.workload!;
            if (op.kind === 'sweep') {
              // The same shape asking other memory, nodes unchanged between asks: the
              // memo's slots were filled for another memory left after the pod.
              for (const mem of SWEEP_MEMS) {
                const again = Object.assign({}, req, { mem });
                k.ask((x) => x.place(again), 1, 'place, another memory ask');
              }
              sweeps++;
            } else if (op.kind === 'victims') {
              const candidates = [...new Set(op.picks)].filter((j) => live.has(j)).map((job) => ({ job, constraintMask: 1 }));
              const alternatives = [{ standing: 'in-quota' as const, candidates, constraints: [] }];
              k.ask((x) => x.selectVictims(req, alternatives), 1, 'selectVictims');
              victimCalls++;
            } else {
              const got = k.ask((x) => x.place(req), 1, 'place by fragmentation');
              if (got.ok && op.keep) {
                const pods: KernelPod[] = got.pods.map((p) => ({ node: p.node, mask: p.mask, cpu: req.cpu, mem: req.mem, ...(req.milli ? { milli: req.milli } : {}) }));
                const job: KernelJob = { pods, rank: order % 3, priority: 1, lostWork: 0, gpus: pods.length * (req.milli ?? req.gpu * MILLI), startedAt: order, order: order++ };
                const id = k.change((x) => x.addJob(job), 'addJob');
                live.set(id, job);
                placedKept++;
              }
            }
          }
          check();
        }
      }),
      { numRuns: Number(process.env.FRAGMENTATION_RUNS ?? 150) },
    );
    // Not vacuous: cached scores were read back after every kind of change.
    expect(checked).toBeGreaterThan(500);
    expect(placedKept).toBeGreaterThan(50);
    expect(removed).toBeGreaterThan(20);
    expect(victimCalls).toBeGreaterThan(50);
    expect(workloadSwitches).toBeGreaterThan(150);
    expect(typicalAsked).toBeGreaterThan(300);
    expect(sweeps).toBeGreaterThan(50);
  });
});
