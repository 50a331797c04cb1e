/**
 * The spot market's rules (SEMANTICS 6), in one place for `quotient simulate` and for
 * the market questions of `quotient whatif`:
 *
 *   start    bid ≥ market price, and the free inventory holds every pod of the job;
 *   release  once the protection period is over: the price rises above the bid, or the
 *            inventory falls short — then the lowest bids go first (ours), until the
 *            jobs left fit; no notice is given.
 *
 * Prices are per instance-hour; a pod takes one instance. A discount bid is worth
 * `discountLimit × payAsYouGo`.
 */
import type { SpotInstanceType } from '../model/policy.js';
import { SPOT_RELEASE_TEXT } from '../model/victim-order.js';

/** The name a spot release carries in reports, beside the policy's preemption rules. */
export const SPOT_RULE = 'market/spot-release';

/** A spot job's bid as the rules see it. */
export interface SpotBidView {
  priceLimit?: number;
  discountLimit?: number;
}

/** A running spot job, as the release rule needs it. */
export interface RunningSpot {
  name: string;
  pods: number;
  gpusPerPod: number;
  bid: SpotBidView;
  startedAt: number;
  /** GPU-hours the job would lose if released now (SEMANTICS 7). */
  lostGpuHours: number;
}

/** One release, with its cause and the sentence a user reads. */
export interface SpotRelease {
  job: string;
  cause: 'price' | 'inventory';
  bid: number;
  price: number;
  lostGpuHours: number;
  reason: string;
}

/** The bid in price units (per instance-hour). */
export function bidPrice(bid: SpotBidView, type: Pick<SpotInstanceType, 'payAsYouGo'>): number {
  if (bid.priceLimit !== undefined) return bid.priceLimit;
  return round4((bid.discountLimit ?? 0) * type.payAsYouGo);
}

/** True when a waiting job may start now: its bid reaches the price and its pods fit the free inventory. */
export function canStart(bid: number, price: number, pods: number, freeInventory: number): boolean {
  return bid >= price && pods <= freeInventory;
}

/** True once a job started at `startedAt` may be released at `now`. */
export function protectionOver(startedAt: number, now: number, protection: number): boolean {
  return now - startedAt >= protection;
}

/**
 * The jobs released at `now` on one instance type whose price is `price` and whose
 * inventory is `inventory`: first every unprotected job bidding below the price, then,
 * while the remaining jobs need more instances than the inventory holds, unprotected
 * jobs in the release order (model/victim-order.ts `SPOT_RELEASE_ORDER`: lowest bid
 * first, then most recently started, then name).
 */
export function selectReleases(type: SpotInstanceType, running: RunningSpot[], price: number, inventory: number, now: number, protection: number): SpotRelease[] {
  const out: SpotRelease[] = [];
  const released = new Set<string>();
  const per = (j: RunningSpot) => `${j.pods} instance(s), ${j.pods * j.gpusPerPod} GPUs`;
  for (const j of running) {
    const bid = bidPrice(j.bid, type);
    if (bid < price && protectionOver(j.startedAt, now, protection)) {
      released.add(j.name);
      out.push({
        job: j.name,
        cause: 'price',
        bid,
        price,
        lostGpuHours: j.lostGpuHours,
        reason: `the market price of ${type.name} rose to ${fmt(price)}/h, above the job's bid of ${fmt(bid)}/h${bidNote(j.bid, type)}; its protection period is over, so its ${per(j)} were released without notice`,
      });
    }
  }
  let inUse = running.filter((j) => !released.has(j.name)).reduce((s, j) => s + j.pods, 0);
  if (inUse > inventory) {
    const order = running
      .filter((j) => !released.has(j.name) && protectionOver(j.startedAt, now, protection))
      .sort((a, b) => bidPrice(a.bid, type) - bidPrice(b.bid, type) || b.startedAt - a.startedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const j of order) {
      if (inUse <= inventory) break;
      inUse -= j.pods;
      const bid = bidPrice(j.bid, type);
      out.push({
        job: j.name,
        cause: 'inventory',
        bid,
        price,
        lostGpuHours: j.lostGpuHours,
        reason: `the spot inventory of ${type.name} fell to ${inventory} instance(s), fewer than the running spot jobs hold; ${SPOT_RELEASE_TEXT} and the job's ${fmt(bid)}/h was among them, so its ${per(j)} were released without notice`,
      });
    }
  }
  return out;
}

function bidNote(bid: SpotBidView, type: SpotInstanceType): string {
  return bid.discountLimit !== undefined ? ` (discountLimit ${bid.discountLimit} of the ${fmt(type.payAsYouGo)}/h pay-as-you-go price)` : '';
}

function fmt(x: number): string {
  return String(round4(x));
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
