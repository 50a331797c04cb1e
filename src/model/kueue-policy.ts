/**
 * The clauses of a QuotaTree that follows Kueue's rules (`spec.rules: kueue`, SEMANTICS 12),
 * as the policy states them: ResourceFlavors, and per quota Kueue's ClusterQueue (or Cohort)
 * spec — resource groups with quota per flavor and resource, the preemption policy, flavor
 * fungibility and the queueing strategy. Plain data with Sources, so answers can cite a line.
 *
 * Amounts are in Quotient's units (model/resources.ts): GPUs as a count, cpu in millicores,
 * memory in MiB, any other resource as the integer Kubernetes counts.
 */
import type { Source } from './source.js';

/** Which rules a QuotaTree's answers follow: PAI's (SEMANTICS 2-5, the default) or Kueue's (SEMANTICS 12). */
export const RULE_SETS = ['pai', 'kueue'] as const;
export type RuleSet = (typeof RULE_SETS)[number];

// The same values as rules/kueue/kueue-state.ts spells them (the model imports nothing of
// the rules layer; test/unit/model/kueue-policy.test.ts checks the two lists agree).
export const KUEUE_WITHIN_CLUSTER_QUEUE = ['Never', 'LowerPriority', 'LowerOrNewerEqualPriority'] as const;
export const KUEUE_RECLAIM_WITHIN_COHORT = ['Never', 'LowerPriority', 'Any'] as const;
export const KUEUE_BORROW_WITHIN_COHORT = ['Never', 'LowerPriority'] as const;
/** Kueue's flavorFungibility.whenCanBorrow: `Borrow` is the deprecated name of `MayStopSearch`. */
export const KUEUE_WHEN_CAN_BORROW = ['MayStopSearch', 'TryNextFlavor', 'Borrow'] as const;
/** Kueue's flavorFungibility.whenCanPreempt: `Preempt` is the deprecated name of `MayStopSearch`. */
export const KUEUE_WHEN_CAN_PREEMPT = ['MayStopSearch', 'TryNextFlavor', 'Preempt'] as const;
export const KUEUE_QUEUEING_STRATEGIES = ['StrictFIFO', 'BestEffortFIFO'] as const;
export const KUEUE_TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
/** Kueue's fair-sharing preemption strategies (SEMANTICS 13). */
export const KUEUE_FAIR_PREEMPTION_STRATEGIES = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] as const;
export type KueueFairPreemptionStrategy = (typeof KUEUE_FAIR_PREEMPTION_STRATEGIES)[number];
/** The strategy lists Kueue's Configuration accepts (pkg/config/validation.go); any other is an error. */
export const KUEUE_FAIR_STRATEGY_LISTS: ReadonlyArray<readonly KueueFairPreemptionStrategy[]> = [
  ['LessThanOrEqualToFinalShare'],
  ['LessThanInitialShare'],
  ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'],
];

/** int32, Kueue's priority range (WorkloadPriorityClass values and pod priorities). */
export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** A node taint a flavor carries (Kueue's ResourceFlavor nodeTaints). */
export interface KueueTaint {
  key: string;
  value?: string;
  effect: (typeof KUEUE_TAINT_EFFECTS)[number];
}

/** A ResourceFlavor: the nodes its pods may use are those whose labels include every nodeLabel. */
export interface KueueFlavor {
  name: string;
  nodeLabels: Record<string, string>;
  nodeTaints: KueueTaint[];
  src: Source;
}

/** One resource of one flavor of a resource group. */
export interface KueueFlavorResource {
  /** Kubernetes' name: `nvidia.com/gpu`, `cpu`, `memory`, `example.com/foo`. */
  name: string;
  nominalQuota: number;
  /** Above nominal this quota may borrow from its cohort; undefined = no limit. */
  borrowingLimit?: number;
  /** Of nominal this quota may lend to its cohort; undefined = all of it. */
  lendingLimit?: number;
  src: Source;
}

/** A resource group: the resources it covers, and the flavors in the order they are tried. */
export interface KueueResourceGroup {
  coveredResources: string[];
  flavors: Array<{ name: string; resources: KueueFlavorResource[]; src: Source }>;
  src: Source;
}

/** A ClusterQueue's spec.preemption, Kueue's defaults (Never) filled in. */
export interface KueuePreemptionClause {
  withinClusterQueue: (typeof KUEUE_WITHIN_CLUSTER_QUEUE)[number];
  reclaimWithinCohort: (typeof KUEUE_RECLAIM_WITHIN_COHORT)[number];
  borrowWithinCohort: { policy: (typeof KUEUE_BORROW_WITHIN_COHORT)[number]; maxPriorityThreshold?: number };
  /** Where `preemption` was written; the quota itself when defaulted. */
  src: Source;
}

/** A ClusterQueue's flavorFungibility, deprecated names read as their new ones, Kueue's defaults filled in. */
export interface KueueFlavorFungibility {
  whenCanBorrow: 'MayStopSearch' | 'TryNextFlavor';
  whenCanPreempt: 'MayStopSearch' | 'TryNextFlavor';
  src: Source;
}

/** What a quota of a Kueue-rules tree holds beyond its name and place in the tree. */
export interface KueueQuotaClauses {
  /** A leaf is a ClusterQueue; a quota with children is a Cohort. */
  kind: 'ClusterQueue' | 'Cohort';
  resourceGroups: KueueResourceGroup[];
  /** ClusterQueues only. */
  preemption?: KueuePreemptionClause;
  /** ClusterQueues only. */
  flavorFungibility?: KueueFlavorFungibility;
  /** ClusterQueues only; Kueue's default BestEffortFIFO. */
  queueingStrategy?: (typeof KUEUE_QUEUEING_STRATEGIES)[number];
  /** Kueue's fairSharing.weight (SEMANTICS 13), when written; 1 when absent. */
  fairSharing?: { weight: number; src: Source };
}

/** A tree's fair sharing (`spec.fairSharing`, Kueue's Configuration fairSharing): on for every cohort of the tree. */
export interface KueueFairSharing {
  /** One of KUEUE_FAIR_STRATEGY_LISTS; Kueue's default (both) when not written. */
  strategies: KueueFairPreemptionStrategy[];
  src: Source;
}

/** True for a resource name that counts a job's GPUs (`nvidia.com/gpu`, `amd.com/gpu`, any `<vendor>/gpu`). */
export function isGpuResource(name: string): boolean {
  return name === 'gpu' || name.endsWith('/gpu');
}

/** True when a node with `labels` matches a flavor's nodeLabels (every one present with the same value). */
export function nodeMatchesFlavor(labels: Readonly<Record<string, string>> | undefined, flavor: Pick<KueueFlavor, 'nodeLabels'>): boolean {
  for (const [k, v] of Object.entries(flavor.nodeLabels)) if (labels?.[k] !== v) return false;
  return true;
}
