/**
 * The share (src/rules/kueue/fair-share.ts) against Kueue's own numbers: its
 * TestDominantResourceShare, TestIsBorrowingOn and TestPreciseWeightedShareSerialized cases
 * (pkg/cache/scheduler/fair_sharing_test.go at ff69552), translated in fair-cases/, and the
 * order of shares that preemption and admission rely on.
 */
import { describe, expect, it } from 'vitest';
import { compareShares, dominantResourceShare, fairShares, isBorrowingOn, resourceOf, roundedShare, weightedShare, type FairShare } from '../../../../src/rules/kueue/fair-share.js';
import { KueueQuotaTree } from '../../../../src/rules/kueue/quota-math.js';
import { buildState } from './fair-cases/build-state.js';
import { DOMINANT_RESOURCE_SHARE_CASES, IS_BORROWING_ON_CASES, IS_BORROWING_ON_NODES } from './fair-cases/dominant-resource-share.js';

const share = (ratio: number, weight: number): FairShare => ({ node: 'q', weight, borrowing: ratio !== 0, borrowedOn: [], ratio, dominantResource: ratio ? 'cpu' : null });

describe("Kueue's dominant resource share cases", () => {
  it.each(DOMINANT_RESOURCE_SHARE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const state = buildState(c.nodes, [{ name: 'usage', cq: 'cq', usage: c.usage }]);
    const ledger = KueueQuotaTree.of(state).ledger();
    const request = new Map(Object.entries(c.request ?? {}));
    const got = c.want.map((w) => {
      const s = dominantResourceShare(ledger, w.node, request);
      return { node: w.node, value: roundedShare(s), resource: s.dominantResource, borrowing: s.borrowing };
    });
    expect(got).toEqual(c.want);
    expect(c.want.map((w) => w.node).sort()).toEqual([...state.nodes.keys()].sort());
  });

  it('translates every case of TestDominantResourceShare (16)', () => {
    expect(DOMINANT_RESOURCE_SHARE_CASES).toHaveLength(16);
  });
});

describe("Kueue's IsBorrowingOn cases", () => {
  it.each(IS_BORROWING_ON_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const state = buildState(IS_BORROWING_ON_NODES, [{ name: 'usage', cq: 'cq', usage: c.usage }]);
    const s = dominantResourceShare(KueueQuotaTree.of(state).ledger(), 'cq');
    expect({ borrowing: s.borrowing, on: isBorrowingOn(s, c.requested) }).toEqual({ borrowing: c.borrowing, on: c.borrowingOnRequested });
  });
});

describe('weighted share', () => {
  // TestPreciseWeightedShareSerialized
  it.each([
    ['zero weight returning Inf', 100, 0, Infinity],
    ['zero unweighted ratio returns 0', 0, 1, 0],
    ['regular integer division', 400, 2, 200],
    ['decimal division', 10, 4, 2.5],
  ] as const)('TestPreciseWeightedShareSerialized/%s', (_name, ratio, weight, want) => {
    expect(weightedShare(share(ratio, weight))).toBe(want);
  });

  it('a node not borrowing has share 0 even at weight 0', () => {
    expect(weightedShare(share(0, 0))).toBe(0);
    expect(compareShares(share(0, 0), share(1, 1))).toBeLessThan(0);
  });

  it('an infinite share is above every finite one, and two infinite shares compare by ratio', () => {
    expect(compareShares(share(1, 0), share(1e9, 0.001))).toBe(1);
    expect(compareShares(share(1e9, 0.001), share(1, 0))).toBe(-1);
    expect(compareShares(share(200, 0), share(100, 0))).toBe(1);
    expect(compareShares(share(100, 0), share(100, 0))).toBe(0);
  });

  it('weight divides: 200 at weight 2 equals 100 at weight 1', () => {
    expect(compareShares(share(200, 2), share(100, 1))).toBe(0);
    expect(roundedShare(share(200, 3))).toBe(67);
  });

  it('the resource of a key keeps any slash of the resource name', () => {
    expect(resourceOf('a100/nvidia.com/gpu')).toBe('nvidia.com/gpu');
  });

  it('fairShares gives every node of the state, roots at 0', () => {
    const c = DOMINANT_RESOURCE_SHARE_CASES.find((x) => x.name.endsWith('/cohort has resource share'))!;
    const shares = fairShares(buildState(c.nodes, [{ name: 'u', cq: 'cq', usage: c.usage }]));
    expect([...shares].map(([n, s]) => [n, roundedShare(s)])).toEqual([
      ['root', 0],
      ['child-cohort', 50],
      ['cq', 100],
    ]);
  });
});
