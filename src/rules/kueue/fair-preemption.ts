/**
 * Preemption under fair sharing (SEMANTICS 13), as Kueue decides it
 * (pkg/scheduler/preemption/preemption.go's fairPreemptions at ff69552).
 *
 * 1. Candidates: the preemptor's own queue's workloads allowed by `withinClusterQueue`,
 *    and, in a cohort, the workloads of every other queue of the tree that is borrowing on
 *    a flavor-resource needing preemption, allowed by the preemptor queue's
 *    `reclaimWithinCohort`; only workloads using such a flavor-resource. `borrowWithinCohort`
 *    plays no part. Sorted in Kueue's candidate order (fair-target-order.ts).
 * 2. The incoming workload's usage is added first, so every share below is "with W".
 * 3. First strategy: queues in target order (fair-target-order.ts). The preemptor's own
 *    queue gives its next candidate unconditionally (InClusterQueue). When the preemptor's
 *    queue stays within nominal on every flavor-resource needing preemption, any queue's
 *    next candidate is taken regardless of shares (Kueue's InCohortReclamation). Otherwise
 *    the shares of the two almost-LCAs are compared under the first strategy; a candidate
 *    that passes is taken (InCohortFairSharing), and the target queue is chosen afresh; one
 *    that fails is kept for the second strategy.
 * 4. Second strategy (only when configured second and W does not fit yet): over the kept
 *    candidates, in target order, each queue's first candidate is taken when
 *    `LessThanInitialShare` holds, and the queue is then given up either way.
 * 5. No fit: no targets. A fit: fill-back, from the second-to-last target back to the first,
 *    returns each target whose workload W still fits beside.
 */
import { compareCandidates, satisfiesPolicy, usesAny } from './classic-candidates.js';
import { compareShares, dominantResourceShare, weightedShare, type FairShare } from './fair-share.js';
import { TargetOrder } from './fair-target-order.js';
import type { FairPreemptionStrategy, FlavorResource, KueuePreemptor, KueueState, KueueTarget, KueueWorkload, ReclaimWithinCohort, WithinClusterQueue } from './kueue-state.js';
import { fillBack, workloadFits } from './preemption-fit.js';
import { KueueQuotaTree, type UsageLedger } from './quota-math.js';

export const FAIR_ALGORITHM = 'kueue-fair-sharing';

/** Kueue's default when fair sharing names no strategies. */
export const DEFAULT_FAIR_STRATEGIES: readonly FairPreemptionStrategy[] = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'];

export interface FairPreemptionResult {
  algorithm: typeof FAIR_ALGORITHM;
  /** The victims, in Kueue's order after fill-back; empty when W cannot be made to fit. */
  targets: KueueTarget[];
  /** How many workloads were candidates at all. */
  candidates: number;
  /** Why there are no targets (absent when there are). */
  why?: string;
  /** The strategies in the order they were applied (the state's, or Kueue's default). */
  strategies: readonly FairPreemptionStrategy[];
  /**
   * Workloads the walk took and fill-back gave back (W fits without them). Their eviction
   * was simulated when later shares were compared, so a target's cited shares may assume
   * one of them gone.
   */
  returned: string[];
}

/** Whether a strategy lets W of P take U of T: shares are P's with W, T's before and after losing U. */
export function strategyHolds(strategy: FairPreemptionStrategy, preemptorNew: FairShare, targetOld: FairShare, targetNew: FairShare): boolean {
  return strategy === 'LessThanOrEqualToFinalShare' ? compareShares(preemptorNew, targetNew) <= 0 : compareShares(preemptorNew, targetOld) < 0;
}

function findCandidates(tree: KueueQuotaTree, ledger: UsageLedger, preemptor: KueueWorkload, need: ReadonlySet<FlavorResource>): KueueWorkload[] {
  const queue = preemptor.clusterQueue;
  const policy = tree.node(queue).preemption;
  if (policy === undefined) return [];
  const out: KueueWorkload[] = [];
  const take = (q: string, p: WithinClusterQueue | ReclaimWithinCohort): void => {
    for (const w of tree.workloadsOf(q)) if (w.name !== preemptor.name && satisfiesPolicy(preemptor, w, p) && usesAny(w, need)) out.push(w);
  };
  if (policy.withinClusterQueue !== 'Never') take(queue, policy.withinClusterQueue);
  if (tree.parentOf(queue) !== null && policy.reclaimWithinCohort !== 'Never') {
    const contested = [...need];
    for (const q of tree.subtreeClusterQueues(tree.rootOf(queue))) {
      if (q === queue || !contested.some((fr) => ledger.isBorrowing(q, fr))) continue;
      take(q, policy.reclaimWithinCohort);
    }
  }
  return out.sort((a, b) => compareCandidates(a, b, queue));
}

/** A victim as taken, before fill-back. */
interface Taken {
  workload: KueueWorkload;
  target: KueueTarget;
}

/** One attempt's scratch: the ledger (with W's usage added), W, and the victims so far. */
class Attempt {
  readonly taken: Taken[] = [];

  constructor(
    readonly ledger: UsageLedger,
    readonly preemptor: KueueWorkload,
  ) {}

  /** Evict `w` in the simulation and record it; true once W fits. */
  take(w: KueueWorkload, target: KueueTarget): boolean {
    this.ledger.removeWorkload(w);
    this.taken.push({ workload: w, target });
    return this.fits();
  }

  /** Whether W fits with its own simulated usage taken out again (Kueue's workloadFitsForFairSharing). */
  fits(): boolean {
    const { ledger, preemptor } = this;
    ledger.remove(preemptor.clusterQueue, preemptor.usage);
    const fits = workloadFits(ledger, preemptor.clusterQueue, preemptor.usage, true);
    ledger.add(preemptor.clusterQueue, preemptor.usage);
    return fits;
  }

  /** The almost-LCAs' shares now: P's (with W) and T's. */
  shares(order: TargetOrder, queue: string): { preemptorSide: string; targetSide: string; preemptorNew: FairShare; targetOld: FairShare } {
    const sides = order.almostLcas(queue);
    return { ...sides, preemptorNew: dominantResourceShare(this.ledger, sides.preemptorSide), targetOld: dominantResourceShare(this.ledger, sides.targetSide) };
  }

  /** T's share once `w` is gone (simulated and undone). */
  shareWithout(w: KueueWorkload, targetSide: string): FairShare {
    this.ledger.removeWorkload(w);
    const share = dominantResourceShare(this.ledger, targetSide);
    this.ledger.addWorkload(w);
    return share;
  }
}

function fairTarget(w: KueueWorkload, strategy: FairPreemptionStrategy, preemptorNew: FairShare, compared: FairShare): KueueTarget {
  return {
    workload: w.name,
    reason: 'InCohortFairSharing',
    fairness: { strategy, preemptorShare: weightedShare(preemptorNew), targetShare: weightedShare(compared), targetQueue: compared.node },
  };
}

/** The first strategy over every candidate; returns whether W fits, and the candidates kept for the second. */
function firstStrategy(a: Attempt, candidates: readonly KueueWorkload[], strategy: FairPreemptionStrategy, withinNominal: boolean): { fits: boolean; retry: KueueWorkload[] } {
  const order = new TargetOrder(a.ledger, a.preemptor.clusterQueue, candidates);
  const retry: KueueWorkload[] = [];
  for (let queue = order.next(); queue !== null; queue = order.next()) {
    if (queue === a.preemptor.clusterQueue) {
      const w = order.pop(queue);
      if (a.take(w, { workload: w.name, reason: 'InClusterQueue' })) return { fits: true, retry };
      continue;
    }
    if (withinNominal) {
      const w = order.pop(queue);
      if (a.take(w, { workload: w.name, reason: 'InCohortReclamation' })) return { fits: true, retry };
      continue;
    }
    const { targetSide, preemptorNew, targetOld } = a.shares(order, queue);
    // An infinite share (weight 0, borrowing) never passes against a finite one, whichever U goes.
    if (weightedShare(preemptorNew) === Infinity && weightedShare(targetOld) !== Infinity) {
      retry.push(...order.popAll(queue));
      continue;
    }
    while (order.has(queue)) {
      const w = order.pop(queue);
      const targetNew = a.shareWithout(w, targetSide);
      if (!strategyHolds(strategy, preemptorNew, targetOld, targetNew)) {
        retry.push(w);
        continue;
      }
      const compared = strategy === 'LessThanOrEqualToFinalShare' ? targetNew : targetOld;
      if (a.take(w, fairTarget(w, strategy, preemptorNew, compared))) return { fits: true, retry };
      break; // the shares changed: choose the target queue afresh
    }
  }
  return { fits: false, retry };
}

/** The second strategy (LessThanInitialShare) over the kept candidates: at most one per queue. */
function secondStrategy(a: Attempt, retry: readonly KueueWorkload[]): boolean {
  const order = new TargetOrder(a.ledger, a.preemptor.clusterQueue, retry);
  for (let queue = order.next(); queue !== null; queue = order.next()) {
    const { preemptorNew, targetOld } = a.shares(order, queue);
    const w = order.pop(queue);
    if (strategyHolds('LessThanInitialShare', preemptorNew, targetOld, targetOld) && a.take(w, fairTarget(w, 'LessThanInitialShare', preemptorNew, targetOld))) return true;
    order.drop(queue);
  }
  return false;
}

/**
 * The victims fair sharing chooses for `preemptor` (SEMANTICS 13). `needPreemption` are the
 * flavor-resources its flavor assignment marked Preempt (Kueue's frsNeedPreemption); when
 * not given, those of its usage that do not fit its queue now. The preemptor's usage is on
 * its assigned flavors, and it must not be among the state's admitted workloads.
 */
export function fairPreemption(state: KueueState, preemptor: KueuePreemptor, needPreemption?: Iterable<FlavorResource>): FairPreemptionResult {
  const strategies = state.fairSharing?.strategies.length ? state.fairSharing.strategies : DEFAULT_FAIR_STRATEGIES;
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  // Kueue counts only non-zero requests (TotalRequestsFor), as classic preemption does.
  const w: KueueWorkload = { ...preemptor.workload, usage: new Map([...preemptor.workload.usage].filter(([, v]) => v > 0)) };
  const queue = w.clusterQueue;
  const need = new Set(needPreemption ?? [...w.usage].filter(([fr, v]) => v > ledger.available(queue, fr)).map(([fr]) => fr));
  const candidates = findCandidates(tree, ledger, w, need);
  const result: FairPreemptionResult = { algorithm: FAIR_ALGORITHM, targets: [], candidates: candidates.length, strategies, returned: [] };
  if (candidates.length === 0) return { ...result, why: noCandidateWhy(tree, queue) };

  ledger.add(queue, w.usage);
  const withinNominal = [...need].every((fr) => !ledger.isBorrowing(queue, fr));
  const attempt = new Attempt(ledger, w);
  const first = firstStrategy(attempt, candidates, strategies[0]!, withinNominal);
  const fits = first.fits || (strategies.length > 1 && secondStrategy(attempt, first.retry));
  ledger.remove(queue, w.usage);
  if (!fits) {
    const tried = strategies.join(' then ');
    return { ...result, why: `no way to fit ${w.name} in ${queue}: its own queue's candidates and the ones ${tried} allows from other queues are not enough` };
  }
  const kept = fillBack(ledger, queue, w.usage, attempt.taken, true);
  const keptNames = new Set(kept.map((k) => k.workload.name));
  return { ...result, targets: kept.map((k) => k.target), returned: attempt.taken.filter((t) => !keptNames.has(t.workload.name)).map((t) => t.workload.name) };
}

function noCandidateWhy(tree: KueueQuotaTree, queue: string): string {
  const p = tree.node(queue).preemption!;
  const inCohort = tree.parentOf(queue) !== null;
  return (
    `no candidate: no workload of ${queue} using the contested flavor-resources is allowed by withinClusterQueue: ${p.withinClusterQueue}` +
    (inCohort ? `, and no workload of a ClusterQueue borrowing them is allowed by reclaimWithinCohort: ${p.reclaimWithinCohort}` : ` (${queue} is in no cohort)`)
  );
}

/** A share for a sentence: rounded as Kueue's status shows it, "infinite" for weight 0 while borrowing. */
export function shareText(share: number): string {
  return share === Infinity ? 'infinite' : String(Math.round(share * 100) / 100);
}

/** One line for an explanation: the algorithm, each victim with the shares compared, or why none. */
export function fairSummary(r: FairPreemptionResult): string {
  if (r.targets.length === 0) return `${r.algorithm}: no victims; ${r.why ?? 'the workload fits without preemption'}`;
  const victims = r.targets.map((t) =>
    t.fairness
      ? `${t.workload} (${t.reason}: ${t.fairness.strategy}, share ${shareText(t.fairness.preemptorShare)} after admission against ${t.fairness.targetQueue} at ${shareText(t.fairness.targetShare)})`
      : `${t.workload} (${t.reason})`,
  );
  return `${r.algorithm}: ${r.targets.length} victim${r.targets.length === 1 ? '' : 's'} of ${r.candidates} candidates: ${victims.join(', ')}`;
}
