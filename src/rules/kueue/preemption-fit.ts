/**
 * The two steps Kueue's classic and fair preemption share (pkg/scheduler/preemption/
 * preemption.go at ff69552): whether the incoming workload fits its ClusterQueue on the
 * current (simulated) usage, and the fill-back that gives back victims it does not need.
 */
import type { FlavorResource, KueueWorkload } from './kueue-state.js';
import type { UsageLedger } from './quota-math.js';

/**
 * Kueue's workloadFits, without topology: every flavor-resource of `usage` is within what
 * the ClusterQueue can take now, and, unless borrowing is allowed, within its nominal quota.
 */
export function workloadFits(ledger: UsageLedger, clusterQueue: string, usage: ReadonlyMap<FlavorResource, number>, allowBorrowing: boolean): boolean {
  for (const [fr, v] of usage) {
    if (!allowBorrowing && ledger.isBorrowing(clusterQueue, fr, v)) return false;
    if (v > ledger.available(clusterQueue, fr)) return false;
  }
  return true;
}

/**
 * Kueue's fill-back, on a ledger from which every one of `taken` is removed: newest victim
 * first (the last one taken always stays), put each back and drop it from the list if the
 * workload still fits, else remove it again. Kueue drops a victim by moving the last one
 * into its place, so the result is not in the order taken; kept as Kueue does it. On
 * return the ledger has exactly the returned victims removed.
 */
export function fillBack<T extends { workload: KueueWorkload }>(
  ledger: UsageLedger,
  clusterQueue: string,
  usage: ReadonlyMap<FlavorResource, number>,
  taken: readonly T[],
  allowBorrowing: boolean,
): T[] {
  const targets = [...taken];
  for (let i = targets.length - 2; i >= 0; i--) {
    const t = targets[i]!;
    ledger.addWorkload(t.workload);
    if (workloadFits(ledger, clusterQueue, usage, allowBorrowing)) {
      targets[i] = targets[targets.length - 1]!;
      targets.pop();
    } else {
      ledger.removeWorkload(t.workload);
    }
  }
  return targets;
}
