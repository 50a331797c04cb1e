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
import type { FairPreemptionStrategy, FlavorResource, KueuePreemptor, KueueState, KueueTarget, KueueWorkload, WithinClusterQueue, ReclaimWithinCohort } from './kueue-state.js';
import { KueueQuotaTree, type UsageLedger } from './quota-math.js';
import { compareShares, dominantResourceShare, weightedShare, type FairShare } from './fair-share.js';
import { candidateOrder, TargetOrder } from './fair-target-order.js';

/** Kueue's default when fair sharing names no strategies. */
export const DEFAULT_FAIR_STRATEGIES: readonly FairPreemptionStrategy[] = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'];

export interface FairPreemptionOptions {
  /** The flavor-resources needing preemption; default: those of W's usage that do not fit now. */
  needPreemption?: Iterable<FlavorResource>;
}

export interface FairPreemptionResult {
  /** The victims; empty when W cannot be made to fit. */
  targets: KueueTarget[];
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

/** Kueue's SatisfiesPreemptionPolicy for withinClusterQueue / reclaimWithinCohort. */
function policyAllows(policy: WithinClusterQueue | ReclaimWithinCohort, preemptor: KueueWorkload, candidate: KueueWorkload): boolean {
  switch (policy) {
    case 'Never':
      return false;
    case 'Any':
      return true;
    case 'LowerPriority':
      return preemptor.priority > candidate.priority;
    case 'LowerOrNewerEqualPriority':
      return preemptor.priority > candidate.priority || (preemptor.priority === candidate.priority && preemptor.createdAt < candidate.createdAt);
  }
}

function usesAny(w: KueueWorkload, frs: ReadonlySet<FlavorResource>): boolean {
  for (const [fr, v] of w.usage) if (v > 0 && frs.has(fr)) return true;
  return false;
}

function findCandidates(tree: KueueQuotaTree, ledger: UsageLedger, preemptor: KueueWorkload, need: ReadonlySet<FlavorResource>): KueueWorkload[] {
  const queue = preemptor.clusterQueue;
  const policy = tree.node(queue).preemption;
  if (policy === undefined) return [];
  const out: KueueWorkload[] = [];
  const take = (q: string, p: WithinClusterQueue | ReclaimWithinCohort): void => {
    for (const w of tree.workloadsOf(q)) if (w.name !== preemptor.name && policyAllows(p, preemptor, w) && usesAny(w, need)) out.push(w);
  };
  if (policy.withinClusterQueue !== 'Never') take(queue, policy.withinClusterQueue);
  if (tree.parentOf(queue) !== null && policy.reclaimWithinCohort !== 'Never') {
    for (const q of tree.subtreeClusterQueues(tree.rootOf(queue))) {
      if (q === queue || ![...need].some((fr) => ledger.isBorrowing(q, fr))) continue;
      take(q, policy.reclaimWithinCohort);
    }
  }
  return out.sort(candidateOrder(queue));
}

/** One attempt's scratch: the ledger (with W's usage added), W, and the targets so far. */
class Attempt {
  readonly targets: KueueTarget[] = [];
  readonly taken: KueueWorkload[] = [];

  constructor(
    readonly ledger: UsageLedger,
    readonly preemptor: KueueWorkload,
  ) {}

  /** Evict `w` in the simulation and record it; true once W fits. */
  take(w: KueueWorkload, target: KueueTarget): boolean {
    this.ledger.removeWorkload(w);
    this.taken.push(w);
    this.targets.push(target);
    return this.fits();
  }

  /** Whether W fits with its own simulated usage taken out again (Kueue's workloadFitsForFairSharing). */
  fits(): boolean {
    const { ledger, preemptor } = this;
    ledger.remove(preemptor.clusterQueue, preemptor.usage);
    const fits = ledger.fits(preemptor.clusterQueue, preemptor.usage);
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

/** Kueue's fill-back: newest target kept, earlier ones returned while W still fits. */
function fillBack(ledger: UsageLedger, preemptor: KueueWorkload, taken: KueueWorkload[], targets: KueueTarget[]): { targets: KueueTarget[]; returned: string[] } {
  const keep = targets.map(() => true);
  for (let i = taken.length - 2; i >= 0; i--) {
    ledger.addWorkload(taken[i]!);
    if (ledger.fits(preemptor.clusterQueue, preemptor.usage)) keep[i] = false;
    else ledger.removeWorkload(taken[i]!);
  }
  return { targets: targets.filter((_, i) => keep[i]), returned: taken.filter((_, i) => !keep[i]).map((w) => w.name) };
}

/** The victims fair sharing chooses for `preemptor` (SEMANTICS 13), in the order taken. */
export function fairPreemption(state: KueueState, preemptor: KueuePreemptor, options: FairPreemptionOptions = {}): FairPreemptionResult {
  const strategies = state.fairSharing?.strategies.length ? state.fairSharing.strategies : DEFAULT_FAIR_STRATEGIES;
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  const w = preemptor.workload;
  const queue = w.clusterQueue;
  const need = new Set(options.needPreemption ?? [...w.usage].filter(([fr, v]) => v > 0 && v > ledger.available(queue, fr)).map(([fr]) => fr));
  const candidates = findCandidates(tree, ledger, w, need);
  if (candidates.length === 0) return { targets: [], strategies, returned: [] };

  ledger.add(queue, w.usage);
  const withinNominal = [...need].every((fr) => !ledger.isBorrowing(queue, fr));
  const attempt = new Attempt(ledger, w);
  const first = firstStrategy(attempt, candidates, strategies[0]!, withinNominal);
  const fits = first.fits || (strategies.length > 1 && secondStrategy(attempt, first.retry));
  ledger.remove(queue, w.usage);
  if (!fits) return { targets: [], strategies, returned: [] };
  return { ...fillBack(ledger, w, attempt.taken, attempt.targets), strategies };
}
