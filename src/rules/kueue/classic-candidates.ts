/**
 * Which admitted workloads Kueue's classic preemption may take, in which order, and why
 * (SEMANTICS 12), after Kueue's classical/hierarchical_preemption.go,
 * classical/candidate_generator.go, common/preemption_policy.go and common/ordering.go at
 * ff69552. classic-preemption.ts runs the attempts over the list built here.
 */
import type { FlavorResource, KueuePreemptionPolicy, KueuePreemptionReason, KueueWorkload, ReclaimWithinCohort, WithinClusterQueue } from './kueue-state.js';
import type { KueueQuotaTree, UsageLedger } from './quota-math.js';

/**
 * How a candidate may be preempted (Kueue's preemptionVariant):
 * - `WithinClusterQueue`: the preemptor's own ClusterQueue, by withinClusterQueue;
 * - `HierarchicalReclaim`: the preemptor's side of the tree holds the quota the candidate
 *   borrows (its requests fit a subtree the candidate's ClusterQueue is outside of);
 * - `ReclaimWithoutBorrowing`: only if the preemptor ends up not borrowing;
 * - `ReclaimWhileBorrowing`: even if the preemptor borrows (borrowWithinCohort allows it).
 */
export type CandidateVariant = 'WithinClusterQueue' | 'HierarchicalReclaim' | 'ReclaimWithoutBorrowing' | 'ReclaimWhileBorrowing';

/** Kueue's reason for each variant (the Preempted condition's reason). */
export const VARIANT_REASON: Readonly<Record<CandidateVariant, KueuePreemptionReason>> = {
  WithinClusterQueue: 'InClusterQueue',
  HierarchicalReclaim: 'InCohortReclamation',
  ReclaimWithoutBorrowing: 'InCohortReclamation',
  ReclaimWhileBorrowing: 'InCohortReclaimWhileBorrowing',
};

export interface Candidate {
  workload: KueueWorkload;
  variant: CandidateVariant;
  /**
   * The cohort at which the candidate was found: its ClusterQueue must stay over quota on
   * the contested flavor-resources at every node up to (not including) this one to remain
   * a candidate. Null for the preemptor's own ClusterQueue.
   */
  lca: string | null;
}

export interface CandidateList {
  /** Kueue's order: evicted first (hierarchy, priority, own queue), then the rest in the same groups. */
  ordered: Candidate[];
  fromOtherQueues: number;
  forHierarchicalReclaim: number;
}

/** Kueue's SatisfiesPreemptionPolicy: may the preemptor take the candidate under `policy`. */
export function satisfiesPolicy(preemptor: KueueWorkload, candidate: KueueWorkload, policy: WithinClusterQueue | ReclaimWithinCohort): boolean {
  switch (policy) {
    case 'Never':
      return false;
    case 'Any':
      return true;
    case 'LowerPriority':
      return preemptor.priority > candidate.priority;
    case 'LowerOrNewerEqualPriority':
      // Equal priority: only a workload that entered the queue later (Kueue's queue-order timestamp).
      return preemptor.priority > candidate.priority || (preemptor.priority === candidate.priority && preemptor.createdAt < candidate.createdAt);
  }
}

/** borrowWithinCohort is off (Kueue's IsBorrowingWithinCohortForbidden). */
export function borrowWithinCohortForbidden(policy: KueuePreemptionPolicy): boolean {
  return policy.borrowWithinCohort.policy === 'Never';
}

/** Whether the workload holds any of the contested flavor-resources. */
export function usesAny(w: KueueWorkload, frs: ReadonlySet<FlavorResource>): boolean {
  for (const fr of w.usage.keys()) if (frs.has(fr)) return true;
  return false;
}

/**
 * Kueue's CandidatesOrdering: evicted first; other ClusterQueues before the preemptor's;
 * lower priority first; more recently admitted first; then a fixed tie-break. Kueue breaks
 * the last tie by UID, which a snapshot need not carry: the workload's name stands in.
 */
export function compareCandidates(a: KueueWorkload, b: KueueWorkload, preemptorQueue: string): number {
  if (a.evicted !== b.evicted) return a.evicted ? -1 : 1;
  const aOwn = a.clusterQueue === preemptorQueue;
  const bOwn = b.clusterQueue === preemptorQueue;
  if (aOwn !== bOwn) return aOwn ? 1 : -1;
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.admittedAt !== b.admittedAt) return b.admittedAt - a.admittedAt;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

interface CollectContext {
  tree: KueueQuotaTree;
  ledger: UsageLedger;
  preemptor: KueueWorkload;
  queue: string;
  policy: KueuePreemptionPolicy;
  frs: ReadonlySet<FlavorResource>;
}

function classify(ctx: CollectContext, w: KueueWorkload, hierarchicalAdvantage: boolean): CandidateVariant | null {
  if (!usesAny(w, ctx.frs)) return null;
  const own = w.clusterQueue === ctx.queue;
  if (!satisfiesPolicy(ctx.preemptor, w, own ? ctx.policy.withinClusterQueue : ctx.policy.reclaimWithinCohort)) return null;
  if (own) return 'WithinClusterQueue';
  if (hierarchicalAdvantage) return 'HierarchicalReclaim';
  if (borrowWithinCohortForbidden(ctx.policy)) return 'ReclaimWithoutBorrowing';
  const threshold = ctx.policy.borrowWithinCohort.maxPriorityThreshold;
  // A candidate at or above the preemptor's priority, or above the threshold, may only be
  // taken when the preemptor would not borrow afterwards.
  const aboveThreshold = w.priority >= ctx.preemptor.priority || (threshold !== undefined && w.priority > threshold);
  return aboveThreshold ? 'ReclaimWithoutBorrowing' : 'ReclaimWhileBorrowing';
}

function fromQueue(ctx: CollectContext, queue: string, lca: string | null, advantage: boolean, out: Candidate[]): void {
  for (const w of ctx.tree.workloadsOf(queue)) {
    if (w.name === ctx.preemptor.name) continue;
    const variant = classify(ctx, w, advantage);
    if (variant !== null) out.push({ workload: w, variant, lca });
  }
}

/** Walk a subtree for ClusterQueues over quota, skipping subtrees within quota and the one already seen. */
function collectInSubtree(ctx: CollectContext, cohort: string, subtreeRoot: string, skip: string | null, advantage: boolean, out: Candidate[]): void {
  for (const child of ctx.tree.childCohorts(cohort)) {
    if (child === skip || ctx.ledger.isWithinNominal(child, ctx.frs)) continue;
    collectInSubtree(ctx, child, subtreeRoot, skip, advantage, out);
  }
  for (const q of ctx.tree.childClusterQueues(cohort)) {
    if (q === ctx.queue || ctx.ledger.isWithinNominal(q, ctx.frs)) continue;
    fromQueue(ctx, q, subtreeRoot, advantage, out);
  }
}

/**
 * Every candidate of the preemptor, classified and in Kueue's order. Climbs from the
 * preemptor's ClusterQueue to the root: once the preemptor's requests fit the subtree
 * quota of a node on the way, every workload found from there up is a hierarchical
 * candidate (the preemptor's side owns that quota), else a priority candidate.
 */
export function collectCandidates(tree: KueueQuotaTree, ledger: UsageLedger, preemptor: KueueWorkload, frs: ReadonlySet<FlavorResource>): CandidateList {
  const queue = preemptor.clusterQueue;
  const node = tree.node(queue);
  if (node.kind !== 'ClusterQueue' || node.preemption === undefined) throw new Error(`kueue/not-a-cluster-queue: ${queue} is not a ClusterQueue`);
  const ctx: CollectContext = { tree, ledger, preemptor, queue, policy: node.preemption, frs };

  const sameQueue: Candidate[] = [];
  if (ctx.policy.withinClusterQueue !== 'Never') fromQueue(ctx, queue, null, false, sameQueue);

  const hierarchy: Candidate[] = [];
  const priority: Candidate[] = [];
  if (tree.parentOf(queue) !== null && ctx.policy.reclaimWithinCohort !== 'Never') {
    let { fits: advantage, remaining } = ledger.fitsInQuota(queue, preemptor.usage);
    let previous: string | null = null;
    for (const cohort of tree.pathToRoot(queue)) {
      collectInSubtree(ctx, cohort, cohort, previous, advantage, advantage ? hierarchy : priority);
      const next = ledger.fitsInQuota(cohort, remaining);
      remaining = next.remaining;
      advantage = advantage || next.fits;
      previous = cohort;
    }
  }

  const byOrder = (a: Candidate, b: Candidate): number => compareCandidates(a.workload, b.workload, queue);
  const groups = [hierarchy, priority, sameQueue].map((g) => g.sort(byOrder));
  const ordered = [...groups.flatMap((g) => g.filter((c) => c.workload.evicted)), ...groups.flatMap((g) => g.filter((c) => !c.workload.evicted))];
  return { ordered, fromOtherQueues: hierarchy.length + priority.length, forHierarchicalReclaim: hierarchy.length };
}

/**
 * Whether a candidate may still be taken in this attempt (Kueue's candidateIsValid): its
 * ClusterQueue, and every cohort between it and where it was found, must still be over
 * quota on a contested flavor-resource once the earlier victims are gone; and a candidate
 * that may only be taken without borrowing is skipped in an attempt that allows it.
 */
export function stillCandidate(tree: KueueQuotaTree, ledger: UsageLedger, c: Candidate, preemptorQueue: string, allowBorrowing: boolean, frs: ReadonlySet<FlavorResource>): boolean {
  if (c.workload.clusterQueue === preemptorQueue) return true;
  if (allowBorrowing && c.variant === 'ReclaimWithoutBorrowing') return false;
  if (ledger.isWithinNominal(c.workload.clusterQueue, frs)) return false;
  for (const cohort of tree.pathToRoot(c.workload.clusterQueue)) {
    if (cohort === c.lca) break;
    if (ledger.isWithinNominal(cohort, frs)) return false;
  }
  return true;
}
