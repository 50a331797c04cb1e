/**
 * Compact case data -> KueueState, for the fair-sharing cases translated from Kueue's tests.
 * A case names its ClusterQueues and Cohorts once (parent by name, quota per
 * flavor-resource), and its workloads by queue and usage; children are listed in the order
 * the case declares them. Kueue's defaults apply: weight 1, preemption Never everywhere.
 */
import type { FairPreemptionStrategy, FlavorResource, KueuePreemptionPolicy, KueueQuotaNode, KueueResourceQuota, KueueState, KueueWorkload } from '../../../../../src/rules/kueue/kueue-state.js';

export interface NodeSpec {
  name: string;
  /** ClusterQueue unless said. */
  kind?: 'Cohort';
  parent?: string;
  weight?: number;
  /** Per flavor-resource: the nominal quota, or the full ResourceQuota. */
  quota?: Record<FlavorResource, number | KueueResourceQuota>;
  preemption?: Partial<KueuePreemptionPolicy>;
}

export interface WorkloadSpec {
  name: string;
  cq: string;
  usage: Record<FlavorResource, number>;
  priority?: number;
  /** ms; Kueue's cases reserve every workload at one instant, so the default is 0 for all. */
  admittedAt?: number;
  createdAt?: number;
  evicted?: boolean;
}

export function workload(w: WorkloadSpec): KueueWorkload {
  return {
    name: w.name,
    clusterQueue: w.cq,
    priority: w.priority ?? 0,
    createdAt: w.createdAt ?? 0,
    admittedAt: w.admittedAt ?? 0,
    evicted: w.evicted ?? false,
    usage: new Map(Object.entries(w.usage)),
  };
}

export function buildState(nodes: readonly NodeSpec[], workloads: readonly WorkloadSpec[] = [], strategies?: readonly FairPreemptionStrategy[]): KueueState {
  const map = new Map<string, KueueQuotaNode>();
  for (const n of nodes) {
    const quota = new Map<FlavorResource, KueueResourceQuota>();
    for (const [fr, q] of Object.entries(n.quota ?? {})) quota.set(fr, typeof q === 'number' ? { nominal: q } : q);
    const isQueue = n.kind !== 'Cohort';
    map.set(n.name, {
      name: n.name,
      kind: isQueue ? 'ClusterQueue' : 'Cohort',
      parent: n.parent ?? null,
      children: nodes.filter((c) => c.parent === n.name).map((c) => c.name),
      quota,
      weight: n.weight ?? 1,
      ...(isQueue
        ? {
            preemption: {
              withinClusterQueue: n.preemption?.withinClusterQueue ?? 'Never',
              reclaimWithinCohort: n.preemption?.reclaimWithinCohort ?? 'Never',
              borrowWithinCohort: n.preemption?.borrowWithinCohort ?? { policy: 'Never' },
            },
          }
        : {}),
    });
  }
  return { nodes: map, workloads: workloads.map(workload), ...(strategies ? { fairSharing: { strategies } } : {}) };
}
