/**
 * Differential property on large candidate lists: the wasm kernel and the pure-TS twin
 * give deep-equal answers to selectVictims when there are more deciding candidates than
 * the exact search takes (CRITERIA.EXACT_LIMIT), so the greedy's job order, its reprieve
 * and the second pass decide the set — what kernel-differential.test.ts's small cases,
 * answered by the exact search, rarely reach. Pins the wasm victim search's shortcuts
 * (assembly/victims.ts: sort keys instead of the criteria table per comparison, the
 * deficit check before the greedy, buckets left as loaded during the search) to the
 * twin's plain sort-and-scan; and each alternative's own answer (`{ alone: true }`) to
 * a query of that alternative alone. A failing case prints as JSON {"snapshot", "req",
 * "alternatives", "order"} that either kernel can load.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectAloneAnswers } from './expect-alone.js';
import { kernelTwins } from '../helpers/differential.js';
import type { GangRequest, KernelJob, KernelSnapshot, VictimAlternative } from '../../src/kernel/types.js';
import { CRITERIA, type VictimOrder } from '../../src/kernel/victim-order.js';
import { gpuRange, job, node, pod } from '../unit/kernel/kernel-builders.js';

interface KernelCase {
  snapshot: KernelSnapshot;
  req: GangRequest;
  alternatives: VictimAlternative[];
  order: VictimOrder;
}

/** Keys from narrow ranges, so that ties reach the later criteria and the name order. */
const keysArb = fc.record({
  rank: fc.nat(2),
  priority: fc.integer({ min: 1, max: 3 }),
  lostWork: fc.constantFrom(0, 0.25, 0.5, 2),
  startedAt: fc.nat(3),
});

const caseArb = fc
  .record({
    /** Per node: its GPUs split into pods of 1 or 2 GPUs (bit i set: a pod starts at GPU i), and how many GPUs stay free. */
    nodes: fc.array(fc.record({ breaks: fc.nat(0xff), free: fc.constantFrom(0, 0, 0, 1, 2) }), { minLength: 6, maxLength: 20 }),
    keys: fc.array(keysArb, { minLength: 160, maxLength: 160 }),
    req: fc.record({ pods: fc.integer({ min: 1, max: 3 }), gpu: fc.constantFrom(2, 4, 8), strategy: fc.constantFrom('binpack' as const, 'spread' as const) }),
    /** Per alternative: candidates kept (1 in `keep + 1` dropped), their masks, and a GPU deficit. */
    alternatives: fc.array(fc.record({ borrowing: fc.boolean(), keep: fc.integer({ min: 3, max: 12 }), deficit: fc.integer({ min: -2, max: 12 }) }), { minLength: 1, maxLength: 2 }),
    order: fc.shuffledSubarray([1, 2, 3, 4, 5] as const, { minLength: 5, maxLength: 5 }),
  })
  .map(({ nodes, keys, req, alternatives, order }) => {
    const jobs: KernelJob[] = [];
    nodes.forEach((spec, n) => {
      let start = 0;
      for (let g = 1; g <= 8 - spec.free; g++) {
        // A pod ends where the next one starts, at a break, after 2 GPUs, or at the last used GPU.
        if (g === 8 - spec.free || g - start === 2 || (spec.breaks >> g) & 1) {
          const k = keys[jobs.length % keys.length]!;
          jobs.push(job([pod(n, gpuRange(start, g - start))], { ...k }));
          start = g;
        }
      }
    });
    const snapshot: KernelSnapshot = {
      nodes: nodes.map((spec) => node({ used: gpuRange(0, 8 - spec.free) })),
      // Name order: reversed positions, so it is not the index order.
      jobs: jobs.map((j, i) => ({ ...j, order: jobs.length - i })),
    };
    const c: KernelCase = {
      snapshot,
      req: { pods: req.pods, gpu: req.gpu, cpu: 0, mem: 0, pool: 0, strategy: req.strategy, strict: false },
      alternatives: alternatives.map((a, i) => ({
        standing: a.borrowing ? ('borrowing' as const) : ('in-quota' as const),
        candidates: jobs.map((_, j) => ({ job: j, constraintMask: (j + i) % 3 === 0 ? 0 : 1 })).filter((_, j) => (j + i) % (a.keep + 1) !== 0),
        constraints: [{ resource: 0, deficit: a.deficit }],
      })),
      order,
    };
    return Object.assign(c, { [fc.toStringMethod]: () => JSON.stringify(c) });
  });

describe('kernel differential on large candidate lists (wasm vs reference)', () => {
  it('gives deep-equal victim sets when the greedy, the reprieve and the second pass decide', () => {
    const k = kernelTwins();
    let cases = 0;
    /** Answers the heuristic gave (more deciding candidates than the exact search takes, or its budget reached). */
    let heuristic = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        cases++;
        k.load(c.snapshot);
        const chosen = k.ask((x) => x.selectVictims(c.req, c.alternatives, c.order), c.alternatives.length, 'selectVictims');
        if (chosen.ok && !chosen.exact) heuristic++;
        // Each alternative's own answer from the same call (whatif.ts explains the losing way with it).
        expectAloneAnswers(k, c, chosen);
        // The search left the loaded state as it was, buckets included: placing gives the twin's answer.
        k.ask((x) => x.place(c.req), 1, 'place after the search');
      }),
      { numRuns: Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 60) },
    );
    // The wasm answered every query itself (the harness checked its count per query).
    k.diff.expectCovered({ compared: cases * 2 });
    // Not vacuous: many cases went past the exact search's limit.
    expect(CRITERIA.EXACT_LIMIT).toBeLessThan(100);
    expect(heuristic).toBeGreaterThanOrEqual(Math.ceil(cases / 4));
  });
});
