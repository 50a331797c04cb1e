/**
 * The state Kueue's rules decide on (SEMANTICS 12, 13), as plain data: quotas per
 * flavor and resource, the cohort tree, and the admitted workloads with what they use.
 *
 * This is the one contract between the policy side (which builds it from a policy whose
 * QuotaTree follows Kueue's rules, and the Cluster snapshot) and Kueue's algorithms in this
 * folder (classic preemption, fair sharing, flavor assignment). Kueue decides admission and
 * preemption on quota alone; which nodes the pods land on is the kernel's question, asked
 * after these algorithms answered.
 *
 * Amounts are in Quotient's units (model/resources.ts): GPUs as a count, cpu in millicores,
 * memory in MiB, any other resource as the integer Kubernetes counts.
 */

/** A flavor-resource key: `${flavor}/${resource}`, e.g. `a100/nvidia.com/gpu`, `default/cpu`. */
export type FlavorResource = string;

/** The flavor-resource key of a flavor and a resource (the one place the key is spelled). */
export function flavorResource(flavor: string, resource: string): FlavorResource {
  return `${flavor}/${resource}`;
}

/** Kueue's ResourceQuota for one flavor and resource of a ClusterQueue or Cohort. */
export interface KueueResourceQuota {
  nominal: number;
  /** How much above nominal the node may borrow from its cohort; undefined = no limit. */
  borrowingLimit?: number;
  /** How much of nominal the node may lend to its cohort; undefined = all of it. */
  lendingLimit?: number;
}

export const WITHIN_CLUSTER_QUEUE = ['Never', 'LowerPriority', 'LowerOrNewerEqualPriority'] as const;
export type WithinClusterQueue = (typeof WITHIN_CLUSTER_QUEUE)[number];
export const RECLAIM_WITHIN_COHORT = ['Never', 'LowerPriority', 'Any'] as const;
export type ReclaimWithinCohort = (typeof RECLAIM_WITHIN_COHORT)[number];
export const BORROW_WITHIN_COHORT = ['Never', 'LowerPriority'] as const;
export type BorrowWithinCohortPolicy = (typeof BORROW_WITHIN_COHORT)[number];

/** A ClusterQueue's `spec.preemption`, Kueue's defaults filled in (Never, Never, Never). */
export interface KueuePreemptionPolicy {
  withinClusterQueue: WithinClusterQueue;
  reclaimWithinCohort: ReclaimWithinCohort;
  borrowWithinCohort: { policy: BorrowWithinCohortPolicy; maxPriorityThreshold?: number };
}

/** A node of the cohort tree: a ClusterQueue (a leaf) or a Cohort. */
export interface KueueQuotaNode {
  name: string;
  kind: 'ClusterQueue' | 'Cohort';
  /** The parent Cohort's name; null for a root (a ClusterQueue with no cohort is its own root). */
  parent: string | null;
  /** Children's names, ClusterQueues and Cohorts, in the policy's order. */
  children: readonly string[];
  /** The node's own quota per flavor-resource (a Cohort's own, not its subtree's). */
  quota: ReadonlyMap<FlavorResource, KueueResourceQuota>;
  /** Fair sharing weight (SEMANTICS 13); 1 when not given; 0 allowed. */
  weight: number;
  /** ClusterQueues only. */
  preemption?: KueuePreemptionPolicy;
}

/** An admitted workload (it holds quota): a running job of the snapshot. */
export interface KueueWorkload {
  /** The job's name in the snapshot (unique). */
  name: string;
  clusterQueue: string;
  /** Kueue's priority: any int32, compared as a number. */
  priority: number;
  /** metadata.creationTimestamp, ms since the epoch. */
  createdAt: number;
  /** When quota was reserved (Kueue's QuotaReserved condition), ms; "most recently admitted" orders by it. */
  admittedAt: number;
  /** Already being evicted (Kueue orders such candidates first). */
  evicted: boolean;
  /** What it holds, per flavor-resource (sums over its pod sets with their assigned flavors). */
  usage: ReadonlyMap<FlavorResource, number>;
}

/** Fair sharing as the policy enables it (SEMANTICS 13). */
export const FAIR_PREEMPTION_STRATEGIES = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] as const;
export type FairPreemptionStrategy = (typeof FAIR_PREEMPTION_STRATEGIES)[number];

/** The whole state one answer is decided on. */
export interface KueueState {
  nodes: ReadonlyMap<string, KueueQuotaNode>;
  workloads: readonly KueueWorkload[];
  /** Present when fair sharing is enabled; then borrowWithinCohort is ignored (as in Kueue). */
  fairSharing?: { strategies: readonly FairPreemptionStrategy[] };
}

/** The workload asking to be admitted, with the flavors already assigned to its pod sets. */
export interface KueuePreemptor {
  workload: KueueWorkload;
}

/** Kueue's reason for evicting a victim (the Preempted condition's reason). */
export const KUEUE_PREEMPTION_REASONS = ['InClusterQueue', 'InCohortReclamation', 'InCohortReclaimWhileBorrowing', 'InCohortFairSharing'] as const;
export type KueuePreemptionReason = (typeof KUEUE_PREEMPTION_REASONS)[number];

/** One victim as Kueue's algorithm chose it. */
export interface KueueTarget {
  workload: string;
  reason: KueuePreemptionReason;
  /** For InCohortFairSharing: the two shares compared and the strategy that allowed it. */
  fairness?: { strategy: FairPreemptionStrategy; preemptorShare: number; targetShare: number; targetQueue: string };
}
