/**
 * Admission order under fair sharing (SEMANTICS 13, "Admission order"), after Kueue's
 * pkg/scheduler/fair_sharing_iterator.go at ff69552: each ClusterQueue offers its head
 * workload, and a tournament at every Cohort, from the leaves up, picks the child whose
 * share after admitting its head is lowest.
 *
 * For each head, its usage is added to its queue (and passed up as quota-math passes it),
 * and the share of every node on its path is taken then: at Cohort L the head competes
 * with the share of L's child on its path. Comparing two heads at L, in order: the one whose
 * node is not borrowing on the flavor-resources it requests first (Kueue's
 * FairSharingPrioritizeNonBorrowing, on by default); the lower share; the higher priority;
 * the earlier creation. Kueue's PrioritizePreemptorWorkloads (off by default) is not read.
 * Children are visited Cohorts first, then ClusterQueues, each in the policy's order, and a
 * tie keeps the earlier (Kueue takes children from an unordered set: ours).
 */
import { compareShares, dominantResourceShare, isBorrowingOn, type FairShare } from './fair-share.js';
import type { KueueState, KueueWorkload } from './kueue-state.js';
import { KueueQuotaTree, type UsageLedger } from './quota-math.js';

/** A head's share as one Cohort's tournament sees it: the share of the Cohort's child on the head's path, with the head admitted. */
export interface TournamentShare {
  workload: string;
  /** The Cohort whose children are compared. */
  cohort: string;
  share: FairShare;
  /** That child is above quota on a flavor-resource the head requests. */
  borrowing: boolean;
}

/** Every head's share at every Cohort above it (Kueue's computeDRS). */
function sharesOf(ledger: UsageLedger, heads: readonly KueueWorkload[]): Map<string, TournamentShare> {
  const tree = ledger.tree;
  const out = new Map<string, TournamentShare>();
  for (const w of heads) {
    ledger.addWorkload(w);
    let below = w.clusterQueue;
    for (const cohort of tree.pathToRoot(w.clusterQueue)) {
      const share = dominantResourceShare(ledger, below);
      out.set(`${cohort}\u0000${w.name}`, { workload: w.name, cohort, share, borrowing: isBorrowingOn(share, w.usage.keys()) });
      below = cohort;
    }
    ledger.removeWorkload(w);
  }
  return out;
}

/** Kueue's entryComparer.less: does `a` go before `b` at `cohort`? */
function goesFirst(a: KueueWorkload, b: KueueWorkload, cohort: string, shares: ReadonlyMap<string, TournamentShare>): boolean {
  const sa = shares.get(`${cohort}\u0000${a.name}`)!;
  const sb = shares.get(`${cohort}\u0000${b.name}`)!;
  if (sa.borrowing !== sb.borrowing) return !sa.borrowing;
  const c = compareShares(sa.share, sb.share);
  if (c !== 0) return c < 0;
  if (a.priority !== b.priority) return a.priority > b.priority;
  return a.createdAt < b.createdAt;
}

function tournament(tree: KueueQuotaTree, cohort: string, byQueue: ReadonlyMap<string, KueueWorkload>, shares: ReadonlyMap<string, TournamentShare>): KueueWorkload | null {
  const candidates: KueueWorkload[] = [];
  for (const child of tree.childCohorts(cohort)) {
    const w = tournament(tree, child, byQueue, shares);
    if (w !== null) candidates.push(w);
  }
  for (const q of tree.childClusterQueues(cohort)) {
    const w = byQueue.get(q);
    if (w !== undefined) candidates.push(w);
  }
  let best: KueueWorkload | null = null;
  for (const w of candidates) if (best === null || goesFirst(w, best, cohort, shares)) best = w;
  return best;
}

/**
 * The order in which fair sharing offers `heads` (at most one per ClusterQueue, each with
 * its usage on its assigned flavors) for admission on `state`, none admitted in between:
 * for each root in the state's order, tournament winners one after another; a queue in no
 * cohort is offered as it comes.
 */
export function fairAdmissionOrder(state: KueueState, heads: readonly KueueWorkload[]): { order: KueueWorkload[]; shares: TournamentShare[] } {
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  const shares = sharesOf(ledger, heads);
  const byQueue = new Map(heads.map((w) => [w.clusterQueue, w] as const));
  const order: KueueWorkload[] = [];
  const roots: string[] = [];
  for (const w of heads) {
    const root = tree.rootOf(w.clusterQueue);
    if (!roots.includes(root)) roots.push(root);
  }
  for (const root of roots) {
    if (tree.parentOf(root) === null && tree.node(root).kind === 'ClusterQueue') {
      order.push(byQueue.get(root)!);
      continue;
    }
    for (let w = tournament(tree, root, byQueue, shares); w !== null; w = tournament(tree, root, byQueue, shares)) {
      order.push(w);
      byQueue.delete(w.clusterQueue);
    }
  }
  return { order, shares: [...shares.values()] };
}
