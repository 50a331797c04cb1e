/**
 * Kueue's TestFairPreemptions (pkg/scheduler/preemption/preemption_fair_test.go at
 * ff69552), as data: every case, by its Kueue name. cpu in millicores ("0.5" cpu is 500).
 * Kueue's implicit cohorts (a ClusterQueue naming a cohort no Cohort object defines) are
 * Cohorts with no quota here. Kueue reserves every admitted workload at one instant and
 * sets each UID to the name, so candidates tie-break by name, as here.
 *
 * The incoming workload's flavor-resources needing preemption are the ones it requests
 * (Kueue's cases assign its one resource with mode Preempt). In "can reclaim from queue
 * using less..." Kueue's incoming workload carries a reservation in "a" but is queued to
 * "c" (targetCQ), which is what counts; here it is simply c's.
 *
 * Left out: none of TestFairPreemptions. TestFairPreemptionSkipsUnsatisfiableTournament
 * counts log lines of an optimisation (no target either way); its outcome is the case
 * "zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero
 * weight" below, so it is not translated separately.
 */
import type { FairPreemptionStrategy, KueuePreemptionPolicy, KueuePreemptionReason } from '../../../../../src/rules/kueue/kueue-state.js';
import type { NodeSpec, WorkloadSpec } from './build-state.js';

export interface FairCase {
  name: string;
  nodes: NodeSpec[];
  /** Kueue's default when absent: both, LessThanOrEqualToFinalShare first. */
  strategies?: FairPreemptionStrategy[];
  admitted: WorkloadSpec[];
  incoming: WorkloadSpec;
  want: Array<[workload: string, reason: KueuePreemptionReason]>;
}

const CPU = 'default/cpu';
const FULL: Partial<KueuePreemptionPolicy> = {
  withinClusterQueue: 'LowerPriority',
  reclaimWithinCohort: 'Any',
  borrowWithinCohort: { policy: 'LowerPriority', maxPriorityThreshold: -3 },
};
const LOWER_ANY: Partial<KueuePreemptionPolicy> = { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any' };
const RECLAIM_ANY: Partial<KueuePreemptionPolicy> = { reclaimWithinCohort: 'Any' };

/** a, b, c (3 cpu each, full preemption) and preemptible (0 cpu, never preempts) in cohort "all". */
const BASE: NodeSpec[] = [
  { name: 'all', kind: 'Cohort' },
  { name: 'a', parent: 'all', quota: { [CPU]: 3000 }, preemption: FULL },
  { name: 'b', parent: 'all', quota: { [CPU]: 3000 }, preemption: FULL },
  { name: 'c', parent: 'all', quota: { [CPU]: 3000 }, preemption: FULL },
  { name: 'preemptible', parent: 'all', quota: { [CPU]: 0 } },
];

/** A workload of `cpu` millicores on flavor "default" (or `flavor`). */
function wl(name: string, cq: string, cpu = 1000, more: Partial<WorkloadSpec> & { flavor?: string } = {}): WorkloadSpec {
  const { flavor, ...rest } = more;
  return { name, cq, usage: { [`${flavor ?? 'default'}/cpu`]: cpu }, ...rest };
}

/** Unit workloads named prefix1..prefixN in cq. */
function units(prefix: string, cq: string, n: number, from = 1): WorkloadSpec[] {
  return Array.from({ length: n }, (_, i) => wl(`${prefix}${i + from}`, cq));
}

const P = 'TestFairPreemptions/';

export const TEST_FAIR_PREEMPTIONS: FairCase[] = [
  {
    name: `${P}reclaim nominal from user using the most`,
    nodes: BASE,
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 5), wl('c1', 'c')],
    incoming: wl('c_incoming', 'c'),
    want: [['b1', 'InCohortReclamation']],
  },
  {
    name: `${P}can reclaim from queue using less, if taking the latest workload from user using the most isn't enough`,
    nodes: BASE,
    admitted: [wl('a1', 'a', 3000), wl('a2', 'a', 1000), wl('b1', 'b', 2000), wl('b2', 'b', 3000)],
    incoming: wl('c_incoming', 'c', 3000),
    want: [['a1', 'InCohortReclamation']],
  },
  {
    name: `${P}reclaim borrowable quota from user using the most`,
    nodes: BASE,
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 5), wl('c1', 'c')],
    incoming: wl('a_incoming', 'a'),
    want: [['b1', 'InCohortFairSharing']],
  },
  {
    name: `${P}preempt one from each CQ borrowing`,
    nodes: BASE,
    admitted: [wl('a1', 'a', 500), wl('a2', 'a', 500), wl('a3', 'a', 3000), wl('b1', 'b', 500), wl('b2', 'b', 500), wl('b3', 'b', 3000)],
    incoming: wl('c_incoming', 'c', 2000),
    want: [
      ['a1', 'InCohortReclamation'],
      ['b1', 'InCohortReclamation'],
    ],
  },
  {
    name: `${P}can't preempt when everyone under nominal`,
    nodes: BASE,
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 3), ...units('c', 'c', 3)],
    incoming: wl('c_incoming', 'c'),
    want: [],
  },
  {
    name: `${P}can't preempt when it would switch the imbalance`,
    nodes: BASE,
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 5)],
    incoming: wl('a_incoming', 'a', 2000),
    want: [],
  },
  {
    name: `${P}can preempt lower priority workloads from same CQ`,
    nodes: BASE,
    admitted: [wl('a1_low', 'a', 1000, { priority: -1 }), wl('a2_low', 'a', 1000, { priority: -1 }), wl('a3', 'a'), wl('a4', 'a'), ...units('b', 'b', 5)],
    incoming: wl('a_incoming', 'a', 2000),
    want: [
      ['a1_low', 'InClusterQueue'],
      ['a2_low', 'InClusterQueue'],
    ],
  },
  {
    name: `${P}can preempt a combination of same CQ and highest user`,
    nodes: BASE,
    admitted: [wl('a_low', 'a', 1000, { priority: -1 }), wl('a2', 'a'), wl('a3', 'a'), ...units('b', 'b', 6)],
    incoming: wl('a_incoming', 'a', 2000),
    want: [
      ['a_low', 'InClusterQueue'],
      ['b1', 'InCohortFairSharing'],
    ],
  },
  {
    name: `${P}preempt huge workload if there is no other option, as long as the target CQ gets a lower share`,
    nodes: BASE,
    admitted: [wl('b1', 'b', 9000)],
    incoming: wl('a_incoming', 'a', 2000),
    want: [['b1', 'InCohortReclamation']],
  },
  {
    name: `${P}can't preempt huge workload if the incoming is also huge`,
    nodes: BASE,
    admitted: [wl('a1', 'a', 2000), wl('b1', 'b', 7000)],
    incoming: wl('a_incoming', 'a', 5000),
    want: [],
  },
  {
    name: `${P}can't preempt 2 smaller workloads if the incoming is huge`,
    nodes: BASE,
    admitted: [wl('b1', 'b', 2000), wl('b2', 'b', 2000), wl('b3', 'b', 3000)],
    incoming: wl('a_incoming', 'a', 6000),
    want: [],
  },
  {
    name: `${P}preempt from target and others even if over nominal`,
    nodes: BASE,
    admitted: [wl('a1_low', 'a', 2000, { priority: -1 }), wl('a2_low', 'a', 1000, { priority: -1 }), wl('b1', 'b', 3000), wl('b2', 'b', 3000)],
    incoming: wl('a_incoming', 'a', 4000),
    want: [
      ['a1_low', 'InClusterQueue'],
      ['b1', 'InCohortFairSharing'],
    ],
  },
  {
    name: `${P}prefer to preempt workloads that don't make the target CQ have the biggest share`,
    nodes: BASE,
    admitted: [wl('b1', 'b', 2000), wl('b2', 'b', 1000), wl('b3', 'b', 2000), wl('c1', 'c', 1000)],
    incoming: wl('a_incoming', 'a', 3500),
    // b1 would pass LessThanInitialShare, but LessThanOrEqualToFinalShare found b2 first
    want: [['b2', 'InCohortFairSharing']],
  },
  {
    name: `${P}preempt from different cluster queues if the end result has a smaller max share`,
    nodes: BASE,
    admitted: [wl('b1', 'b', 2000), wl('b2', 'b', 2500), wl('c1', 'c', 2000), wl('c2', 'c', 2500)],
    incoming: wl('a_incoming', 'a', 3500),
    want: [
      ['b1', 'InCohortFairSharing'],
      ['c1', 'InCohortFairSharing'],
    ],
  },
  {
    name: `${P}scenario above does not flap`,
    nodes: BASE,
    admitted: [wl('a1', 'a', 3500), wl('b2', 'b', 2500), wl('c2', 'c', 2500)],
    incoming: wl('b_incoming', 'b', 2000),
    want: [],
  },
  {
    name: `${P}cannot preempt if it would make the candidate CQ go under nominal after preempting one element`,
    nodes: BASE,
    admitted: [wl('b1', 'b', 3000), wl('b2', 'b', 3000), wl('c1', 'c', 3000)],
    incoming: wl('a_incoming', 'a', 4000),
    want: [],
  },
  {
    name: `${P}workloads under priority threshold not capriciously preempted`,
    nodes: BASE,
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 3), ...[1, 2, 3].map((i) => wl(`preemptible${i}`, 'preemptible', 1000, { priority: -3 }))],
    incoming: wl('a_incoming', 'a', 2000),
    want: [],
  },
  {
    name: `${P}preempt lower priority first, even if big`,
    nodes: BASE,
    strategies: ['LessThanInitialShare'],
    admitted: [wl('a1', 'a', 3000), wl('b_low', 'b', 5000, { priority: 0 }), wl('b_high', 'b', 1000, { priority: 1 })],
    incoming: wl('a_incoming', 'a', 1000),
    want: [['b_low', 'InCohortFairSharing']],
  },
  {
    name: `${P}preempt workload that doesn't transfer the imbalance, even if high priority`,
    nodes: BASE,
    strategies: ['LessThanOrEqualToFinalShare'],
    admitted: [wl('a1', 'a', 3000), wl('b_low', 'b', 5000, { priority: 0 }), wl('b_high', 'b', 1000, { priority: 1 })],
    incoming: wl('a_incoming', 'a', 1000),
    want: [['b_high', 'InCohortFairSharing']],
  },
  {
    name: `${P}CQ with higher weight can preempt more`,
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'a', parent: 'all', weight: 2, quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
      { name: 'b', parent: 'all', quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
      { name: 'c', parent: 'all', quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
    ],
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 6)],
    incoming: wl('a_incoming', 'a', 2000),
    want: [
      ['b1', 'InCohortFairSharing'],
      ['b2', 'InCohortFairSharing'],
    ],
  },
  {
    name: `${P}can preempt anything borrowing from CQ with 0 weight`,
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'a', parent: 'all', quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
      { name: 'b', parent: 'all', weight: 0, quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
      { name: 'c', parent: 'all', quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
    ],
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 6)],
    incoming: wl('a_incoming', 'a', 3000),
    want: [
      ['b1', 'InCohortFairSharing'],
      ['b2', 'InCohortFairSharing'],
      ['b3', 'InCohortFairSharing'],
    ],
  },
  {
    name: `${P}can't preempt nominal from CQ with 0 weight`,
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'a', parent: 'all', quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
      { name: 'b', parent: 'all', weight: 0, quota: { [CPU]: 3000 }, preemption: LOWER_ANY },
    ],
    admitted: [...units('a', 'a', 3), ...units('b', 'b', 3)],
    incoming: wl('a_incoming', 'a'),
    want: [],
  },
  {
    name: `${P}can't preempt nominal from Cohort with 0 weight`,
    nodes: [
      { name: 'root', kind: 'Cohort' },
      { name: 'left-cq', parent: 'root', quota: { [CPU]: 0 }, preemption: RECLAIM_ANY },
      { name: 'right-cohort', kind: 'Cohort', parent: 'root', weight: 0, quota: { [CPU]: 1000 } },
      { name: 'right-cq', parent: 'right-cohort', weight: 0, quota: { [CPU]: 0 }, preemption: RECLAIM_ANY },
    ],
    admitted: [wl('right-1', 'right-cq')],
    incoming: wl('left-1', 'left-cq'),
    want: [],
  },
  {
    name: `${P}can preempt within cluster queue when no cohort`,
    nodes: [{ name: 'a', quota: { [CPU]: 1000 }, preemption: { withinClusterQueue: 'LowerPriority' } }],
    admitted: [wl('a1', 'a')],
    incoming: wl('a_incoming', 'a', 1000, { priority: 1000 }),
    want: [['a1', 'InClusterQueue']],
  },
  {
    // Each Cohort provides 5 cpu, each ClusterQueue 1; (usage, quota, subtree quota):
    // ROOT(20,5,20) over LEFT(5,5,7) [a(0,1,1), b(5,1,1)], c(5,1,1), RIGHT(10,5,7) [d(5,1,1), e(5,1,1)].
    // a and LEFT weigh 2; e weighs 0.99 so that preemptions are deterministic.
    name: `${P}hierarchical preemption`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort', quota: { [CPU]: 5000 } },
      { name: 'LEFT', kind: 'Cohort', parent: 'ROOT', weight: 2, quota: { [CPU]: 5000 } },
      { name: 'RIGHT', kind: 'Cohort', parent: 'ROOT', quota: { [CPU]: 5000 } },
      { name: 'a', parent: 'LEFT', weight: 2, quota: { [CPU]: 1000 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'LEFT', quota: { [CPU]: 1000 } },
      { name: 'c', parent: 'ROOT', quota: { [CPU]: 1000 } },
      { name: 'd', parent: 'RIGHT', quota: { [CPU]: 1000 } },
      { name: 'e', parent: 'RIGHT', weight: 0.99, quota: { [CPU]: 1000 } },
    ],
    admitted: ['b', 'c', 'd', 'e'].flatMap((q) => [1, 2, 3, 4, 5].map((i) => wl(`${q}${i}`, q, 1000, { priority: i }))),
    incoming: wl('unit', 'a', 5000),
    want: [
      ['b1', 'InCohortFairSharing'],
      ['b2', 'InCohortFairSharing'],
      ['c1', 'InCohortFairSharing'],
      ['c2', 'InCohortFairSharing'],
      ['e1', 'InCohortFairSharing'],
    ],
  },
  {
    // b borrows, but its Cohort RIGHT does not: a must preempt its own workloads.
    name: `${P}borrowing cq in non-borrowing cohort is protected`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'RIGHT', kind: 'Cohort', parent: 'ROOT', weight: 0.1, quota: { [CPU]: 1000 } },
      { name: 'a', parent: 'ROOT', weight: 10, quota: { [CPU]: 5000 }, preemption: { reclaimWithinCohort: 'Any', withinClusterQueue: 'LowerPriority' } },
      { name: 'b', parent: 'RIGHT', weight: 0.1 },
    ],
    admitted: [wl('a1', 'a', 1000, { priority: -1 }), wl('a2', 'a', 1000, { priority: -1 }), wl('a3', 'a', 1000, { priority: -1 }), wl('b1', 'b', 1000, { priority: -1 })],
    incoming: wl('unit', 'a', 5000),
    want: [
      ['a1', 'InClusterQueue'],
      ['a2', 'InClusterQueue'],
      ['a3', 'InClusterQueue'],
    ],
  },
  {
    // Preempting b1 would bring RIGHT to share 0, and no other candidate is allowed.
    name: `${P}forced to preempt within clusterqueue because borrowing workload too important`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'RIGHT', kind: 'Cohort', parent: 'ROOT', weight: 0.1, quota: { [CPU]: 3000 } },
      { name: 'a', parent: 'ROOT', weight: 10, quota: { [CPU]: 5000 }, preemption: { reclaimWithinCohort: 'LowerPriority', withinClusterQueue: 'LowerPriority' } },
      { name: 'b', parent: 'RIGHT', weight: 0.1 },
    ],
    admitted: [wl('a1', 'a', 1000, { priority: -1 }), wl('a2', 'a', 1000, { priority: -1 }), wl('a3', 'a', 1000, { priority: -1 }), wl('b1', 'b', 4000, { priority: 100 })],
    incoming: wl('unit', 'a', 4000),
    want: [
      ['a1', 'InClusterQueue'],
      ['a2', 'InClusterQueue'],
      ['a3', 'InClusterQueue'],
    ],
  },
  {
    // ROOT over A/AA/AAA/a, B/BB/BBB/b and C/CC/CCC/CCCC (which holds the only cpu); A weighs 1.01, B 0.99.
    name: `${P}deep preemption`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'A', kind: 'Cohort', parent: 'ROOT', weight: 1.01 },
      { name: 'AA', kind: 'Cohort', parent: 'A' },
      { name: 'AAA', kind: 'Cohort', parent: 'AA' },
      { name: 'B', kind: 'Cohort', parent: 'ROOT', weight: 0.99 },
      { name: 'BB', kind: 'Cohort', parent: 'B' },
      { name: 'BBB', kind: 'Cohort', parent: 'BB' },
      { name: 'C', kind: 'Cohort', parent: 'ROOT' },
      { name: 'CC', kind: 'Cohort', parent: 'C' },
      { name: 'CCC', kind: 'Cohort', parent: 'CC' },
      { name: 'CCCC', kind: 'Cohort', parent: 'CCC', quota: { [CPU]: 1000 } },
      { name: 'a', parent: 'AAA', quota: { [CPU]: 0 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'BBB', quota: { [CPU]: 0 } },
    ],
    admitted: [wl('b1', 'b')],
    incoming: wl('a1', 'a'),
    want: [['b1', 'InCohortFairSharing']],
  },
  {
    name: `${P}cq with zero weight can reclaim nominal quota`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'a', parent: 'ROOT', weight: 0, quota: { [CPU]: 1000 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'ROOT', weight: 1, quota: { [CPU]: 0 } },
    ],
    admitted: [wl('b1', 'b')],
    incoming: wl('a1', 'a'),
    want: [['b1', 'InCohortReclamation']],
  },
  {
    name: `${P}cohort with zero weight can reclaim nominal quota`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'A', kind: 'Cohort', parent: 'ROOT', weight: 0, quota: { [CPU]: 1000 } },
      { name: 'a', parent: 'A', weight: 0, quota: { [CPU]: 0 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'ROOT', weight: 1, quota: { [CPU]: 0 } },
    ],
    admitted: [wl('b1', 'b')],
    incoming: wl('a1', 'a'),
    want: [['b1', 'InCohortFairSharing']],
  },
  {
    // a: 3 premium (uses 2) and 0 cheap (uses 5, borrowed); b: 0 premium (uses 1, borrowed) and 6 cheap.
    // a's aggregate share is high, but the incoming premium cpu keeps a within nominal there.
    name: `${P}nominal first: workload fitting within nominal can preempt despite high aggregate DRS`,
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'a', parent: 'all', quota: { 'premium/cpu': 3000, 'cheap/cpu': 0 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'all', quota: { 'premium/cpu': 0, 'cheap/cpu': 6000 } },
    ],
    admitted: [
      wl('a_prem1', 'a', 1000, { flavor: 'premium' }),
      wl('a_prem2', 'a', 1000, { flavor: 'premium' }),
      ...[1, 2, 3, 4, 5].map((i) => wl(`a_cheap${i}`, 'a', 1000, { flavor: 'cheap' })),
      wl('b_prem1', 'b', 1000, { flavor: 'premium' }),
    ],
    incoming: wl('a_incoming', 'a', 1000, { flavor: 'premium' }),
    want: [['b_prem1', 'InCohortReclamation']],
  },
  {
    name: `${P}zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight`,
    nodes: [
      { name: 'all', kind: 'Cohort' },
      { name: 'a', parent: 'all', weight: 0, quota: { [CPU]: 1000 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'all', weight: 1, quota: { [CPU]: 1000 } },
    ],
    admitted: [wl('a1', 'a'), wl('b1', 'b'), wl('b2', 'b')],
    incoming: wl('a_incoming', 'a'),
    want: [],
  },
  {
    name: `${P}zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight`,
    nodes: [
      { name: 'all', kind: 'Cohort', quota: { [CPU]: 3000 } },
      { name: 'a', parent: 'all', weight: 0, quota: { [CPU]: 1000 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'all', weight: 0, quota: { [CPU]: 0 } },
    ],
    admitted: units('b', 'b', 3),
    incoming: wl('a_incoming', 'a', 2000),
    want: [['b1', 'InCohortFairSharing']],
  },
  {
    name: `${P}non-zero weight borrowing preemptor preempts from a borrowing CQ`,
    nodes: [
      { name: 'all', kind: 'Cohort', quota: { [CPU]: 3000 } },
      { name: 'a', parent: 'all', weight: 1, quota: { [CPU]: 1000 }, preemption: RECLAIM_ANY },
      { name: 'b', parent: 'all', weight: 1, quota: { [CPU]: 0 } },
    ],
    admitted: units('b', 'b', 3),
    incoming: wl('a_incoming', 'a', 2000),
    want: [['b1', 'InCohortFairSharing']],
  },
  {
    // ROOT over A (weight 0, 1 cpu) [p (2 cpu, the preemptor), y (2 cpu)] and x (1 cpu).
    // A borrows at weight 0, so no candidate of x passes the first strategy; once y1 goes,
    // A stops borrowing and the second strategy takes x1.
    name: `${P}candidates skipped by the first strategy are still available to the second strategy`,
    nodes: [
      { name: 'ROOT', kind: 'Cohort' },
      { name: 'A', kind: 'Cohort', parent: 'ROOT', weight: 0, quota: { [CPU]: 1000 } },
      { name: 'p', parent: 'A', weight: 1, quota: { [CPU]: 2000 }, preemption: RECLAIM_ANY },
      { name: 'y', parent: 'A', weight: 1, quota: { [CPU]: 2000 } },
      { name: 'x', parent: 'ROOT', weight: 1, quota: { [CPU]: 1000 } },
    ],
    admitted: [wl('p1', 'p', 2000), wl('y1', 'y', 2000), wl('y2', 'y', 2000), wl('x1', 'x'), wl('x2', 'x')],
    incoming: wl('p_incoming', 'p'),
    want: [
      ['y1', 'InCohortFairSharing'],
      ['x1', 'InCohortFairSharing'],
    ],
  },
];
