/**
 * Where Kueue's fair sharing (at ff69552) lets a victim take its preemptor back: SEMANTICS
 * invariant 13 says this never happens, and Kueue's fair_sharing page proves it for one
 * victim under stated assumptions; outside them the algorithm does loop. Quotient follows
 * Kueue, so these answers are Kueue's, pinned here so that the limits of invariant 13 stay
 * known (test/property/fair-sharing.test.ts checks the invariant within the assumptions).
 * Each case: W preempts U; then U, resubmitted at once, preempts W.
 */
import { describe, expect, it } from 'vitest';
import { fairPreemption } from '../../../../src/rules/kueue/fair-preemption.js';
import type { FairPreemptionStrategy } from '../../../../src/rules/kueue/kueue-state.js';
import { buildState, workload, type NodeSpec, type WorkloadSpec } from './fair-cases/build-state.js';

interface LoopCase {
  name: string;
  nodes: NodeSpec[];
  strategies: FairPreemptionStrategy[];
  admitted: WorkloadSpec[];
  incoming: WorkloadSpec;
  /** W's victims, and which of them is resubmitted. */
  victims: string[];
  resubmitted: string;
  /** How the resubmitted victim takes W back. */
  backReason: 'InCohortFairSharing' | 'InCohortReclamation';
}

const GPU = 'default/gpu';

const CASES: LoopCase[] = [
  {
    // Kueue's corollary ("none of B_1..B_k may preempt A") fails when several victims come
    // from one queue: q2 (weight 2, nominal 0) loses w2 (LessThanOrEqualToFinalShare: q1 with
    // W at 2000/6/3 = 111 against q2 without w2 at 2000/6/2 = 167) and then w1
    // (LessThanInitialShare: 111 < 167). With w2 alone back, q2 is at 1000/6/2 = 83 < 111,
    // so w2 takes W back by LessThanInitialShare.
    name: 'several victims from one queue',
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'lender', parent: 'all', quota: { [GPU]: 2 }, preemption: { reclaimWithinCohort: 'Any' } },
      { name: 'q1', parent: 'all', weight: 3, quota: { [GPU]: 4 }, preemption: { reclaimWithinCohort: 'Any' } },
      { name: 'q2', parent: 'all', weight: 2, quota: { [GPU]: 0 }, preemption: { reclaimWithinCohort: 'Any' } },
    ],
    strategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'],
    admitted: [
      { name: 'w0', cq: 'q1', usage: { [GPU]: 3 }, admittedAt: 0 },
      { name: 'w1', cq: 'q2', usage: { [GPU]: 2 }, admittedAt: 1 },
      { name: 'w2', cq: 'q2', usage: { [GPU]: 1 }, admittedAt: 2 },
    ],
    incoming: { name: 'W', cq: 'q1', usage: { [GPU]: 3 } },
    victims: ['w1', 'w2'],
    resubmitted: 'w2',
    backReason: 'InCohortFairSharing',
  },
  {
    // Fill-back undoes a premise: W's own queue gives w0 first (InClusterQueue), which brings
    // q1 to share 0, so q0's w1 passes LessThanOrEqualToFinalShare (0 <= 0); fill-back then
    // returns w0, and q1 with W and w0 borrows cpu at weight 0 (infinite share). w1 back in q0
    // (125) is below q1 without W (still infinite) and takes W.
    name: 'fill-back returns a workload the comparison assumed gone',
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'q0', parent: 'all', weight: 2, quota: { 'default/gpu': 1, 'default/cpu': 2 }, preemption: { reclaimWithinCohort: 'Any' } },
      {
        name: 'q1',
        parent: 'all',
        weight: 0,
        quota: { 'default/gpu': 3, 'default/cpu': { nominal: 0, borrowingLimit: 1, lendingLimit: 0 } },
        preemption: { reclaimWithinCohort: 'Any', withinClusterQueue: 'LowerOrNewerEqualPriority' },
      },
    ],
    strategies: ['LessThanOrEqualToFinalShare'],
    admitted: [
      { name: 'w0', cq: 'q1', usage: { 'default/gpu': 1, 'default/cpu': 1 }, admittedAt: 0 },
      { name: 'w1', cq: 'q0', usage: { 'default/gpu': 2 }, admittedAt: 1 },
    ],
    incoming: { name: 'W', cq: 'q1', usage: { 'default/gpu': 3 }, priority: 1 },
    victims: ['w1'],
    resubmitted: 'w1',
    backReason: 'InCohortFairSharing',
  },
  {
    // The share sums gpu over flavors: q0 borrows f1 gpu, so taking its f0 gpu workloads
    // leaves its share where it was and W (weight 0, like q0) keeps passing
    // LessThanOrEqualToFinalShare until q0 is below its f0 nominal. w5 back keeps q0 within
    // nominal on f0, so it preempts W regardless of shares (Kueue's preempt-within-nominal).
    name: 'shares summed over flavors, then preempt-within-nominal',
    nodes: [
      { name: 'all', kind: 'Cohort' },
      {
        name: 'q0',
        parent: 'all',
        weight: 0,
        quota: { 'f0/gpu': 6, 'f1/gpu': { nominal: 3, lendingLimit: 0 } },
        preemption: { reclaimWithinCohort: 'LowerPriority', withinClusterQueue: 'LowerPriority' },
      },
      { name: 'q1', parent: 'all', weight: 0, quota: { 'f0/gpu': 1, 'f1/gpu': { nominal: 2, borrowingLimit: 0 } }, preemption: { reclaimWithinCohort: 'Any' } },
    ],
    strategies: ['LessThanOrEqualToFinalShare'],
    admitted: [
      { name: 'w0', cq: 'q0', usage: { 'f1/gpu': 1, 'f0/gpu': 1 }, admittedAt: 0 },
      { name: 'w1', cq: 'q0', usage: { 'f1/gpu': 4, 'f0/gpu': 1 }, admittedAt: 1 },
      { name: 'w2', cq: 'q0', usage: { 'f0/gpu': 1 }, admittedAt: 2 },
      { name: 'w3', cq: 'q0', usage: { 'f0/gpu': 1 }, admittedAt: 3 },
      { name: 'w4', cq: 'q0', usage: { 'f0/gpu': 2 }, priority: 1, admittedAt: 4 },
      { name: 'w5', cq: 'q0', usage: { 'f0/gpu': 1 }, priority: 1, admittedAt: 5 },
    ],
    incoming: { name: 'W', cq: 'q1', usage: { 'f0/gpu': 3 } },
    victims: ['w2', 'w3', 'w5'],
    resubmitted: 'w5',
    backReason: 'InCohortReclamation',
  },
];

describe('where Kueue lets a victim take its preemptor back (the limits of invariant 13)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const state = buildState(c.nodes, c.admitted, c.strategies);
    const w = workload(c.incoming);
    const first = fairPreemption(state, { workload: w });
    expect(first.targets.map((t) => t.workload).sort()).toEqual(c.victims);
    const gone = new Set(c.victims);
    const after = buildState(c.nodes, [...c.admitted.filter((x) => !gone.has(x.name)), { ...c.incoming, admittedAt: 100 }], c.strategies);
    const u = workload(c.admitted.find((x) => x.name === c.resubmitted)!);
    const back = fairPreemption(after, { workload: u });
    expect(back.targets.find((t) => t.workload === w.name)?.reason).toBe(c.backReason);
  });
});
