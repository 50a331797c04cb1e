/**
 * Fair-sharing preemption (src/rules/kueue/fair-preemption.ts) against Kueue's
 * TestFairPreemptions (pkg/scheduler/preemption/preemption_fair_test.go at ff69552), every
 * case translated in fair-cases/test-fair-preemptions.ts and named "<Kueue test>/<case>",
 * plus the shares and strategy each fairness victim cites.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAIR_STRATEGIES, fairPreemption, fairSummary, strategyHolds } from '../../../../src/rules/kueue/fair-preemption.js';
import type { FairShare } from '../../../../src/rules/kueue/fair-share.js';
import { buildState, workload } from './fair-cases/build-state.js';
import { TEST_FAIR_PREEMPTIONS, type FairCase } from './fair-cases/test-fair-preemptions.js';

function run(c: FairCase) {
  const state = buildState(c.nodes, c.admitted, c.strategies ?? DEFAULT_FAIR_STRATEGIES);
  return fairPreemption(state, { workload: workload(c.incoming) });
}

const key = ([w, r]: readonly [string, string]): string => `${w} ${r}`;

describe("Kueue's TestFairPreemptions", () => {
  it.each(TEST_FAIR_PREEMPTIONS.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = run(c).targets.map((t) => key([t.workload, t.reason]));
    expect(got.sort()).toEqual(c.want.map(key).sort());
  });

  it('translates all 35 cases of TestFairPreemptions, each named once', () => {
    const names = TEST_FAIR_PREEMPTIONS.map((c) => c.name);
    expect(new Set(names).size).toBe(35);
    expect(names.every((n) => n.startsWith('TestFairPreemptions/'))).toBe(true);
  });
});

describe('what a fairness victim cites', () => {
  const byName = (suffix: string): FairCase => TEST_FAIR_PREEMPTIONS.find((c) => c.name.endsWith(`/${suffix}`))!;

  it('reclaim borrowable quota: a with W at 1/9 of the cohort against b after losing b1, also 1/9 (LessThanOrEqualToFinalShare)', () => {
    const [t] = run(byName('reclaim borrowable quota from user using the most')).targets;
    expect(t!.fairness).toEqual({ strategy: 'LessThanOrEqualToFinalShare', preemptorShare: 1000 / 9, targetShare: 1000 / 9, targetQueue: 'b' });
  });

  it('victims of the second strategy cite LessThanInitialShare and the target share before eviction', () => {
    // y1 fails LessThanOrEqualToFinalShare (p with W at 1000/6 against y at 0 after losing it) and
    // x's candidates are skipped (A borrows at weight 0); the second strategy takes y1, then x1.
    const targets = run(byName('candidates skipped by the first strategy are still available to the second strategy')).targets;
    const x1 = targets.find((t) => t.workload === 'x1')!;
    expect(x1.fairness?.strategy).toBe('LessThanInitialShare');
    expect(x1.fairness?.targetQueue).toBe('x');
    expect(x1.fairness!.preemptorShare).toBeLessThan(x1.fairness!.targetShare);
    const y1 = targets.find((t) => t.workload === 'y1')!;
    expect(y1.fairness).toEqual({ strategy: 'LessThanInitialShare', preemptorShare: 1000 / 6, targetShare: 2000 / 6, targetQueue: 'y' });
  });

  it('hierarchical: shares are compared at the children of the lowest common ancestor', () => {
    const targets = run(byName('hierarchical preemption')).targets;
    expect(targets.find((t) => t.workload === 'b1')!.fairness?.targetQueue).toBe('b');
    expect(targets.find((t) => t.workload === 'c1')!.fairness?.targetQueue).toBe('c');
    expect(targets.find((t) => t.workload === 'e1')!.fairness?.targetQueue).toBe('RIGHT');
  });

  it('victims taken within nominal or within the queue cite no shares', () => {
    for (const t of [...run(byName('preempt one from each CQ borrowing')).targets, ...run(byName('can preempt lower priority workloads from same CQ')).targets]) {
      expect(t.fairness).toBeUndefined();
    }
  });
});

describe('the strategies', () => {
  const s = (ratio: number): FairShare => ({ node: 'q', weight: 1, borrowing: ratio > 0, borrowedOn: [], ratio, dominantResource: ratio ? 'cpu' : null });
  it('LessThanOrEqualToFinalShare compares with the target after eviction, equality allowed', () => {
    expect(strategyHolds('LessThanOrEqualToFinalShare', s(100), s(300), s(100))).toBe(true);
    expect(strategyHolds('LessThanOrEqualToFinalShare', s(100), s(300), s(99))).toBe(false);
  });
  it('LessThanInitialShare compares with the target before eviction, strictly', () => {
    expect(strategyHolds('LessThanInitialShare', s(100), s(101), s(0))).toBe(true);
    expect(strategyHolds('LessThanInitialShare', s(100), s(100), s(0))).toBe(false);
  });
  it('with no strategies configured, Kueue applies both, LessThanOrEqualToFinalShare first', () => {
    expect(DEFAULT_FAIR_STRATEGIES).toEqual(['LessThanOrEqualToFinalShare', 'LessThanInitialShare']);
  });
});

describe('the answer in words', () => {
  const byName = (suffix: string): FairCase => TEST_FAIR_PREEMPTIONS.find((c) => c.name.endsWith(`/${suffix}`))!;

  it('names the algorithm, each victim, the strategy and both shares', () => {
    expect(fairSummary(run(byName('reclaim borrowable quota from user using the most')))).toBe(
      'kueue-fair-sharing: 1 victim of 5 candidates: b1 (InCohortFairSharing: LessThanOrEqualToFinalShare, share 111.11 after admission against b at 111.11)',
    );
  });

  it('says an infinite share in words', () => {
    expect(fairSummary(run(byName('can preempt anything borrowing from CQ with 0 weight')))).toContain('against b at infinite');
  });

  it('says why there is no victim: no candidate, or not enough', () => {
    expect(fairSummary(run(byName("can't preempt when everyone under nominal")))).toBe(
      'kueue-fair-sharing: no victims; no candidate: no workload of c using the contested flavor-resources is allowed by withinClusterQueue: LowerPriority, and no workload of a ClusterQueue borrowing them is allowed by reclaimWithinCohort: Any',
    );
    expect(run(byName("can't preempt when it would switch the imbalance")).why).toMatch(/^no way to fit a_incoming in a: .*LessThanOrEqualToFinalShare then LessThanInitialShare/);
  });
});

describe('the worked example of docs/fair-sharing.md', () => {
  const G = 'a100/nvidia.com/gpu';
  const any = { reclaimWithinCohort: 'Any' as const };
  const nodes = [
    { name: 'org', kind: 'Cohort' as const },
    { name: 'research', parent: 'org', weight: 2, quota: { [G]: 6 }, preemption: any },
    { name: 'vision', parent: 'org', quota: { [G]: 6 }, preemption: any },
    { name: 'nlp', parent: 'org', quota: { [G]: 6 }, preemption: any },
  ];
  const running = [
    { name: 'v-train', cq: 'vision', usage: { [G]: 4 }, admittedAt: 1 },
    { name: 'v-eval', cq: 'vision', usage: { [G]: 2 }, admittedAt: 2 },
    { name: 'v-sweep', cq: 'vision', usage: { [G]: 4 }, admittedAt: 3 },
    { name: 'n-ft', cq: 'nlp', usage: { [G]: 4 }, admittedAt: 4 },
    { name: 'r-run', cq: 'research', usage: { [G]: 4 }, admittedAt: 5 },
  ];

  it('evicts v-sweep by LessThanInitialShare, research at 27.8 against vision at 111.1, v-eval returned', () => {
    const r = fairPreemption(buildState(nodes, running, DEFAULT_FAIR_STRATEGIES), { workload: workload({ name: 'r-pretrain', cq: 'research', usage: { [G]: 3 } }) });
    expect(fairSummary(r)).toBe('kueue-fair-sharing: 1 victim of 3 candidates: v-sweep (InCohortFairSharing: LessThanInitialShare, share 27.78 after admission against vision at 111.11)');
    expect(r.returned).toEqual(['v-eval']);
  });
});
