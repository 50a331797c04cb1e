import { describe, expect, it } from 'vitest';
import { KueueQuotaTree } from '../../../../src/rules/kueue/quota-math.js';
import { kueueState, type NodeSpec } from './kueue-fixtures.js';

const CPU = 'default/cpu';

// Kueue's TestSnapshotAddRemoveWorkloadWithLendingLimit (pkg/cache/scheduler/snapshot_test.go):
// two ClusterQueues of 10 cpu lending 4 and 6; lend-a holds 16, lend-b 4 (in cores here).
const lending = kueueState(
  [
    { name: 'lend', kind: 'Cohort' },
    { name: 'lend-a', kind: 'ClusterQueue', parent: 'lend', quota: { [CPU]: [10, null, 4] } },
    { name: 'lend-b', kind: 'ClusterQueue', parent: 'lend', quota: { [CPU]: [10, null, 6] } },
  ],
  [
    { name: 'lend-a-1', clusterQueue: 'lend-a', usage: { [CPU]: 1 } },
    { name: 'lend-a-2', clusterQueue: 'lend-a', usage: { [CPU]: 9 } },
    { name: 'lend-a-3', clusterQueue: 'lend-a', usage: { [CPU]: 6 } },
    { name: 'lend-b-1', clusterQueue: 'lend-b', usage: { [CPU]: 4 } },
  ],
);

// A two-level tree: root R (own 5) > cohort C (borrowingLimit 3) > x (4, lends 1), y (6).
const nested = kueueState(
  [
    { name: 'R', kind: 'Cohort', quota: { [CPU]: [5] } },
    { name: 'C', kind: 'Cohort', parent: 'R', quota: { [CPU]: [0, 3] } },
    { name: 'x', kind: 'ClusterQueue', parent: 'C', quota: { [CPU]: [4, null, 1] } },
    { name: 'y', kind: 'ClusterQueue', parent: 'C', quota: { [CPU]: [6] } },
  ],
  [{ name: 'x-1', clusterQueue: 'x', usage: { [CPU]: 5 } }],
);

describe('KueueQuotaTree: subtree and local quota (Kueue resource_node.go)', () => {
  it('a lendingLimit keeps the rest of the quota local; the cohort sees only what is lent', () => {
    const tree = KueueQuotaTree.of(lending);
    expect(tree.localQuota('lend-a', CPU)).toBe(6);
    expect(tree.localQuota('lend-b', CPU)).toBe(4);
    expect(tree.subtreeQuota('lend', CPU)).toBe(10);
    expect(tree.baseUsage('lend-a', CPU)).toBe(16);
    expect(tree.baseUsage('lend', CPU)).toBe(10);
  });

  it('sums nested cohorts with their own quota', () => {
    const tree = KueueQuotaTree.of(nested);
    expect(tree.subtreeQuota('C', CPU)).toBe(7);
    expect(tree.subtreeQuota('R', CPU)).toBe(12);
    expect(tree.baseUsage('C', CPU)).toBe(2);
    expect(tree.baseUsage('R', CPU)).toBe(2);
    expect(tree.pathToRoot('x')).toEqual(['C', 'R']);
    expect(tree.subtreeClusterQueues('R')).toEqual(['x', 'y']);
  });

  it('is built once per state', () => {
    expect(KueueQuotaTree.of(nested)).toBe(KueueQuotaTree.of(nested));
  });

  it('names a workload of an unknown ClusterQueue', () => {
    const bad = kueueState([{ name: 'a', kind: 'ClusterQueue' }], [{ name: 'w', clusterQueue: 'nope', usage: {} }]);
    expect(() => KueueQuotaTree.of(bad)).toThrow(/kueue\/unknown-cluster-queue/);
  });
});

describe('UsageLedger: removal and addition bubble as Kueue does', () => {
  it('restores exactly when every removal is added back, and never touches the tree', () => {
    const tree = KueueQuotaTree.of(nested);
    const ledger = tree.ledger();
    const x1 = nested.workloads[0]!;
    ledger.removeWorkload(x1);
    expect([ledger.usage('x', CPU), ledger.usage('C', CPU), ledger.usage('R', CPU)]).toEqual([0, 0, 0]);
    ledger.addWorkload(x1);
    expect([ledger.usage('x', CPU), ledger.usage('C', CPU), ledger.usage('R', CPU)]).toEqual([5, 2, 2]);
    expect(tree.ledger().usage('x', CPU)).toBe(5);
  });
});

// Kueue's TestSnapshotAddRemoveWorkloadWithLendingLimit (pkg/cache/scheduler/snapshot_test.go),
// all its cases: usage of the cohort and both ClusterQueues after removing, then adding, workloads.
const LENDING_CASES: [string, string[], string[], { lend: number; 'lend-a': number; 'lend-b': number }][] = [
  ['remove all then add all', ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], { lend: 10, 'lend-a': 16, 'lend-b': 4 }],
  ['remove all', ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], [], { lend: 0, 'lend-a': 0, 'lend-b': 0 }],
  ['remove workload, but still using quota over GuaranteedQuota', ['lend-a-2'], [], { lend: 1, 'lend-a': 7, 'lend-b': 4 }],
  ['remove wokload, using same quota as GuaranteedQuota', ['lend-a-1', 'lend-a-2'], [], { lend: 0, 'lend-a': 6, 'lend-b': 4 }],
  ['remove workload, using less quota than GuaranteedQuota', ['lend-a-2', 'lend-a-3'], [], { lend: 0, 'lend-a': 1, 'lend-b': 4 }],
  ['remove all then add workload, using less quota than GuaranteedQuota', ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], ['lend-a-1'], { lend: 0, 'lend-a': 1, 'lend-b': 0 }],
  ['remove all then add workload, using same quota as GuaranteedQuota', ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], ['lend-a-3'], { lend: 0, 'lend-a': 6, 'lend-b': 0 }],
  ['remove all then add workload, using quota over GuaranteedQuota', ['lend-a-1', 'lend-a-2', 'lend-a-3', 'lend-b-1'], ['lend-a-2'], { lend: 3, 'lend-a': 9, 'lend-b': 0 }],
];

describe("Kueue's TestSnapshotAddRemoveWorkloadWithLendingLimit, translated", () => {
  it.each(LENDING_CASES)('TestSnapshotAddRemoveWorkloadWithLendingLimit/%s', (_name, remove, add, want) => {
    const ledger = KueueQuotaTree.of(lending).ledger();
    const byName = new Map(lending.workloads.map((w) => [w.name, w]));
    for (const n of remove) ledger.removeWorkload(byName.get(n)!);
    for (const n of add) ledger.addWorkload(byName.get(n)!);
    expect({ lend: ledger.usage('lend', CPU), 'lend-a': ledger.usage('lend-a', CPU), 'lend-b': ledger.usage('lend-b', CPU) }).toEqual(want);
  });
});

describe('UsageLedger: available, potential available, borrowing', () => {
  it('caps what the parent gives by the borrowingLimit along the path', () => {
    const ledger = KueueQuotaTree.of(nested).ledger();
    // C: 7 lent by its children, 2 of it used, plus 3 it may borrow from R (which has 10 free).
    expect(ledger.available('C', CPU)).toBe(8);
    expect(ledger.available('x', CPU)).toBe(8);
    expect(ledger.available('y', CPU)).toBe(8);
    expect(ledger.potentialAvailable('x', CPU)).toBe(13);
    expect(ledger.potentialAvailable('C', CPU)).toBe(10);
    expect(ledger.potentialAvailable('R', CPU)).toBe(12);
  });

  it('a ClusterQueue borrowingLimit limits it below what the cohort has free', () => {
    const state = kueueState(
      [
        { name: 'co', kind: 'Cohort' },
        { name: 'a', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [6, 2] } },
        { name: 'b', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [4] } },
      ],
      [{ name: 'a-1', clusterQueue: 'a', usage: { [CPU]: 7 } }],
    );
    const ledger = KueueQuotaTree.of(state).ledger();
    expect(ledger.available('a', CPU)).toBe(1);
    expect(ledger.available('b', CPU)).toBe(3);
    expect(ledger.isBorrowing('a', CPU)).toBe(true);
    expect(ledger.isBorrowing('b', CPU)).toBe(false);
    expect(ledger.isBorrowing('b', CPU, 4)).toBe(false);
    expect(ledger.isBorrowing('b', CPU, 5)).toBe(true);
    expect(ledger.fits('a', new Map([[CPU, 1]]))).toBe(true);
    expect(ledger.fits('a', new Map([[CPU, 2]]))).toBe(false);
  });

  it('available is never negative, though over-admission makes the raw value so', () => {
    const state = kueueState([{ name: 'solo', kind: 'ClusterQueue', quota: { [CPU]: [2] } }], [{ name: 's', clusterQueue: 'solo', usage: { [CPU]: 3 } }]);
    const ledger = KueueQuotaTree.of(state).ledger();
    expect(ledger.rawAvailable('solo', CPU)).toBe(-1);
    expect(ledger.available('solo', CPU)).toBe(0);
  });

  it('within nominal and QuantitiesFitInQuota', () => {
    const ledger = KueueQuotaTree.of(nested).ledger();
    expect(ledger.isWithinNominal('x', [CPU])).toBe(false);
    expect(ledger.isWithinNominal('C', [CPU])).toBe(true);
    const { fits, remaining } = ledger.fitsInQuota('x', new Map([[CPU, 3]]));
    expect(fits).toBe(false);
    expect(remaining.get(CPU)).toBe(3);
    const atY = ledger.fitsInQuota('y', new Map([[CPU, 3]]));
    expect(atY.fits).toBe(true);
    expect(atY.remaining.get(CPU)).toBe(3);
  });
});

// Kueue's TestAvailable (pkg/cache/scheduler/resource_test.go), all eight cases: available
// and potential available per ClusterQueue before usage (equal), with usage, and after the
// usage is removed again (equal again). Amounts in millicores as Kueue's; `red/cpu` unless
// named. Quotas [nominal, borrowingLimit, lendingLimit], null = not set.
type AvailableCase = {
  nodes: NodeSpec[];
  usage: Record<string, Record<string, number>>;
  available: Record<string, Record<string, number>>;
  potential: Record<string, Record<string, number>>;
};
const RED = 'red/cpu';
const BLUE = 'blue/cpu';
const cq = (name: string, parent: string | null, quota: NodeSpec['quota']): NodeSpec => ({ name, kind: 'ClusterQueue', parent, quota });
const cohort = (name: string, parent: string | null, quota: NodeSpec['quota'] = {}): NodeSpec => ({ name, kind: 'Cohort', parent, quota });
const red = (n: number) => ({ [RED]: n });

const AVAILABLE_CASES: Record<string, AvailableCase> = {
  'base cqs': {
    nodes: [cq('cq1', null, { [RED]: [0] }), cq('cq2', null, { [RED]: [5000], [BLUE]: [10000] })],
    usage: { cq1: red(1000), cq2: { [RED]: 2500, [BLUE]: 1000 } },
    available: { cq1: red(0), cq2: { [RED]: 2500, [BLUE]: 9000 } },
    potential: { cq1: red(0), cq2: { [RED]: 5000, [BLUE]: 10000 } },
  },
  'cqs with cohort': {
    nodes: [cohort('cohort', null, { [RED]: [10000] }), cq('cq1', 'cohort', { [RED]: [10000] }), cq('cq2', 'cohort', { [RED]: [10000, null, 9000] })],
    usage: { cq1: red(1000), cq2: red(500) },
    available: { cq1: red(28000), cq2: red(28500) },
    potential: { cq1: red(29000), cq2: red(30000) },
  },
  'cq borrows from cohort': {
    nodes: [cohort('cohort', null, { [RED]: [10000] }), cq('cq1', 'cohort', { [RED]: [10000] })],
    usage: { cq1: red(11000) },
    available: { cq1: red(9000) },
    potential: { cq1: red(20000) },
  },
  'cq oversubscription spills into cohort': {
    nodes: [cohort('cohort', null, { [RED]: [10000] }), cq('cq1', 'cohort', { [RED]: [10000] }), cq('cq2', 'cohort', { [RED]: [10000, 0, 0] })],
    usage: { cq1: red(31000) },
    available: { cq1: red(0), cq2: red(0) },
    potential: { cq1: red(20000), cq2: red(10000) },
  },
  'lending and borrowing limits respected': {
    nodes: [cohort('cohort', null, { [RED]: [10000] }), cq('cq1', 'cohort', { [RED]: [10000] }), cq('cq2', 'cohort', { [RED]: [10000, 2000] }), cq('cq3', 'cohort', { [RED]: [10000, null, 5000] })],
    usage: { cq1: red(20000), cq2: red(10000), cq3: red(6000) },
    available: { cq1: red(4000), cq2: red(2000), cq3: red(4000) },
    potential: { cq1: red(35000), cq2: red(12000), cq3: red(40000) },
  },
  'hierarchical cohort': {
    nodes: [
      cohort('root', null),
      cohort('left', 'root', { [RED]: [10000] }),
      cohort('right', 'root', { [RED]: [10000] }),
      cq('cq1', 'left', { [RED]: [10000] }),
      cq('cq2', 'right', { [RED]: [10000, null, 0] }),
    ],
    usage: { cq1: red(10000), cq2: red(5000) },
    available: { cq1: red(20000), cq2: red(25000) },
    potential: { cq1: red(30000), cq2: red(40000) },
  },
  'hierarchical cohort respects borrowing limit': {
    nodes: [
      cohort('root', null),
      cohort('left', 'root', { [RED]: [10000, 5000] }),
      cohort('right', 'root', { [RED]: [10000] }),
      cq('left-cq1', 'left', { [RED]: [10000] }),
      cq('left-cq2', 'left', { [RED]: [10000, 5000] }),
      cq('right-cq', 'right', { [RED]: [10000] }),
    ],
    usage: {},
    available: { 'left-cq1': red(35000), 'left-cq2': red(15000), 'right-cq': red(50000) },
    potential: { 'left-cq1': red(35000), 'left-cq2': red(15000), 'right-cq': red(50000) },
  },
  'hierarchical cohort respects lending limit': {
    nodes: [
      cohort('root', null),
      cohort('left', 'root', { [RED]: [0, null, 5000] }),
      cohort('right', 'root', { [RED]: [0] }),
      cq('left-cq1', 'left', { [RED]: [10000, null, 5000] }),
      cq('left-cq2', 'left', { [RED]: [10000] }),
      cq('right-cq', 'right', { [RED]: [0] }),
      cq('root-cq', 'root', { [RED]: [0] }),
    ],
    usage: {},
    available: { 'left-cq1': red(20000), 'left-cq2': red(15000), 'right-cq': red(5000), 'root-cq': red(5000) },
    potential: { 'left-cq1': red(20000), 'left-cq2': red(15000), 'right-cq': red(5000), 'root-cq': red(5000) },
  },
};

describe("Kueue's TestAvailable, translated", () => {
  it.each(Object.entries(AVAILABLE_CASES))('TestAvailable/%s', (_name, c) => {
    const tree = KueueQuotaTree.of(kueueState(c.nodes, []));
    const ledger = tree.ledger();
    const read = (f: (q: string, fr: string) => number) => Object.fromEntries(Object.keys(c.potential).map((q) => [q, Object.fromEntries(Object.keys(c.potential[q]!).map((fr) => [fr, f(q, fr)]))]));
    const available = () => read((q, fr) => ledger.available(q, fr));
    const potential = () => read((q, fr) => ledger.potentialAvailable(q, fr));
    expect(available()).toEqual(c.potential);
    expect(potential()).toEqual(c.potential);
    for (const [q, u] of Object.entries(c.usage)) ledger.add(q, new Map(Object.entries(u)));
    expect(available()).toEqual(c.available);
    expect(potential()).toEqual(c.potential);
    for (const [q, u] of Object.entries(c.usage)) ledger.remove(q, new Map(Object.entries(u)));
    expect(available()).toEqual(c.potential);
    expect(potential()).toEqual(c.potential);
  });
});

describe('KueueQuotaTree: the shape of the tree', () => {
  it('keeps the parent-declared order of children, then adds children the parent did not list', () => {
    const state = kueueState(
      [
        { name: 'co', kind: 'Cohort' },
        { name: 'b', kind: 'ClusterQueue', parent: 'co' },
        { name: 'a', kind: 'ClusterQueue', parent: 'co' },
      ],
      [],
    );
    const nodes = new Map(state.nodes);
    nodes.set('co', { ...nodes.get('co')!, children: ['a'] });
    const tree = KueueQuotaTree.of({ ...state, nodes });
    expect(tree.childClusterQueues('co')).toEqual(['a', 'b']);
  });

  it('names a cycle in the cohort tree', () => {
    const state = kueueState(
      [
        { name: 'x', kind: 'Cohort', parent: 'y' },
        { name: 'y', kind: 'Cohort', parent: 'x' },
      ],
      [],
    );
    expect(() => KueueQuotaTree.of(state)).toThrow(/kueue\/cohort-cycle/);
  });

  it('refuses a workload admitted to a Cohort', () => {
    const state = kueueState([{ name: 'co', kind: 'Cohort' }], [{ name: 'w', clusterQueue: 'co', usage: {} }]);
    expect(() => KueueQuotaTree.of(state)).toThrow(/kueue\/unknown-cluster-queue/);
  });
});
