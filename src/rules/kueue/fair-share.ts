/**
 * The one home of fair sharing's number (SEMANTICS 13): a quota's dominant resource share
 * (DRS) and its weighted share, as Kueue computes them (pkg/cache/scheduler/fair_sharing.go
 * at ff69552). Kueue's `status.fairSharing.weightedShare` is `roundedShare` of the same value.
 *
 * For a node with a parent, per resource: what its usage (plus an optional request at the
 * node) exceeds its quota by, summed over flavors — a ClusterQueue's quota is its nominal,
 * a Cohort's its subtree's — against what the node's parent can lend it: over every
 * flavor-resource of the root, the most the parent could reach with no usage anywhere,
 * capped by borrowingLimits on the way (quota-math's potentialAvailable). The DRS is the
 * largest ratio × 1000 (ties: the first resource by name; a resource nobody can lend is
 * left out). The weighted share divides by the weight; a borrowing node of weight 0 has an
 * infinite share; a node not borrowing, and every root, has share 0.
 *
 * The quota arithmetic (subtree quota, usage bubbling, potentialAvailable) is quota-math's;
 * this file only combines it.
 */
import type { FlavorResource, KueueState } from './kueue-state.js';
import { KueueQuotaTree, type FlavorResourceAmounts, type UsageLedger } from './quota-math.js';

/** A node's share at one moment, with what decided it (enough to compare and to explain). */
export interface FairShare {
  node: string;
  weight: number;
  /** Usage above quota on at least one flavor-resource (even where nothing is lendable). */
  borrowing: boolean;
  /** The flavor-resources it is above quota on, in the tree's order. */
  borrowedOn: readonly FlavorResource[];
  /** The unweighted DRS: borrowed × 1000 / lendable on the dominant resource; 0 when none counts. */
  ratio: number;
  /** The resource that gave `ratio`; null when the ratio is 0. */
  dominantResource: string | null;
}

/** Below every real share: the starting point when looking for the highest (Kueue's NegativeDRS). */
export const BELOW_ANY_SHARE: FairShare = { node: '', weight: 1, borrowing: false, borrowedOn: [], ratio: -1, dominantResource: null };

/** A borrowing node of weight 0: its share is infinite, and such nodes compare among themselves by ratio. */
function zeroWeightBorrows(s: FairShare): boolean {
  return s.weight === 0 && s.ratio !== 0;
}

/** The weighted share: 0 when the ratio is 0, Infinity for a borrowing node of weight 0, else ratio / weight. */
export function weightedShare(s: FairShare): number {
  if (s.ratio === 0) return 0;
  if (s.weight === 0) return Infinity;
  return s.ratio / s.weight;
}

/** Kueue's status.fairSharing.weightedShare: the weighted share rounded up (Infinity stays). */
export function roundedShare(s: FairShare): number {
  return Math.ceil(weightedShare(s));
}

/**
 * Order of shares: negative when `a` is the lower (preferred for admission), positive when
 * the higher (preferred as a preemption target). Two infinite shares compare by ratio.
 */
export function compareShares(a: FairShare, b: FairShare): number {
  const az = zeroWeightBorrows(a);
  const bz = zeroWeightBorrows(b);
  if (az && bz) return Math.sign(a.ratio - b.ratio);
  if (az) return 1;
  if (bz) return -1;
  return Math.sign(weightedShare(a) - weightedShare(b));
}

/** Whether the share's node is above quota on any of `requested` (Kueue's IsBorrowingOn). */
export function isBorrowingOn(s: FairShare, requested: Iterable<FlavorResource>): boolean {
  const on = new Set(s.borrowedOn);
  for (const fr of requested) if (on.has(fr)) return true;
  return false;
}

/** The resource of a `${flavor}/${resource}` key (a flavor name has no '/', a resource may). */
export function resourceOf(fr: FlavorResource): string {
  return fr.slice(fr.indexOf('/') + 1);
}

/** Per tree: each node's flavor-resources with their resource names (quotas only, so fixed). */
const keysCache = new WeakMap<KueueQuotaTree, Map<string, ReadonlyArray<readonly [FlavorResource, string]>>>();

function keysOf(tree: KueueQuotaTree, node: string): ReadonlyArray<readonly [FlavorResource, string]> {
  let perTree = keysCache.get(tree);
  if (perTree === undefined) {
    perTree = new Map();
    keysCache.set(tree, perTree);
  }
  let keys = perTree.get(node);
  if (keys === undefined) {
    keys = tree.subtreeFlavorResources(node).map((fr) => [fr, resourceOf(fr)] as const);
    perTree.set(node, keys);
  }
  return keys;
}

/** Lendable per resource for a node's parent, cached per tree: it depends on quotas only. */
const lendableCache = new WeakMap<KueueQuotaTree, Map<string, Map<string, number>>>();

function lendableTo(ledger: UsageLedger, parent: string): Map<string, number> {
  let perTree = lendableCache.get(ledger.tree);
  if (perTree === undefined) {
    perTree = new Map();
    lendableCache.set(ledger.tree, perTree);
  }
  let lendable = perTree.get(parent);
  if (lendable === undefined) {
    lendable = new Map();
    for (const fr of ledger.tree.subtreeFlavorResources(ledger.tree.rootOf(parent))) {
      const r = resourceOf(fr);
      lendable.set(r, (lendable.get(r) ?? 0) + ledger.potentialAvailable(parent, fr));
    }
    perTree.set(parent, lendable);
  }
  return lendable;
}

/**
 * The share of `node` at the ledger's usage, with `extra` added at the node itself (not
 * bubbled to its parents: Kueue's wlReq, used to ask "after admitting this workload").
 */
export function dominantResourceShare(ledger: UsageLedger, node: string, extra?: FlavorResourceAmounts): FairShare {
  const { tree } = ledger;
  const weight = tree.node(node).weight;
  const parent = tree.parentOf(node);
  const share: FairShare = { node, weight, borrowing: false, borrowedOn: [], ratio: 0, dominantResource: null };
  if (parent === null) return share;
  const borrowed = new Map<string, number>();
  const borrowedOn: FlavorResource[] = [];
  for (const [fr, r] of keysOf(tree, node)) {
    const over = (extra?.get(fr) ?? 0) + ledger.usage(node, fr) - tree.subtreeQuota(node, fr);
    if (over <= 0) continue;
    borrowed.set(r, (borrowed.get(r) ?? 0) + over);
    borrowedOn.push(fr);
  }
  if (borrowedOn.length === 0) return share;
  share.borrowing = true;
  share.borrowedOn = borrowedOn;
  const lendable = lendableTo(ledger, parent);
  for (const [r, b] of borrowed) {
    const l = lendable.get(r) ?? 0;
    if (l <= 0) continue;
    const ratio = (b * 1000) / l;
    if (ratio > share.ratio || (ratio === share.ratio && share.dominantResource !== null && r < share.dominantResource)) {
      share.ratio = ratio;
      share.dominantResource = r;
    }
  }
  return share;
}

/** Every node's share at the admitted workloads' usage (for explain, the quota views, metrics). */
export function fairShares(state: KueueState): Map<string, FairShare> {
  const ledger = KueueQuotaTree.of(state).ledger();
  const out = new Map<string, FairShare>();
  for (const name of state.nodes.keys()) out.set(name, dominantResourceShare(ledger, name));
  return out;
}
