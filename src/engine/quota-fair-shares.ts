/**
 * Each quota's weighted share (SEMANTICS 13) at the snapshot's running jobs, for the views
 * that show it (`GET /v1/quotas`, `/metrics`, `quotient explain`, the web app's tree).
 * Only trees under Kueue's rules with `spec.fairSharing` have one. The number is
 * fair-share.ts's `roundedShare` of the pool's KueueState (the one home of the share,
 * on the same state a what-if decides on), so it is Kueue's own
 * `status.fairSharing.weightedShare`; a borrowing quota of weight 0 has Infinity.
 */
import { fairShares, roundedShare } from '../rules/kueue/fair-share.js';
import { kueueStateOf } from './kueue-whatif.js';
import type { Snapshot } from './snapshot.js';

/** One quota's share as Kueue reports it: the weighted share rounded up, and the weight that divided it. */
export interface QuotaFairShare {
  /** Kueue's status.fairSharing.weightedShare; Infinity for a borrowing quota of weight 0. */
  weightedShare: number;
  weight: number;
}

/** The shares of every quota whose tree has fair sharing on, by quota name (empty when no tree has it). */
export function quotaFairShares(snap: Snapshot): Map<string, QuotaFairShare> {
  return snap.memo('quota-fair-shares', () => {
    const out = new Map<string, QuotaFairShare>();
    for (const pool of snap.policy.pools) {
      if (pool.rules !== 'kueue' || !pool.fairSharing) continue;
      for (const [name, s] of fairShares(kueueStateOf(snap, pool).state)) out.set(name, { weightedShare: roundedShare(s), weight: s.weight });
    }
    return out;
  });
}

/** A share as JSON writes it: JSON has no Infinity, so a weight-0 borrower's share is "infinite". */
export function shareJson(share: number): number | 'infinite' {
  return share === Infinity ? 'infinite' : share;
}

/** A share in words. */
export function shareText(share: number): string {
  return String(shareJson(share));
}
