/**
 * Kueue's TestDominantResourceShare (pkg/cache/scheduler/fair_sharing_test.go at ff69552),
 * as data. Amounts in Quotient's units: cpu in millicores (Kueue's "2" cpu is 2000), GPUs
 * as a count. `value` is Kueue's rounded weighted share (status.fairSharing.weightedShare:
 * the precise share rounded up; Infinity where Kueue reports math.MaxInt for a borrowing
 * queue of weight 0). Every case lists every node, as Kueue's does.
 *
 * Left out: none. One case is read with a difference: "borrowing against unlimited
 * lendable capacity" gives the lending queue 1E cpu, which Kueue saturates to MaxInt64;
 * plain numbers hold 1e21 millicores instead, and the rounded share is 1 either way.
 */
import type { FlavorResource } from '../../../../../src/rules/kueue/kueue-state.js';
import type { NodeSpec } from './build-state.js';

const CPU = 'default/cpu';
const GPU = 'default/example.com/gpu';

export interface ShareWant {
  node: string;
  value: number;
  resource: string | null;
  borrowing: boolean;
}

export interface ShareCase {
  name: string;
  nodes: NodeSpec[];
  /** Usage of queue "cq" (Kueue's cases admit every workload there). */
  usage: Record<FlavorResource, number>;
  /** Kueue's flvResQ: a workload's requests added at whichever node is measured. */
  request?: Record<FlavorResource, number>;
  want: ShareWant[];
}

const zero = (node: string): ShareWant => ({ node, value: 0, resource: null, borrowing: false });

/** cq and lending-cq in the implicit cohort test-cohort (a Cohort with no quota of its own). */
function flat(cq: Omit<NodeSpec, 'name' | 'parent'>, lending: Omit<NodeSpec, 'name' | 'parent'>): NodeSpec[] {
  return [
    { name: 'test-cohort', kind: 'Cohort' },
    { name: 'cq', parent: 'test-cohort', ...cq },
    { name: 'lending-cq', parent: 'test-cohort', ...lending },
  ];
}

const SMALL = flat({ quota: { [CPU]: 2000, [GPU]: 5 } }, { quota: { [CPU]: 8000, [GPU]: 5 } });

export const DOMINANT_RESOURCE_SHARE_CASES: ShareCase[] = [
  {
    name: 'TestDominantResourceShare/no cohort',
    nodes: [{ name: 'cq', quota: { [CPU]: 2000, [GPU]: 5 } }],
    usage: { [CPU]: 1000, [GPU]: 2 },
    want: [zero('cq')],
  },
  {
    name: 'TestDominantResourceShare/usage below nominal',
    nodes: SMALL,
    usage: { [CPU]: 1000, [GPU]: 2 },
    want: [zero('cq'), zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/usage above nominal',
    nodes: SMALL,
    usage: { [CPU]: 3000, [GPU]: 7 },
    // (7-5)*1000/10
    want: [{ node: 'cq', value: 200, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/usage slightly above nominal in a cohort with large quotas',
    nodes: flat({ quota: { [GPU]: 500 } }, { weight: 300, quota: { [GPU]: 1000 } }),
    usage: { [GPU]: 501 },
    want: [{ node: 'cq', value: 1, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/usage way above nominal in a cohort with large quotas and weights',
    nodes: flat({ weight: 300, quota: { [GPU]: 500 } }, { weight: 300, quota: { [GPU]: 1000 } }),
    usage: { [GPU]: 800 },
    want: [{ node: 'cq', value: 1, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/one resource above nominal',
    nodes: SMALL,
    usage: { [CPU]: 3000, [GPU]: 3 },
    // (3-2)*1000/10
    want: [{ node: 'cq', value: 100, resource: 'cpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/usage with workload above nominal',
    nodes: SMALL,
    usage: { [CPU]: 1000, [GPU]: 2 },
    request: { [CPU]: 4000, [GPU]: 4 },
    // (1+4-2)*1000/10
    want: [{ node: 'cq', value: 300, resource: 'cpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/A resource with zero lendable',
    nodes: flat({ quota: { [CPU]: 2000, [GPU]: { nominal: 2, lendingLimit: 0 } } }, { quota: { [CPU]: 8000, [GPU]: { nominal: 64, lendingLimit: 0 } } }),
    usage: { [CPU]: 1000, [GPU]: 1 },
    request: { [CPU]: 4000, [GPU]: 4 },
    want: [{ node: 'cq', value: 300, resource: 'cpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/multiple flavors',
    nodes: flat({ quota: { 'on-demand/cpu': 20000, 'spot/cpu': 80000 } }, { quota: { [CPU]: 100000 } }),
    usage: { 'on-demand/cpu': 15000, 'spot/cpu': 5000 },
    request: { 'on-demand/cpu': 10000 },
    // ((15+10-20)+0)*1000/200 (spot under nominal)
    want: [{ node: 'cq', value: 25, resource: 'cpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/above nominal with integer weight',
    nodes: flat({ weight: 2, quota: { [GPU]: 5 } }, { quota: { [GPU]: 5 } }),
    usage: { [GPU]: 7 },
    want: [{ node: 'cq', value: 100, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/above nominal with decimal weight',
    nodes: flat({ weight: 0.5, quota: { [GPU]: 5 } }, { quota: { [GPU]: 5 } }),
    usage: { [GPU]: 7 },
    want: [{ node: 'cq', value: 400, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/above nominal with zero weight',
    nodes: flat({ weight: 0, quota: { [GPU]: 5 } }, { quota: { [GPU]: 10 } }),
    usage: { [GPU]: 7 },
    want: [{ node: 'cq', value: Infinity, resource: 'example.com/gpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
  {
    name: 'TestDominantResourceShare/cohort has resource share',
    nodes: [
      { name: 'root', kind: 'Cohort', quota: { [GPU]: 45 } },
      { name: 'child-cohort', kind: 'Cohort', parent: 'root', weight: 2 },
      { name: 'cq', parent: 'child-cohort', quota: { [GPU]: 5 } },
    ],
    usage: { [GPU]: 10 },
    want: [{ node: 'cq', value: 100, resource: 'example.com/gpu', borrowing: true }, { node: 'child-cohort', value: 50, resource: 'example.com/gpu', borrowing: true }, zero('root')],
  },
  {
    name: 'TestDominantResourceShare/resource share defined for resources only available at the root cohort',
    nodes: [
      { name: 'root', kind: 'Cohort', quota: { [GPU]: 50 } },
      { name: 'child-cohort', kind: 'Cohort', parent: 'root', weight: 2 },
      { name: 'cq', parent: 'child-cohort', quota: { [GPU]: 0 } },
    ],
    usage: { [GPU]: 10 },
    want: [{ node: 'cq', value: 200, resource: 'example.com/gpu', borrowing: true }, { node: 'child-cohort', value: 100, resource: 'example.com/gpu', borrowing: true }, zero('root')],
  },
  {
    name: 'TestDominantResourceShare/resource share affected by borrowing limit',
    nodes: [
      { name: 'root', kind: 'Cohort', quota: { [GPU]: 50 } },
      { name: 'child-cohort', kind: 'Cohort', parent: 'root', quota: { [GPU]: { nominal: 0, borrowingLimit: 10 } } },
      { name: 'cq', parent: 'child-cohort', quota: { [GPU]: 0 } },
    ],
    usage: { [GPU]: 10 },
    // the cohort seen from cq holds 10, seen from child-cohort 50
    want: [{ node: 'cq', value: 1000, resource: 'example.com/gpu', borrowing: true }, { node: 'child-cohort', value: 200, resource: 'example.com/gpu', borrowing: true }, zero('root')],
  },
  {
    name: 'TestDominantResourceShare/borrowing against unlimited lendable capacity (exabyte-scale quota)',
    nodes: flat({ quota: { [CPU]: 0 } }, { quota: { [CPU]: 1e21 } }),
    usage: { [CPU]: 1000 },
    want: [{ node: 'cq', value: 1, resource: 'cpu', borrowing: true }, zero('lending-cq'), zero('test-cohort')],
  },
];

/** Kueue's TestIsBorrowingOn: cq (cpu 2, gpu 5) beside lending-cq (cpu 8, gpu 5). */
export interface BorrowingOnCase {
  name: string;
  usage: Record<FlavorResource, number>;
  requested: FlavorResource[];
  borrowingOnRequested: boolean;
  borrowing: boolean;
}

export const IS_BORROWING_ON_NODES: NodeSpec[] = SMALL;

export const IS_BORROWING_ON_CASES: BorrowingOnCase[] = [
  { name: 'TestIsBorrowingOn/borrows on requested flavor', usage: { [CPU]: 3000 }, requested: [CPU], borrowingOnRequested: true, borrowing: true },
  { name: 'TestIsBorrowingOn/borrows on unrequested flavor only', usage: { [CPU]: 1000, [GPU]: 7 }, requested: [CPU], borrowingOnRequested: false, borrowing: true },
  { name: 'TestIsBorrowingOn/borrows on both, requests one', usage: { [CPU]: 3000, [GPU]: 7 }, requested: [GPU], borrowingOnRequested: true, borrowing: true },
  { name: 'TestIsBorrowingOn/no borrowing', usage: { [CPU]: 1000, [GPU]: 2 }, requested: [CPU], borrowingOnRequested: false, borrowing: false },
  { name: 'TestIsBorrowingOn/nil requestedFRs', usage: { [CPU]: 3000 }, requested: [], borrowingOnRequested: false, borrowing: true },
];
