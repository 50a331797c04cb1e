/**
 * Which ClusterQueue fair-sharing preemption takes its next victim from (SEMANTICS 13),
 * after Kueue's pkg/scheduler/preemption/fairsharing (ordering.go, target.go,
 * least_common_ancestor.go at ff69552).
 *
 * From the root down, at each Cohort the child with the highest share is entered: queues
 * that are not borrowing (other than the preemptor's own) or have no candidate left are
 * pruned, as are Cohorts that are not borrowing and are not above the preemptor; a Cohort
 * wins a tie with a ClusterQueue (inside it the most unfair node can then be chosen). Two
 * queues with equal shares: the one whose first candidate Kueue's candidate order puts
 * first. Two Cohorts with equal shares: the first in the policy's order (ours: Kueue takes
 * them from an unordered set). A Cohort whose children are all pruned is pruned; the walk
 * ends when the root is. The candidate order is classic preemption's (classic-candidates.ts).
 *
 * Shares are compared between the children of the lowest common ancestor of the preemptor's
 * queue and the target's (the "almost-LCAs"): in a flat cohort, the two queues themselves.
 */
import type { KueueWorkload } from './kueue-state.js';
import type { KueueQuotaTree, UsageLedger } from './quota-math.js';
import { compareCandidates } from './classic-candidates.js';
import { BELOW_ANY_SHARE, compareShares, dominantResourceShare, type FairShare } from './fair-share.js';

/** The node below `lca` on the way from `queue` to the root (the queue itself when its parent is the LCA). */
function almostLca(tree: KueueQuotaTree, queue: string, lca: string): string {
  let below = queue;
  for (const ancestor of tree.pathToRoot(queue)) {
    if (ancestor === lca) return below;
    below = ancestor;
  }
  throw new Error(`kueue/fair-lca: ${lca} is not above ${queue}`);
}

/**
 * One walk over the candidates of one preemption attempt. `next()` names the queue to take
 * from now (recomputed after every change to the ledger), or null when none is left; the
 * caller then takes a workload (`pop`) or gives the queue up (`drop`) before asking again.
 */
export class TargetOrder {
  private readonly queues = new Map<string, KueueWorkload[]>();
  private readonly ancestors: Set<string>;
  private readonly prunedQueues = new Set<string>();
  private readonly prunedCohorts = new Set<string>();
  private readonly root: string;

  /** `candidates` in candidate order; each queue keeps its own in that order. */
  constructor(
    private readonly ledger: UsageLedger,
    readonly preemptorQueue: string,
    candidates: readonly KueueWorkload[],
  ) {
    const tree = ledger.tree;
    this.ancestors = new Set(tree.pathToRoot(preemptorQueue));
    this.root = tree.rootOf(preemptorQueue);
    for (const c of candidates) {
      const list = this.queues.get(c.clusterQueue) ?? [];
      list.push(c);
      this.queues.set(c.clusterQueue, list);
    }
  }

  has(queue: string): boolean {
    return (this.queues.get(queue)?.length ?? 0) > 0;
  }

  pop(queue: string): KueueWorkload {
    const w = this.queues.get(queue)?.shift();
    if (w === undefined) throw new Error(`kueue/fair-order: no candidate left in ${queue}`);
    return w;
  }

  /** Take the rest of a queue's candidates, in order. */
  popAll(queue: string): KueueWorkload[] {
    const rest = this.queues.get(queue) ?? [];
    this.queues.set(queue, []);
    return rest;
  }

  /** Consider no more candidates of this queue. */
  drop(queue: string): void {
    this.prunedQueues.add(queue);
  }

  /** The queue to take the next victim from, or null when every queue is pruned. */
  next(): string | null {
    const tree = this.ledger.tree;
    if (tree.parentOf(this.preemptorQueue) === null) {
      const q = this.preemptorQueue;
      return !this.prunedQueues.has(q) && this.has(q) ? q : null;
    }
    while (!this.prunedCohorts.has(this.root)) {
      const target = this.descend(this.root);
      if (target !== null) return target;
    }
    return null;
  }

  /** Kueue's nextTarget: the highest child of `cohort`, entering Cohorts; null when this pass only pruned. */
  private descend(cohort: string): string | null {
    const tree = this.ledger.tree;
    let bestQueue: string | null = null;
    let bestQueueShare: FairShare = BELOW_ANY_SHARE;
    for (const q of tree.childClusterQueues(cohort)) {
      if (this.prunedQueues.has(q)) continue;
      // A queue without candidates is pruned whatever its share: ask that first, it is cheap.
      if (!this.has(q)) {
        this.prunedQueues.add(q);
        continue;
      }
      const share = dominantResourceShare(this.ledger, q);
      if (!share.borrowing && q !== this.preemptorQueue) {
        this.prunedQueues.add(q);
        continue;
      }
      const cmp = compareShares(share, bestQueueShare);
      if (cmp > 0 || (cmp === 0 && bestQueue !== null && compareCandidates(this.queues.get(q)![0]!, this.queues.get(bestQueue)![0]!, this.preemptorQueue) < 0)) {
        bestQueue = q;
        bestQueueShare = share;
      }
    }
    let bestCohort: string | null = null;
    let bestCohortShare: FairShare = BELOW_ANY_SHARE;
    for (const c of tree.childCohorts(cohort)) {
      if (this.prunedCohorts.has(c)) continue;
      const share = dominantResourceShare(this.ledger, c);
      if (!share.borrowing && !this.ancestors.has(c)) {
        this.prunedCohorts.add(c);
        continue;
      }
      if (compareShares(share, bestCohortShare) > 0) {
        bestCohort = c;
        bestCohortShare = share;
      }
    }
    if (bestCohort === null && bestQueue === null) {
      this.prunedCohorts.add(cohort);
      return null;
    }
    if (bestCohort !== null && compareShares(bestCohortShare, bestQueueShare) >= 0) return this.descend(bestCohort);
    return bestQueue;
  }

  /** The almost-LCAs of the preemptor's queue and `target` (a queue of another branch or the same cohort). */
  almostLcas(target: string): { preemptorSide: string; targetSide: string } {
    const tree = this.ledger.tree;
    const lca = tree.pathToRoot(target).find((a) => this.ancestors.has(a));
    if (lca === undefined) throw new Error(`kueue/fair-lca: ${target} and ${this.preemptorQueue} share no cohort`);
    return { preemptorSide: almostLca(tree, this.preemptorQueue, lca), targetSide: almostLca(tree, target, lca) };
  }
}
