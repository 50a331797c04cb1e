/**
 * Differential property: the wasm kernel and the pure-TS twin give deep-equal answers to
 * place and selectVictims on random snapshots, with one or two alternatives (standings)
 * and a random victim order; and both are judged by the independent oracle
 * (verify/optimal-victims.ts): a set the kernel calls exact is the optimum over every
 * alternative, any set is minimal (invariant 4), pods stay in the request's pool
 * (invariant 8). A failing case prints as JSON — {"snapshot", "req", "alternatives",
 * "order"} — that can be pasted into a test and loaded into either kernel; fast-check's
 * report also gives the seed to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectAloneAnswers } from './expect-alone.js';
import { kernelTwins } from '../helpers/differential.js';
import type { GangRequest, KernelJob, KernelSnapshot, VictimAlternative } from '../../src/kernel/types.js';
import type { VictimOrder } from '../../src/kernel/victim-order.js';
import { isMinimalSet, optimalVictims, oracleCompare, oracleCost } from '../../src/verify/optimal-victims.js';
import { PLENTY, alone, allCandidates, gang, gpuRange, job, node, pod, snapshot } from '../unit/kernel/kernel-builders.js';

interface KernelCase {
  snapshot: KernelSnapshot;
  req: GangRequest;
  alternatives: VictimAlternative[];
  order: VictimOrder;
}

/** Makes fast-check print a case as JSON a person can rerun. */
function printable(c: KernelCase): KernelCase {
  return Object.assign(c, { [fc.toStringMethod]: () => JSON.stringify(c) });
}

const nodeSpec = fc.record({
  gpus: fc.constantFrom(1, 2, 4, 8),
  /** Used GPUs: empty, full and random nodes alike (full ones make victims necessary). */
  used: fc.oneof(
    fc.constant(0),
    fc.constant(0xff),
    fc.nat(0xff),
    fc.nat(0xff).map((x) => x & (x >> 1)),
    fc.nat(0xff).map((x) => x | (x >> 1)),
  ),
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
    alternatives: fc.array(
      fc.record({
        borrowing: fc.boolean(),
        picked: fc.array(fc.record({ pick: fc.nat(), mask: fc.nat(7) }), { maxLength: 10 }),
        constraints: fc.array(fc.record({ resource: fc.nat(2), amount: fc.integer({ min: -3, max: 4 }) }), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    order: fc.shuffledSubarray([1, 2, 3, 4, 5] as const, { minLength: 5, maxLength: 5 }),
  })
  .map(({ pools, nodes, jobs, req, alternatives, order: victimOrder }) => {
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
    return printable({
      snapshot: snap,
      req: { ...req, pool: req.pool === 3 ? 3 : req.pool % pools },
      alternatives: alternatives.map(({ borrowing, picked, constraints }) => {
        const seen = new Set<number>();
        const candidates = picked.map(({ pick, mask }) => ({ job: pick % jobs.length, constraintMask: mask })).filter((c) => !seen.has(c.job) && seen.add(c.job));
        return {
          standing: borrowing ? ('borrowing' as const) : ('in-quota' as const),
          candidates,
          constraints: constraints.map(({ resource, amount }) => ({ resource, deficit: amount * unit[resource]! })),
        };
      }),
      order: victimOrder,
    });
  });

/** Hand-picked cases run before the random ones, each for a boundary random runs rarely hit. */
const edgeCases: KernelCase[] = [
  // A single node: every choice is forced, so any difference is in the bit arithmetic.
  (() => {
    const snap = snapshot([node({ gpus: 2 })], [job([pod(0, [1])], { rank: 0 })]);
    return { snapshot: snap, req: gang(1, 2, { strict: true }), alternatives: alone(allCandidates(snap, 1), [{ resource: 0, deficit: 1 }]), order: [1, 2, 3, 4, 5] as VictimOrder };
  })(),
  // A full cluster: nothing fits without victims, and every node must be freed whole.
  (() => {
    const snap = snapshot(
      [node(), node(), node({ gpus: 4 })],
      [job([pod(0, gpuRange(0, 4)), pod(1, gpuRange(0, 4))]), job([pod(0, gpuRange(4, 4))], { rank: 1 }), job([pod(1, gpuRange(4, 4)), pod(2, gpuRange(0, 4))], { rank: 0 })],
    );
    return { snapshot: snap, req: gang(2, 8, { strategy: 'spread' }), alternatives: alone(allCandidates(snap)), order: [4, 3, 2, 1, 5] as VictimOrder };
  })(),
  // 8-GPU gangs across 8-GPU nodes with a mix of strict blocks and cpu limits.
  (() => {
    const snap = snapshot(
      [node({ cpu: 4000 }), node({ used: [3] }), node(), node({ pool: 1 })],
      [job([pod(0, gpuRange(0, 8), 2000)], { lostWork: 1 }), job([pod(2, [0, 1]), pod(2, [6])], { lostWork: 0.5 })],
    );
    return { snapshot: snap, req: gang(3, 8, { strict: true, cpu: 1000 }), alternatives: alone(allCandidates(snap, 1), [{ resource: 1, deficit: 1500 }]), order: [2, 1, 3, 4, 5] as VictimOrder };
  })(),
].map(printable);

describe('kernel differential (wasm vs reference)', () => {
  it('gives deep-equal answers to place and selectVictims on random snapshots, each judged by the oracle', () => {
    const k = kernelTwins();
    let cases = 0;
    /** Cases where victims were needed and more than one set was possible: the ones that test the order. */
    let withChoice = 0;

    fc.assert(
      fc.property(caseArb, (c) => {
        cases++;
        k.load(c.snapshot);
        // The harness holds each answer equal to the twin's and sees the wasm count each query.
        const placed = k.ask((x) => x.place(c.req), 1, 'place');
        expect(placed.pods.every((p) => c.snapshot.nodes[p.node]!.pool === c.req.pool)).toBe(true);

        const chosen = k.ask((x) => x.selectVictims(c.req, c.alternatives, c.order), c.alternatives.length, 'selectVictims');
        // Each alternative's own answer from the same call (whatif.ts explains the losing way with it).
        expectAloneAnswers(k, c, chosen);
        const best = optimalVictims(c.snapshot, c.req, c.alternatives, c.order);
        expect(chosen.ok).toBe(best !== undefined);
        if (chosen.ok && best) {
          const alt = c.alternatives[chosen.alternative]!;
          const victims = [...chosen.victims].sort((a, b) => a - b);
          expect(isMinimalSet(c.snapshot, c.req, alt, victims)).toBe(true);
          const cost = oracleCost(c.snapshot, victims);
          if (chosen.exact) {
            expect({ victims, standing: alt.standing }).toEqual({ victims: best.jobs, standing: c.alternatives[best.alternative]!.standing });
          } else {
            expect(oracleCompare(c.snapshot, { jobs: victims, cost }, best, c.order)).toBeGreaterThanOrEqual(0);
          }
          if (victims.length > 0 && c.alternatives.some((a) => a.candidates.length > victims.length)) withChoice++;
        }

        // The query restored the loaded state: asking again gives the same answer.
        expect(k.ask((x) => x.place(c.req), 1, 'place again')).toEqual(placed);
      }),
      { numRuns: 500, examples: edgeCases.map((c) => [c]) },
    );

    // Every case compared place twice and selectVictims, each answered by the wasm itself.
    k.diff.expectCovered({ compared: cases * 3 });
    // Not vacuous: a share of the cases had a real choice of victims to make. The seed is
    // random: measured 24-49 of 500 runs, so the floor (10 of 500) holds on every seed seen
    // and still fails if the generator stops producing choices (it did at 1 in 20: 24 < 25).
    expect(withChoice).toBeGreaterThanOrEqual(Math.ceil(cases / 50));
  });
});
