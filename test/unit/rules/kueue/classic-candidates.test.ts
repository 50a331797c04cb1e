import { describe, expect, it } from 'vitest';
import { collectCandidates, compareCandidates, satisfiesPolicy } from '../../../../src/rules/kueue/classic-candidates.js';
import { classicPreemption } from '../../../../src/rules/kueue/classic-preemption.js';
import type { ReclaimWithinCohort, WithinClusterQueue } from '../../../../src/rules/kueue/kueue-state.js';
import { KueueQuotaTree } from '../../../../src/rules/kueue/quota-math.js';
import { kueueState, workload } from './kueue-fixtures.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

// Kueue's TestSatisfiesPreemptionPolicy (pkg/scheduler/preemption/common/preemption_policy_test.go).
// A snapshot carries a workload's effective priority: where Kueue's case adds a PriorityBoost
// annotation, the priority below is base + boost.
const POLICY_CASES: [string, number, number, number, number, WithinClusterQueue | ReclaimWithinCohort, boolean][] = [
  // name, preemptor priority, preemptor creation, candidate priority, candidate creation, policy, want
  ['LowerPriority: preemptor has higher priority', 10, 0, 5, 0, 'LowerPriority', true],
  ['LowerPriority: preemptor has same priority', 10, 0, 10, 0, 'LowerPriority', false],
  ['LowerOrNewerEqualPriority: preemptor has same priority, same timestamp', 10, NOW, 10, NOW, 'LowerOrNewerEqualPriority', false],
  ['LowerOrNewerEqualPriority: preemptor has same priority, newer timestamp (within 5min buffer)', 10, NOW + MIN, 10, NOW, 'LowerOrNewerEqualPriority', false],
  ['LowerOrNewerEqualPriority: preemptor has same priority, older timestamp (within 5min buffer)', 10, NOW, 10, NOW + MIN, 'LowerOrNewerEqualPriority', true],
  ['PreemptionPolicyAny', 10, NOW, 10, NOW + 6 * MIN, 'Any', true],
  ['PreemptionPolicyNever', 10, NOW, 10, NOW + 6 * MIN, 'Never', false],
  ['LowerPriority: boost makes low-priority immune to medium-priority preemption', 200, 0, 100 + 150, 0, 'LowerPriority', false],
  ['LowerPriority: boost on preemptor enables preemption of higher raw priority', 100 + 200, 0, 200, 0, 'LowerPriority', true],
  ['LowerOrNewerEqualPriority: boost equalizes priorities, older preemptor can preempt newer candidate', 100 + 100, NOW, 200, NOW + 1000, 'LowerOrNewerEqualPriority', true],
  ['LowerOrNewerEqualPriority: equal effective priority, newer preemptor cannot preempt older candidate', 100 + 100, NOW + 1000, 200, NOW, 'LowerOrNewerEqualPriority', false],
  ['Any: always satisfies regardless of priority or boost', 50, 0, 100 + 200, 0, 'Any', true],
];

describe("Kueue's TestSatisfiesPreemptionPolicy, translated", () => {
  it.each(POLICY_CASES)('TestSatisfiesPreemptionPolicy/%s', (_name, pp, pc, cp, cc, policy, want) => {
    const preemptor = workload({ name: 'preemptor', clusterQueue: 'q', usage: {}, priority: pp, createdAt: pc });
    const candidate = workload({ name: 'candidate', clusterQueue: 'q', usage: {}, priority: cp, createdAt: cc });
    expect(satisfiesPolicy(preemptor, candidate, policy)).toBe(want);
  });
});

// Kueue's TestCandidatesOrdering (pkg/scheduler/preemption/preemption_test.go). Left out:
// "workload missing priority boost defaults to zero" and "invalid priority boost defaults to
// zero" (reading the boost annotation is the snapshot builder's, not the ordering's), and
// "workloads with higher LQ usage first" (AdmissionFairSharing is not modelled).
type OrderingSpec = { name: string; queue?: string; priority?: number; admittedAt?: number; evicted?: boolean };
const ORDERING_CASES: [string, OrderingSpec[], string[]][] = [
  [
    'workloads sorted by priority',
    [
      { name: 'high', priority: 10 },
      { name: 'low', priority: -10 },
    ],
    ['low', 'high'],
  ],
  // Effective priorities, the boost added (10+100, 10+5).
  [
    'workloads sorted by effective priority with boost',
    [
      { name: 'high-boost', priority: 110 },
      { name: 'low-boost', priority: 15 },
    ],
    ['low-boost', 'high-boost'],
  ],
  // The evicted one never had quota reserved: Kueue then takes "now" as its reservation time.
  [
    'evicted workload first',
    [
      { name: 'other', priority: 10 },
      { name: 'evicted', evicted: true },
    ],
    ['evicted', 'other'],
  ],
  [
    'workload from different CQ first',
    [
      { name: 'preemptorCq', priority: 10 },
      { name: 'other', queue: 'other', priority: 10 },
    ],
    ['other', 'preemptorCq'],
  ],
  ['old workloads last', [{ name: 'older', admittedAt: NOW - 1000 }, { name: 'younger', admittedAt: NOW + 1000 }, { name: 'current' }], ['younger', 'current', 'older']],
  // With AdmissionFairSharing on in Kueue; the ClusterQueue decides before LocalQueue usage would.
  [
    'workloads from different CQ are sorted based on priority and timestamp',
    [
      { name: 'mid_lq_usage', priority: 10 },
      { name: 'high_lq_usage_different_cq', queue: 'different_cq', priority: 1 },
    ],
    ['high_lq_usage_different_cq', 'mid_lq_usage'],
  ],
];

describe("Kueue's TestCandidatesOrdering, translated", () => {
  it.each(ORDERING_CASES)('TestCandidatesOrdering/%s', (_name, specs, want) => {
    const wls = specs.map((s) => workload({ name: s.name, clusterQueue: s.queue ?? 'preemptor', usage: {}, priority: s.priority ?? 0, admittedAt: s.admittedAt ?? NOW, evicted: s.evicted ?? false }));
    expect(wls.sort((a, b) => compareCandidates(a, b, 'preemptor')).map((w) => w.name)).toEqual(want);
  });
});

describe("compareCandidates beyond Kueue's cases", () => {
  it('puts an evicted workload first even at a higher priority and from the own queue', () => {
    const own = workload({ name: 'own-evicted', clusterQueue: 'preemptor', usage: {}, priority: 100, evicted: true });
    const other = workload({ name: 'other', clusterQueue: 'other', usage: {}, priority: -100 });
    expect(compareCandidates(own, other, 'preemptor')).toBeLessThan(0);
    expect(compareCandidates(other, own, 'preemptor')).toBeGreaterThan(0);
  });

  it('breaks a full tie by name, so the order never depends on the input order', () => {
    const a = workload({ name: 'a', clusterQueue: 'q', usage: {} });
    const b = workload({ name: 'b', clusterQueue: 'q', usage: {} });
    expect(compareCandidates(a, b, 'q')).toBeLessThan(0);
    expect(compareCandidates(b, a, 'q')).toBeGreaterThan(0);
  });
});

const CPU = 'default/cpu';
const RECLAIM = { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any' } as const;

describe('candidates: what Kueue prunes and the order the greedy pass sees', () => {
  // root > (left: p, with preemptor; right cohort: r1 over its own nominal, r2 under it, so
  // the right cohort as a whole is within its subtree quota and is never searched).
  const pruned = kueueState(
    [
      { name: 'root', kind: 'Cohort' },
      { name: 'right', kind: 'Cohort', parent: 'root' },
      { name: 'p', kind: 'ClusterQueue', parent: 'root', quota: { [CPU]: [4] }, preemption: RECLAIM },
      { name: 'r1', kind: 'ClusterQueue', parent: 'right', quota: { [CPU]: [2] } },
      { name: 'r2', kind: 'ClusterQueue', parent: 'right', quota: { [CPU]: [4] } },
    ],
    [{ name: 'r1-over', clusterQueue: 'r1', usage: { [CPU]: 3 } }],
  );

  it('does not look into a cohort within its quota, though a queue inside it is over its own', () => {
    const tree = KueueQuotaTree.of(pruned);
    const preemptor = workload({ name: 'in', clusterQueue: 'p', usage: { [CPU]: 2 }, priority: 1 });
    const list = collectCandidates(tree, tree.ledger(), preemptor, new Set([CPU]));
    expect(list.ordered).toEqual([]);
    expect(list.fromOtherQueues).toBe(0);
  });

  const mixed = kueueState(
    [
      { name: 'co', kind: 'Cohort' },
      { name: 'a', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [6] }, preemption: RECLAIM },
      { name: 'b', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [2] } },
    ],
    [
      { name: 'a-own-low', clusterQueue: 'a', usage: { [CPU]: 2 }, priority: -5 },
      { name: 'a-own-evicted', clusterQueue: 'a', usage: { [CPU]: 2 }, priority: 0, evicted: true },
      { name: 'b-borrowing', clusterQueue: 'b', usage: { [CPU]: 2 }, priority: 3 },
      { name: 'b-borrowing-2', clusterQueue: 'b', usage: { [CPU]: 2 }, priority: 3 },
    ],
  );

  it('orders evicted first, then other queues before the own one, whatever the priorities', () => {
    const tree = KueueQuotaTree.of(mixed);
    const preemptor = workload({ name: 'in', clusterQueue: 'a', usage: { [CPU]: 2 }, priority: 5 });
    const list = collectCandidates(tree, tree.ledger(), preemptor, new Set([CPU]));
    expect(list.ordered.map((c) => c.workload.name)).toEqual(['a-own-evicted', 'b-borrowing', 'b-borrowing-2', 'a-own-low']);
    expect(list.ordered.map((c) => c.variant)).toEqual(['WithinClusterQueue', 'HierarchicalReclaim', 'HierarchicalReclaim', 'WithinClusterQueue']);
  });

  it('takes the evicted workload first, then reclaims from the borrower before its own queue', () => {
    const r = classicPreemption(mixed, { workload: workload({ name: 'in', clusterQueue: 'a', usage: { [CPU]: 4 }, priority: 5 }) }, [CPU]);
    expect(r.targets.map((t) => t.workload).sort()).toEqual(['a-own-evicted', 'b-borrowing']);
  });
});
