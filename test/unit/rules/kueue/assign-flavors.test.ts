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

describe('assignFlavors under fair sharing', () => {
  // Cohort c of P, T and R, 2, 2 and 4 GPUs of flavor f nominal (8 in all). T runs four
  // 2-GPU workloads (8: it borrows 6, R lends all), so P can take nothing now. P asks 4,
  // which would borrow 2: classic preemption may not take from the cohort while the
  // preemptor borrows without borrowWithinCohort (Never here), so its oracle finds no
  // candidates. Fair sharing ignores borrowWithinCohort: P after (2 of 8: 250) is not above
  // T without one workload (4 of 8: 500) by LessThanOrEqualToFinalShare, and below T's
  // initial 750 by LessThanInitialShare for the second, so Kueue's oracle, which asks the
  // preemption the scheduler will run (fair when enabled), says Preempt.
  const src = { file: 't', line: 1, column: 1, path: '' };
  const q = (n: number) => new Map([['f/nvidia.com/gpu', { nominal: n }]]);
  const never = { withinClusterQueue: 'Never', reclaimWithinCohort: 'Any', borrowWithinCohort: { policy: 'Never' } } as const;
  const nodes = new Map([
    ['c', { name: 'c', kind: 'Cohort' as const, parent: null, children: ['P', 'T', 'R'], quota: new Map(), weight: 1 }],
    ['P', { name: 'P', kind: 'ClusterQueue' as const, parent: 'c', children: [], quota: q(2), weight: 1, preemption: never }],
    ['T', { name: 'T', kind: 'ClusterQueue' as const, parent: 'c', children: [], quota: q(2), weight: 1, preemption: never }],
    ['R', { name: 'R', kind: 'ClusterQueue' as const, parent: 'c', children: [], quota: q(4), weight: 1, preemption: never }],
  ]);
  const workloads = [0, 1, 2, 3].map((i) => ({ name: `t${i}`, clusterQueue: 'T', priority: 0, createdAt: i, admittedAt: i, evicted: false, usage: new Map([['f/nvidia.com/gpu', 2]]) }));
  const classic = { nodes, workloads };
  const fair = { ...classic, fairSharing: { strategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] as const } };
  const clauses: KueueQuotaClauses = {
    kind: 'ClusterQueue',
    resourceGroups: [{ coveredResources: ['nvidia.com/gpu'], flavors: [{ name: 'f', resources: [{ name: 'nvidia.com/gpu', nominalQuota: 2, src }], src }], src }],
    preemption: { ...never, src },
    flavorFungibility: { whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'MayStopSearch', src },
  };
  const fl = new Map([['f', { name: 'f', nodeLabels: {}, nodeTaints: [], src }]]);
  const ask = (s: typeof classic) => assignFlavors(s, 'P', clauses, fl, new Map([['nvidia.com/gpu', 4]]), me).groups[0]!.tried.map((t) => t.mode);

  it('asks fair preemption for a flavor whose quota it must borrow, as Kueue does: Preempt where classic finds no candidates', () => {
    expect(ask(classic)).toEqual(['NoCandidates']);
    expect(ask(fair)).toEqual(['Preempt']);
  });
});
