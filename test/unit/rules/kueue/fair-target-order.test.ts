/**
 * The target order of fair-sharing preemption (src/rules/kueue/fair-target-order.ts):
 * Kueue's TestMakeClusterQueueOrdering (pkg/scheduler/preemption/fairsharing/ordering_test.go
 * at ff69552), all 7 cases, and the tie rules SEMANTICS 13 names (a Cohort wins a tie with a
 * ClusterQueue; two queues tie by their first candidates), and the almost-LCAs. The candidate
 * order itself is classic preemption's, tested with it.
 */
import { describe, expect, it } from 'vitest';
import { TargetOrder } from '../../../../src/rules/kueue/fair-target-order.js';
import { KueueQuotaTree } from '../../../../src/rules/kueue/quota-math.js';
import { buildState, type NodeSpec, type WorkloadSpec } from './fair-cases/build-state.js';

const CPU = 'default/cpu';

interface OrderCase {
  name: string;
  nodes: NodeSpec[];
  admitted: WorkloadSpec[];
  preemptor: string;
  candidateQueues: string[];
  /** Per step: 'drop' gives the queue up, anything else takes its next candidate. */
  actions?: string[];
  want: string[];
}

const cq = (name: string, parent: string | undefined, cpu: number, more: Partial<NodeSpec> = {}): NodeSpec => ({ name, ...(parent ? { parent } : {}), quota: { [CPU]: cpu }, ...more });
const wl = (name: string, queue: string, cpu: number, more: Partial<WorkloadSpec> = {}): WorkloadSpec => ({ name, cq: queue, usage: { [CPU]: cpu }, ...more });
const FLAT = [{ name: 'all', kind: 'Cohort' as const }, cq('preemptor', 'all', 4000), cq('high', 'all', 2000), cq('low', 'all', 2000)];
const T = 'TestMakeClusterQueueOrdering/';

const CASES: OrderCase[] = [
  {
    name: `${T}no cohort: preemptor CQ yielded for in-CQ preemption; repro for nil pointer panic issue`,
    nodes: [cq('preemptor', undefined, 4000)],
    admitted: [wl('wl1', 'preemptor', 1000)],
    preemptor: 'preemptor',
    candidateQueues: ['preemptor'],
    want: ['preemptor'],
  },
  {
    name: `${T}no cohort: DropQueue ends the iteration with candidates remaining`,
    nodes: [cq('preemptor', undefined, 4000)],
    admitted: [wl('wl1', 'preemptor', 1000), wl('wl2', 'preemptor', 1000)],
    preemptor: 'preemptor',
    candidateQueues: ['preemptor'],
    actions: ['drop'],
    want: ['preemptor'],
  },
  {
    name: `${T}non-borrowing CQ is pruned even with candidates`,
    nodes: [{ name: 'all', kind: 'Cohort' }, cq('preemptor', 'all', 4000), cq('target', 'all', 5000)],
    admitted: [wl('t1', 'target', 2000)],
    preemptor: 'preemptor',
    candidateQueues: ['target'],
    want: [],
  },
  {
    name: `${T}higher DRS CQ returned before lower DRS CQ`,
    nodes: FLAT,
    admitted: [wl('h1', 'high', 5000), wl('l1', 'low', 3000)],
    preemptor: 'preemptor',
    candidateQueues: ['high', 'low'],
    want: ['high', 'low'],
  },
  {
    name: `${T}CQ with highest DRS returned again while it still has candidates`,
    nodes: FLAT,
    admitted: [wl('h1', 'high', 3000), wl('h2', 'high', 2000), wl('l1', 'low', 3000)],
    preemptor: 'preemptor',
    candidateQueues: ['high', 'low'],
    want: ['high', 'high', 'low'],
  },
  {
    name: `${T}drop queue prevents CQ from being returned again`,
    nodes: FLAT,
    admitted: [wl('h1', 'high', 3000), wl('h2', 'high', 2000), wl('l1', 'low', 3000)],
    preemptor: 'preemptor',
    candidateQueues: ['high', 'low'],
    actions: ['drop', 'pop'],
    want: ['high', 'low'],
  },
  {
    name: `${T}hierarchical cohorts: higher-DRS subtree visited first`,
    nodes: [
      { name: 'root', kind: 'Cohort' },
      { name: 'left-cohort', kind: 'Cohort', parent: 'root' },
      { name: 'right-cohort', kind: 'Cohort', parent: 'root' },
      cq('preemptor-cq', 'root', 4000),
      cq('left-cq', 'left-cohort', 2000),
      cq('right-cq', 'right-cohort', 2000),
    ],
    admitted: [wl('lc1', 'left-cq', 5000), wl('rc1', 'right-cq', 3000)],
    preemptor: 'preemptor-cq',
    candidateQueues: ['left-cq', 'right-cq'],
    want: ['left-cq', 'right-cq'],
  },
  {
    // ours (SEMANTICS 13): the Cohort "team" and the queue "solo" borrow alike (2 of 8 each);
    // the Cohort is entered first, so its queue comes before "solo".
    name: 'a Cohort wins a tie with a ClusterQueue',
    nodes: [{ name: 'root', kind: 'Cohort' }, cq('preemptor', 'root', 4000), cq('solo', 'root', 2000), { name: 'team', kind: 'Cohort', parent: 'root' }, cq('member', 'team', 2000)],
    admitted: [wl('s1', 'solo', 4000), wl('m1', 'member', 4000)],
    preemptor: 'preemptor',
    candidateQueues: ['solo', 'member'],
    want: ['member', 'solo'],
  },
  {
    // Two queues with equal shares: the one whose first candidate Kueue's candidate order puts first (lower priority).
    name: 'two queues tie by their first candidates',
    nodes: FLAT,
    admitted: [wl('h1', 'high', 3000, { priority: 5 }), wl('l1', 'low', 3000, { priority: 1 })],
    preemptor: 'preemptor',
    candidateQueues: ['high', 'low'],
    want: ['low', 'high'],
  },
];

describe('the target order', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const state = buildState(c.nodes, c.admitted);
    const candidates = state.workloads.filter((w) => c.candidateQueues.includes(w.clusterQueue));
    const order = new TargetOrder(KueueQuotaTree.of(state).ledger(), c.preemptor, candidates);
    const got: string[] = [];
    for (let q = order.next(); q !== null && got.length < 50; q = order.next()) {
      if (c.actions?.[got.length] === 'drop') order.drop(q);
      else order.pop(q);
      got.push(q);
    }
    expect(got).toEqual(c.want);
  });

  it('compares at the children of the lowest common ancestor', () => {
    const state = buildState([
      { name: 'root', kind: 'Cohort' },
      { name: 'left', kind: 'Cohort', parent: 'root' },
      { name: 'right', kind: 'Cohort', parent: 'root' },
      cq('p', 'left', 1000),
      cq('sibling', 'left', 1000),
      cq('far', 'right', 1000),
      cq('top', 'root', 1000),
    ]);
    const order = new TargetOrder(KueueQuotaTree.of(state).ledger(), 'p', []);
    expect(order.almostLcas('sibling')).toEqual({ preemptorSide: 'p', targetSide: 'sibling' });
    expect(order.almostLcas('far')).toEqual({ preemptorSide: 'left', targetSide: 'right' });
    expect(order.almostLcas('top')).toEqual({ preemptorSide: 'left', targetSide: 'top' });
  });
});
