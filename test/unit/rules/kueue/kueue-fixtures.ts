/**
 * Small builders for KueueState in unit tests: quotas as `{ 'flavor/resource': [nominal,
 * borrowingLimit?, lendingLimit?] }` (null = not set), children derived from parents.
 */
import type { KueuePreemptionPolicy, KueueQuotaNode, KueueResourceQuota, KueueState, KueueWorkload } from '../../../../src/rules/kueue/kueue-state.js';

export type QuotaSpec = Record<string, readonly [number, (number | null)?, (number | null)?]>;

export interface NodeSpec {
  name: string;
  kind: 'ClusterQueue' | 'Cohort';
  parent?: string | null;
  quota?: QuotaSpec;
  preemption?: Partial<KueuePreemptionPolicy>;
  weight?: number;
}

export interface WorkloadSpec {
  name: string;
  clusterQueue: string;
  usage: Record<string, number>;
  priority?: number;
  createdAt?: number;
  admittedAt?: number;
  evicted?: boolean;
}

function quotaMap(spec: QuotaSpec | undefined): Map<string, KueueResourceQuota> {
  const out = new Map<string, KueueResourceQuota>();
  for (const [fr, [nominal, borrowingLimit, lendingLimit]] of Object.entries(spec ?? {})) {
    const q: KueueResourceQuota = { nominal };
    if (borrowingLimit !== undefined && borrowingLimit !== null) q.borrowingLimit = borrowingLimit;
    if (lendingLimit !== undefined && lendingLimit !== null) q.lendingLimit = lendingLimit;
    out.set(fr, q);
  }
  return out;
}

export function workload(w: WorkloadSpec): KueueWorkload {
  return {
    name: w.name,
    clusterQueue: w.clusterQueue,
    priority: w.priority ?? 0,
    createdAt: w.createdAt ?? 0,
    admittedAt: w.admittedAt ?? 0,
    evicted: w.evicted ?? false,
    usage: new Map(Object.entries(w.usage)),
  };
}

export function kueueState(nodes: readonly NodeSpec[], workloads: readonly WorkloadSpec[]): KueueState {
  const map = new Map<string, KueueQuotaNode>();
  for (const n of nodes) {
    const node: KueueQuotaNode = {
      name: n.name,
      kind: n.kind,
      parent: n.parent ?? null,
      children: nodes.filter((c) => c.parent === n.name).map((c) => c.name),
      quota: quotaMap(n.quota),
      weight: n.weight ?? 1,
    };
    if (n.kind === 'ClusterQueue') {
      node.preemption = {
        withinClusterQueue: n.preemption?.withinClusterQueue ?? 'Never',
        reclaimWithinCohort: n.preemption?.reclaimWithinCohort ?? 'Never',
        borrowWithinCohort: n.preemption?.borrowWithinCohort ?? { policy: 'Never' },
      };
    }
    map.set(n.name, node);
  }
  return { nodes: map, workloads: workloads.map(workload) };
}
