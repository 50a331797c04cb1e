/** Kueue's flavor assignment (SEMANTICS 12): one flavor per resource group, in order, under flavorFungibility. */
import { describe, expect, it } from 'vitest';
import { assignFlavors } from '../../../../src/rules/kueue/assign-flavors.js';
import { buildKueueState } from '../../../../src/rules/kueue/build-kueue-state.js';
import type { KueueQuotaClauses } from '../../../../src/model/kueue-policy.js';
import { kueuePolicy } from '../../../helpers/kueue-policy.js';

const policy = kueuePolicy();
const { state } = buildKueueState({ pool: policy.pools[0]!, quotas: policy.quotas, nodes: policy.cluster!.nodes, jobs: policy.cluster!.jobs });
const flavors = new Map(policy.pools[0]!.flavors!.map((f) => [f.name, f]));
const clausesOf = (q: string): KueueQuotaClauses => policy.quotas.find((x) => x.name === q)!.kueue!;
const me = { name: 'new', priority: 100, createdAt: Date.parse('2026-11-20T12:00:00Z') };
const assign = (q: string, req: Record<string, number>, clauses = clausesOf(q)) => assignFlavors(state, q, clauses, flavors, new Map(Object.entries(req)), me);

describe('assignFlavors', () => {
  it('skips a flavor whose taints the pods do not tolerate, and takes the first that fits', () => {
    const fa = assign('A', { 'nvidia.com/gpu': 4, cpu: 1000 });
    expect(fa.groups[0]!.tried.map((t) => [t.flavor, t.mode])).toEqual([
      ['tainted', 'NoFit'],
      ['a100', 'Fit'],
    ]);
    expect(fa).toMatchObject({ mode: 'Fit', borrow: false });
    expect(Object.fromEntries(fa.usage)).toEqual({ 'a100/nvidia.com/gpu': 4, 'a100/cpu': 1000 });
  });

  it('with whenCanPreempt: TryNextFlavor (the default) tries on past a flavor it would preempt on, and takes the one that fits', () => {
    // a100 in the cohort: A's 8 all lent, B's 8 with lendingLimit 4; B holds 9 (5 past its
    // local 4), A 2: A can take 12 - 7 = 5 more now, so 8 is Preempt there; h100 has A's 8 free.
    const fa = assign('A', { 'nvidia.com/gpu': 8 });
    expect(fa.groups[0]!.tried.map((t) => [t.flavor, t.mode])).toEqual([
      ['tainted', 'NoFit'],
      ['a100', 'Preempt'],
      ['h100', 'Fit'],
    ]);
    expect(fa.groups[0]!.flavor).toBe('h100');
    expect(fa.mode).toBe('Fit');
  });

  it('with whenCanPreempt and whenCanBorrow MayStopSearch stops at the first flavor it could preempt on (a borrowing flavor goes on under whenCanBorrow: TryNextFlavor, as Kueue)', () => {
    const c = clausesOf('A');
    const fa = assign('A', { 'nvidia.com/gpu': 8 }, { ...c, flavorFungibility: { ...c.flavorFungibility!, whenCanPreempt: 'MayStopSearch', whenCanBorrow: 'MayStopSearch' } });
    expect(fa.groups[0]!.tried.map((t) => t.flavor)).toEqual(['tainted', 'a100']);
    expect(fa).toMatchObject({ mode: 'Preempt', needPreemption: ['a100/nvidia.com/gpu'] });
    expect(fa.pending).toContain('insufficient unused quota for nvidia.com/gpu in flavor a100, 3 more needed');
  });

  it("says NoFit in Kueue's words when no flavor can ever hold the request", () => {
    const fa = assign('B', { 'nvidia.com/gpu': 64 });
    expect(fa.mode).toBe('NoFit');
    expect(fa.pending).toContain('insufficient quota for nvidia.com/gpu in flavor a100');
  });

  it('refuses a resource the queue covers in no group', () => {
    const fa = assign('B', { 'nvidia.com/gpu': 1, 'example.com/fpga': 1 });
    expect(fa.mode).toBe('NoFit');
    expect(fa.pending).toContain('resource example.com/fpga unavailable in ClusterQueue');
  });
});
