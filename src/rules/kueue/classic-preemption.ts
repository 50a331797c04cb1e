/**
 * Kueue's classic preemption (SEMANTICS 12): which admitted workloads Kueue evicts so a
 * workload fits its ClusterQueue, after Kueue's pkg/scheduler/preemption/preemption.go
 * (classicalPreemptions, fillBackWorkloads, workloadFits) at ff69552.
 *
 * Greedy, in Kueue's order: take candidates one by one (classic-candidates.ts) until the
 * workload fits, then give back, newest victim first, every one it does not need. One or
 * two attempts, with and without letting the preemptor borrow, in the order Kueue tries
 * them. The victim set is Kueue's, not a minimal one. Usage changes go through one
 * UsageLedger (a reversible overlay), so no state is copied per candidate.
 */
import { borrowWithinCohortForbidden, collectCandidates, stillCandidate, VARIANT_REASON, type Candidate, type CandidateVariant } from './classic-candidates.js';
import type { FlavorResource, KueuePreemptor, KueueState, KueueTarget, KueueWorkload } from './kueue-state.js';
import { fillBack, workloadFits } from './preemption-fit.js';
import { KueueQuotaTree, type UsageLedger } from './quota-math.js';

export const CLASSIC_ALGORITHM = 'kueue-classic';

/** One pass over the candidates. */
export interface ClassicAttempt {
  /** Whether the preemptor may end up borrowing in this pass. */
  allowBorrowing: boolean;
  /** The workload fits after this pass's victims. */
  fits: boolean;
  /** Victims taken before fill-back (in the order taken). */
  taken: number;
}

/** One victim with what Kueue knew of it. */
export interface ClassicVictim extends KueueTarget {
  clusterQueue: string;
  priority: number;
  variant: CandidateVariant;
}

export interface ClassicPreemptionResult {
  algorithm: typeof CLASSIC_ALGORITHM;
  /** Kueue's targets, in Kueue's order after fill-back; empty when preemption cannot help. */
  targets: KueueTarget[];
  victims: ClassicVictim[];
  /** The passes in the order tried. */
  attempts: ClassicAttempt[];
  /** The pass that chose the targets (absent when none did). */
  chosenBy?: ClassicAttempt;
  /** How many workloads were candidates at all. */
  candidates: number;
  /** Why there are no targets (absent when there are). */
  why?: string;
}

/**
 * The passes Kueue makes, as `allowBorrowing` values in its order. A pass without borrowing
 * can take more candidates (those Kueue allows only if the preemptor ends within nominal),
 * a pass with borrowing can end above nominal. Only the pass with borrowing when no other
 * queue offers a candidate, or when borrowWithinCohort is off and the queue is not strictly
 * under nominal on the contested flavor-resources; without borrowing first when
 * borrowWithinCohort is off and no candidate is a hierarchical one (Kueue keeps that order
 * for compatibility with its older versions); otherwise with borrowing first.
 */
function attemptOrder(ledger: UsageLedger, tree: KueueQuotaTree, preemptor: KueueWorkload, frs: ReadonlySet<FlavorResource>, fromOtherQueues: number, forHierarchicalReclaim: number): boolean[] {
  const queue = preemptor.clusterQueue;
  const forbidden = borrowWithinCohortForbidden(tree.node(queue).preemption!);
  // Strictly under nominal on every contested flavor-resource (Kueue's queueUnderNominalInResourcesNeedingPreemption).
  let underNominal = true;
  for (const fr of frs) if (tree.quota(queue, fr).nominal <= ledger.usage(queue, fr)) underNominal = false;
  if (fromOtherQueues === 0 || (forbidden && !underNominal)) return [true];
  if (forbidden && forHierarchicalReclaim === 0) return [false, true];
  return [true, false];
}

/**
 * The workloads Kueue's classic preemption evicts so that `preemptor` fits its ClusterQueue.
 * `needPreemption` are the flavor-resources its flavor assignment marked Preempt (Kueue's
 * frsNeedPreemption); the preemptor's usage is `preemptor.workload.usage`, on its assigned
 * flavors, and it must not be among the state's admitted workloads.
 */
export function classicPreemption(state: KueueState, preemptor: KueuePreemptor, needPreemption: Iterable<FlavorResource>): ClassicPreemptionResult {
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  // Kueue counts only non-zero requests (TotalRequestsFor): a zero on a flavor-resource its
  // queue already borrows must not make the workload "borrow" or "not fit".
  const wl: KueueWorkload = { ...preemptor.workload, usage: new Map([...preemptor.workload.usage].filter(([, v]) => v > 0)) };
  const queue = wl.clusterQueue;
  const frs = new Set(needPreemption);
  const list = collectCandidates(tree, ledger, wl, frs);
  const result: ClassicPreemptionResult = { algorithm: CLASSIC_ALGORITHM, targets: [], victims: [], attempts: [], candidates: list.ordered.length };
  if (list.ordered.length === 0) {
    result.why = noCandidateWhy(tree, queue);
    return result;
  }

  for (const allowBorrowing of attemptOrder(ledger, tree, wl, frs, list.fromOtherQueues, list.forHierarchicalReclaim)) {
    const taken: Candidate[] = [];
    let chosen: Candidate[] | null = null;
    for (const c of list.ordered) {
      if (!stillCandidate(tree, ledger, c, queue, allowBorrowing, frs)) continue;
      ledger.removeWorkload(c.workload);
      taken.push(c);
      if (workloadFits(ledger, queue, wl.usage, allowBorrowing)) {
        chosen = fillBack(ledger, queue, wl.usage, taken, allowBorrowing);
        break;
      }
    }
    // Every removal is undone whatever the outcome: the ledger is scratch for this call only.
    for (const c of chosen ?? taken) ledger.addWorkload(c.workload);
    const attempt: ClassicAttempt = { allowBorrowing, fits: chosen !== null, taken: taken.length };
    result.attempts.push(attempt);
    if (chosen !== null) {
      result.chosenBy = attempt;
      result.victims = chosen.map((c) => ({
        workload: c.workload.name,
        reason: VARIANT_REASON[c.variant],
        clusterQueue: c.workload.clusterQueue,
        priority: c.workload.priority,
        variant: c.variant,
      }));
      result.targets = result.victims.map(({ workload, reason }) => ({ workload, reason }));
      return result;
    }
  }
  result.why =
    `preempting every candidate Kueue allows (${list.ordered.length}) would not free enough quota in ${queue}` +
    (result.attempts.some((a) => !a.allowBorrowing) ? ' (tried without borrowing and with it)' : '');
  return result;
}

function noCandidateWhy(tree: KueueQuotaTree, queue: string): string {
  const p = tree.node(queue).preemption!;
  const inCohort = tree.parentOf(queue) !== null;
  return (
    `no candidate: no workload of ${queue} using the contested flavor-resources is allowed by withinClusterQueue: ${p.withinClusterQueue}` +
    (inCohort ? `, and no workload of a ClusterQueue over its nominal quota on them is allowed by reclaimWithinCohort: ${p.reclaimWithinCohort}` : ` (${queue} is in no cohort)`)
  );
}

/** One line for an explanation: the algorithm, the victims, and the pass that chose them. */
export function classicSummary(r: ClassicPreemptionResult): string {
  if (r.chosenBy === undefined) return `${r.algorithm}: no victims; ${r.why ?? 'the workload fits without preemption'}`;
  const pass = r.attempts.length > 1 ? ` (pass ${r.attempts.indexOf(r.chosenBy) + 1} of ${r.attempts.length})` : '';
  const how = r.chosenBy.allowBorrowing ? 'in the pass that lets the workload borrow from its cohort' : 'in the pass that keeps the workload within its nominal quota';
  const victims = r.victims.map((v) => `${v.workload} (${v.clusterQueue}, ${v.reason})`).join(', ');
  return `${r.algorithm}: ${r.victims.length} victim${r.victims.length === 1 ? '' : 's'} of ${r.candidates} candidates, ${how}${pass}: ${victims}`;
}
