/**
 * Differential property: the wasm kernel and the pure-TS twin give deep-equal answers to
 * place and selectVictims on random snapshots (invariants 4 and 8 ride along: victim
 * sets are minimal, pods stay in the request's pool). A failing case prints as JSON —
 * {"snapshot", "req", "candidates", "constraints"} — that can be pasted into a test
 * and loaded into either kernel; fast-check's report also gives the seed to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReferenceKernel } from '../../src/kernel/reference.js';
import { WasmKernel } from '../../src/kernel/wasm-kernel.js';
import type { Candidate, GangRequest, KernelJob, KernelSnapshot, QuotaConstraint } from '../../src/kernel/types.js';
import {
  PLENTY, allCandidates, gang, gpuRange, isMinimal, job, node, pod, snapshot,
} from '../unit/kernel/kernel-builders.js';

interface KernelCase {
  snapshot: KernelSnapshot;
  req: GangRequest;
  candidates: Candidate[];
  constraints: QuotaConstraint[];
}

/** Makes fast-check print a case as JSON a person can rerun. */
function printable(c: KernelCase): KernelCase {
  return Object.assign(c, { [fc.toStringMethod]: () => JSON.stringify(c) });
}

const nodeSpec = fc.record({
  gpus: fc.constantFrom(1, 2, 4, 8),
  /** Used GPUs: empty, full and random nodes alike (full ones make victims necessary). */
  used: fc.oneof(fc.constant(0), fc.constant(0xff), fc.nat(0xff), fc.nat(0xff).map((x) => x & (x >> 1)), fc.nat(0xff).map((x) => x | (x >> 1))),
  /** Bit i set: the i-th used GPU starts a new pod (so pods hold 1..8 GPUs, not always contiguous). */
  podBreaks: fc.nat(0xff),
  /** Owner of each pod: a job index modulo jobs + 1; the extra value = held by a non-candidate. */
  owners: fc.array(fc.nat(7), { minLength: 8, maxLength: 8 }),
  pool: fc.nat(2),
  cpuSteps: fc.option(fc.nat(16), { nil: null, freq: 3 }),
  memSteps: fc.option(fc.nat(16), { nil: null, freq: 3 }),
  podCpu: fc.constantFrom(0, 250, 500, 1000),
  podMem: fc.constantFrom(0, 512, 1024),
});

/** Narrow key ranges, so that ties reach the later criteria of the order often. */
const jobKeys = fc.record({
  rank: fc.nat(2),
  priority: fc.integer({ min: 1, max: 2 }),
  lostWork: fc.constantFrom(0, 0.5),
  gpus: fc.nat(1),
  startedAt: fc.nat(2),
  orderKey: fc.nat(),
});

const unit = [1, 500, 1024];

const caseArb = fc
  .record({
    pools: fc.integer({ min: 1, max: 3 }),
    nodes: fc.array(nodeSpec, { minLength: 1, maxLength: 10 }),
    jobs: fc.array(jobKeys, { minLength: 1, maxLength: 6 }),
    req: fc.record({
      pods: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 12 })),
      gpu: fc.constantFrom(1, 2, 3, 4, 8),
      cpu: fc.constantFrom(0, 0, 500, 1000),
      mem: fc.constantFrom(0, 0, 1024),
      /** Mostly a pool that exists; sometimes one that has no nodes. */
      pool: fc.oneof({ weight: 9, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.constant(3) }),
      strategy: fc.constantFrom('binpack' as const, 'spread' as const),
      strict: fc.boolean(),
    }),
    picked: fc.array(fc.record({ pick: fc.nat(), mask: fc.nat(7) }), { maxLength: 10 }),
    constraints: fc.array(fc.record({ resource: fc.nat(2), amount: fc.integer({ min: -3, max: 4 }) }), { maxLength: 2 }),
  })
  .map(({ pools, nodes, jobs, req, picked, constraints }) => {
    // Name order: a permutation, from the random keys (ties broken by position).
    const byKey = jobs.map((k, j) => ({ key: k.orderKey, j })).sort((a, b) => a.key - b.key || a.j - b.j);
    const order = new Array<number>(jobs.length);
    byKey.forEach(({ j }, rank) => (order[j] = rank));
    const podsOf: KernelJob['pods'][] = jobs.map(() => []);
    const kernelNodes = nodes.map((spec, n) => {
      const usedBits = gpuRange(0, spec.gpus).filter((g) => (spec.used >> g) & 1);
      let podIndex = -1;
      usedBits.forEach((g, i) => {
        if (i === 0 || (spec.podBreaks >> i) & 1) {
          podIndex++;
          const owner = spec.owners[podIndex]! % (jobs.length + 1);
          if (owner < jobs.length) podsOf[owner]!.push(pod(n, [], spec.podCpu, spec.podMem));
        }
        const owner = spec.owners[podIndex]! % (jobs.length + 1);
        if (owner < jobs.length) {
          const last = podsOf[owner]!.at(-1)!;
          last.mask = (last.mask | (1 << g)) >>> 0;
        }
      });
      return node({
        gpus: spec.gpus,
        used: usedBits,
        pool: spec.pool % pools,
        cpu: spec.cpuSteps === null ? PLENTY : spec.cpuSteps * 500,
        mem: spec.memSteps === null ? PLENTY : spec.memSteps * 1024,
      });
    });
    const snap: KernelSnapshot = {
      nodes: kernelNodes,
      jobs: jobs.map((k, j) => ({ ...job(podsOf[j]!, k), order: order[j]! })),
    };
    const seen = new Set<number>();
    const candidates = picked
      .map(({ pick, mask }) => ({ job: pick % jobs.length, constraintMask: mask }))
      .filter((c) => !seen.has(c.job) && seen.add(c.job));
    return printable({
      snapshot: snap,
      req: { ...req, pool: req.pool === 3 ? 3 : req.pool % pools },
      candidates,
      constraints: constraints.map(({ resource, amount }) => ({ resource, deficit: amount * unit[resource]! })),
    });
  });

/** Hand-picked cases run before the random ones, each for a boundary random runs rarely hit. */
const edgeCases: KernelCase[] = [
  // A single node: every choice is forced, so any difference is in the bit arithmetic.
  (() => {
    const snap = snapshot([node({ gpus: 2 })], [job([pod(0, [1])], { rank: 0 })]);
    return { snapshot: snap, req: gang(1, 2, { strict: true }), candidates: allCandidates(snap, 1), constraints: [{ resource: 0, deficit: 1 }] };
  })(),
  // A full cluster: nothing fits without victims, and every node must be freed whole.
  (() => {
    const snap = snapshot(
      [node(), node(), node({ gpus: 4 })],
      [job([pod(0, gpuRange(0, 4)), pod(1, gpuRange(0, 4))]), job([pod(0, gpuRange(4, 4))], { rank: 1 }), job([pod(1, gpuRange(4, 4)), pod(2, gpuRange(0, 4))], { rank: 0 })],
    );
    return { snapshot: snap, req: gang(2, 8, { strategy: 'spread' }), candidates: allCandidates(snap), constraints: [] };
  })(),
  // 8-GPU gangs across 8-GPU nodes with a mix of strict blocks and cpu limits.
  (() => {
    const snap = snapshot(
      [node({ cpu: 4000 }), node({ used: [3] }), node(), node({ pool: 1 })],
      [job([pod(0, gpuRange(0, 8), 2000)], { lostWork: 1 }), job([pod(2, [0, 1]), pod(2, [6])], { lostWork: 0.5 })],
    );
    return { snapshot: snap, req: gang(3, 8, { strict: true, cpu: 1000 }), candidates: allCandidates(snap, 1), constraints: [{ resource: 1, deficit: 1500 }] };
  })(),
].map(printable);

describe('kernel differential (wasm vs reference)', () => {
  it('gives deep-equal answers to place and selectVictims on random snapshots', () => {
    const wasm = new WasmKernel();
    const reference = new ReferenceKernel();
    expect(wasm.backend).toBe('wasm');
    const callsBefore = wasm.wasmCallCount();
    let cases = 0;

    fc.assert(
      fc.property(caseArb, (c) => {
        cases++;
        wasm.load(c.snapshot);
        reference.load(c.snapshot);
        const placed = wasm.place(c.req);
        expect(placed).toEqual(reference.place(c.req));
        expect(placed.pods.every((p) => c.snapshot.nodes[p.node]!.pool === c.req.pool)).toBe(true);

        const chosen = wasm.selectVictims(c.req, [{ standing: 'in-quota', candidates: c.candidates, constraints: c.constraints }]);
        expect(chosen).toEqual(reference.selectVictims(c.req, [{ standing: 'in-quota', candidates: c.candidates, constraints: c.constraints }]));
        if (chosen.ok) expect(isMinimal(c.snapshot, c.req, c.candidates, c.constraints, chosen.victims)).toBe(true);

        // The query restored the loaded state: asking again gives the same answer.
        expect(wasm.place(c.req)).toEqual(placed);
      }),
      { numRuns: 500, examples: edgeCases.map((c) => [c]) },
    );

    expect(wasm.wasmCallCount() - callsBefore).toBe(3 * cases);
  });
});
