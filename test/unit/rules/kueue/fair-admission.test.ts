/**
 * Admission order under fair sharing (src/rules/kueue/fair-admission.ts, SEMANTICS 13):
 * the tournament of Kueue's fair_sharing_iterator.go, each rule of its comparison pinned by a
 * case where it alone decides.
 */
import { describe, expect, it } from 'vitest';
import { fairAdmissionOrder } from '../../../../src/rules/kueue/fair-admission.js';
import { buildState, workload, type NodeSpec, type WorkloadSpec } from './fair-cases/build-state.js';

const G = 'a100/gpu';
const cq = (name: string, parent: string | undefined, gpus: number, weight = 1): NodeSpec => ({ name, ...(parent ? { parent } : {}), weight, quota: { [G]: gpus } });
const wl = (name: string, queue: string, gpus: number, more: Partial<WorkloadSpec> = {}): WorkloadSpec => ({ name, cq: queue, usage: { [G]: gpus }, ...more });

function order(nodes: NodeSpec[], running: WorkloadSpec[], heads: WorkloadSpec[]): string[] {
  return fairAdmissionOrder(buildState(nodes, running), heads.map(workload)).order.map((w) => w.name);
}

/** Cohort all (no quota of its own) over a, b (3 each) and an idle lender (6): 12 lendable. */
const FLAT = [{ name: 'all', kind: 'Cohort' as const }, cq('a', 'all', 3), cq('b', 'all', 3), cq('lender', 'all', 6)];

describe('the fair-sharing tournament', () => {
  it('lowest share after admission first: b (1 over) before a (2 over)', () => {
    expect(order(FLAT, [wl('a1', 'a', 4), wl('b1', 'b', 3)], [wl('a-head', 'a', 1), wl('b-head', 'b', 1)])).toEqual(['b-head', 'a-head']);
  });

  it('a head that does not borrow on what it requests goes first, even with the higher share', () => {
    // a borrows 4 on f1, so its share (4 of 21 lendable) is above b's (1 of 21); but a's head
    // asks for f0, where a stays within nominal, and b's head makes b borrow on f0.
    const nodes = [
      { name: 'all', kind: 'Cohort' as const },
      { name: 'a', parent: 'all', quota: { 'f0/gpu': 3, 'f1/gpu': 0 } },
      { name: 'b', parent: 'all', quota: { 'f0/gpu': 3, 'f1/gpu': 3 } },
      { name: 'lender', parent: 'all', quota: { 'f0/gpu': 6, 'f1/gpu': 6 } },
    ];
    const running: WorkloadSpec[] = [
      { name: 'a1', cq: 'a', usage: { 'f1/gpu': 4 } },
      { name: 'b1', cq: 'b', usage: { 'f0/gpu': 3 } },
    ];
    const heads: WorkloadSpec[] = [
      { name: 'b-head', cq: 'b', usage: { 'f0/gpu': 1 } },
      { name: 'a-head', cq: 'a', usage: { 'f0/gpu': 1 } },
    ];
    expect(order(nodes, running, heads)).toEqual(['a-head', 'b-head']);
  });

  it('equal shares: higher priority first, then earlier creation', () => {
    expect(order(FLAT, [], [wl('a-head', 'a', 4, { priority: 1 }), wl('b-head', 'b', 4, { priority: 5 })])).toEqual(['b-head', 'a-head']);
    expect(order(FLAT, [], [wl('a-head', 'a', 4, { createdAt: 20 }), wl('b-head', 'b', 4, { createdAt: 10 })])).toEqual(['b-head', 'a-head']);
  });

  it('weight divides the share: a of weight 3 borrowing 2 goes before b of weight 1 borrowing 1', () => {
    const nodes = [{ name: 'all', kind: 'Cohort' as const }, cq('a', 'all', 3, 3), cq('b', 'all', 3), cq('lender', 'all', 6)];
    expect(order(nodes, [], [wl('a-head', 'a', 5), wl('b-head', 'b', 4)])).toEqual(['a-head', 'b-head']);
  });

  it('a borrowing queue of weight 0 goes last; two of them by how much they borrow', () => {
    const nodes = [{ name: 'all', kind: 'Cohort' as const }, cq('a', 'all', 3, 0), cq('b', 'all', 3, 0), cq('c', 'all', 3), cq('lender', 'all', 6)];
    expect(order(nodes, [], [wl('a-head', 'a', 5), wl('b-head', 'b', 4), wl('c-head', 'c', 9)])).toEqual(['c-head', 'b-head', 'a-head']);
  });

  it('hierarchical: each Cohort compares its children, the sub-Cohort by its own share', () => {
    // root (8 of its own) over left [x 2, y 2] and z 2. x and z run 2, y runs 3. Each head is
    // measured alone: x-head puts left 2 over its 4, z-head puts z 1 over, so z wins at root;
    // inside left, x-head (x 1 over) beats y-head (y 2 over).
    const nodes = [{ name: 'root', kind: 'Cohort' as const, quota: { [G]: 8 } }, { name: 'left', kind: 'Cohort' as const, parent: 'root' }, cq('x', 'left', 2), cq('y', 'left', 2), cq('z', 'root', 2)];
    const running = [wl('x1', 'x', 2), wl('y1', 'y', 3), wl('z1', 'z', 2)];
    const got = fairAdmissionOrder(buildState(nodes, running), [wl('x-head', 'x', 1), wl('y-head', 'y', 1), wl('z-head', 'z', 1)].map(workload));
    expect(got.order.map((w) => w.name)).toEqual(['z-head', 'x-head', 'y-head']);
    const at = (w: string, c: string) => got.shares.find((s) => s.workload === w && s.cohort === c)!.share.node;
    expect([at('x-head', 'left'), at('x-head', 'root'), at('z-head', 'root')]).toEqual(['x', 'left', 'z']);
  });

  it('a queue in no cohort is offered as it comes', () => {
    const nodes = [cq('solo', undefined, 2), ...FLAT];
    expect(order(nodes, [wl('a1', 'a', 4)], [wl('solo-head', 'solo', 1), wl('a-head', 'a', 1), wl('b-head', 'b', 1)])).toEqual(['solo-head', 'b-head', 'a-head']);
  });
});
