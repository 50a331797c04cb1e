import { describe, expect, it } from 'vitest';
import { fillBack, workloadFits } from '../../../../src/rules/kueue/preemption-fit.js';
import { KueueQuotaTree } from '../../../../src/rules/kueue/quota-math.js';
import { kueueState } from './kueue-fixtures.js';

const CPU = 'default/cpu';

const state = kueueState(
  [
    { name: 'co', kind: 'Cohort' },
    { name: 'a', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [4] } },
    { name: 'b', kind: 'ClusterQueue', parent: 'co', quota: { [CPU]: [4] } },
  ],
  [
    { name: 'a-1', clusterQueue: 'a', usage: { [CPU]: 1 } },
    { name: 'a-2', clusterQueue: 'a', usage: { [CPU]: 3 } },
    { name: 'b-1', clusterQueue: 'b', usage: { [CPU]: 2 } },
  ],
);
const byName = new Map(state.workloads.map((w) => [w.name, { workload: w }]));

describe('workloadFits (Kueue workloadFits, without topology)', () => {
  it('within available, and within nominal unless borrowing is allowed', () => {
    const ledger = KueueQuotaTree.of(state).ledger();
    expect(workloadFits(ledger, 'a', new Map([[CPU, 2]]), true)).toBe(true);
    expect(workloadFits(ledger, 'a', new Map([[CPU, 2]]), false)).toBe(false);
    expect(workloadFits(ledger, 'a', new Map([[CPU, 3]]), true)).toBe(false);
    expect(workloadFits(ledger, 'b', new Map([[CPU, 2]]), false)).toBe(true);
  });
});

describe('fillBack (Kueue fillBackWorkloads)', () => {
  it('gives back what the workload does not need, newest first, and keeps the last taken', () => {
    const ledger = KueueQuotaTree.of(state).ledger();
    const taken = ['a-1', 'b-1', 'a-2'].map((n) => byName.get(n)!);
    for (const t of taken) ledger.removeWorkload(t.workload);
    // 3 cpu wanted in a without borrowing: a-2 alone frees it; b-1 and a-1 go back.
    const kept = fillBack(ledger, 'a', new Map([[CPU, 3]]), taken, false);
    expect(kept.map((t) => t.workload.name)).toEqual(['a-2']);
    expect(ledger.usage('a', CPU)).toBe(1);
    expect(ledger.usage('b', CPU)).toBe(2);
  });

  it("moves the last victim into a dropped one's place, as Kueue does", () => {
    const one = kueueState(
      [{ name: 'a', kind: 'ClusterQueue', quota: { [CPU]: [10] } }],
      ['p', 'q', 'r', 's'].map((name) => ({ name, clusterQueue: 'a', usage: { [CPU]: name === 'p' ? 1 : 3 } })),
    );
    const ledger = KueueQuotaTree.of(one).ledger();
    const taken = one.workloads.map((workload) => ({ workload }));
    for (const t of taken) ledger.removeWorkload(t.workload);
    // 9 of 10: r and q are needed, p is not; s, taken last, fills p's place.
    const kept = fillBack(ledger, 'a', new Map([[CPU, 9]]), taken, false);
    expect(kept.map((t) => t.workload.name)).toEqual(['s', 'q', 'r']);
  });
});
