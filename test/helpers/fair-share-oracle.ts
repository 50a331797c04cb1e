/**
 * A second, independent reading of SEMANTICS 13's share, for checking
 * src/rules/kueue/fair-share.ts on generated trees. It shares no code with src (only the
 * plain data types of kueue-state.ts): every number is recomputed from the state by
 * direct recursion, with no ledger, no caching and no incremental usage, so a slip in the
 * production arithmetic (usage bubbling, lending limits, the lendable sum) shows as a
 * disagreement rather than being repeated here.
 *
 * The definitions, in this file's words:
 * - a node's *pooled* quota on a flavor-resource is its own nominal plus, from each child,
 *   the child's pooled quota less what the child keeps back (`kept`: pooled − lendingLimit
 *   when a lendingLimit is set, never below 0; otherwise nothing);
 * - a ClusterQueue's *load* is the sum of its workloads' usage; a Cohort's is, over its
 *   children, what each child's load exceeds the part the child keeps back;
 * - what an ancestor chain can *reach* for a node (Kueue's potentialAvailable): at a root
 *   its pooled quota; below, the node's kept part plus what its parent can reach, capped
 *   at pooled + borrowingLimit when one is set;
 * - the share: for each resource, the excess of load (plus `extra`) over pooled quota,
 *   summed over its flavors, against the sum over the root's flavor-resources of that
 *   resource of what the node's parent can reach.
 */
import type { FlavorResource, KueueState } from '../../src/rules/kueue/kueue-state.js';

export interface OracleShare {
  borrowing: boolean;
  /** Unweighted: excess × 1000 / lendable on the dominant resource; 0 when none counts. */
  ratio: number;
  dominant: string | null;
  /** The weighted share: 0 when ratio is 0, Infinity at weight 0, else ratio / weight. */
  weighted: number;
}

/** The resource part of a `${flavor}/${resource}` key (resources may contain '/', flavors may not). */
function resourceOf(fr: FlavorResource): string {
  return fr.slice(fr.indexOf('/') + 1);
}

function kids(state: KueueState, name: string): string[] {
  return [...state.nodes.values()].filter((n) => n.parent === name).map((n) => n.name);
}

function keysOf(state: KueueState, name: string): Set<FlavorResource> {
  const out = new Set<FlavorResource>(state.nodes.get(name)!.quota.keys());
  if (state.nodes.get(name)!.kind === 'Cohort') for (const k of kids(state, name)) for (const fr of keysOf(state, k)) out.add(fr);
  return out;
}

function pooled(state: KueueState, name: string, fr: FlavorResource): number {
  const n = state.nodes.get(name)!;
  let total = n.quota.get(fr)?.nominal ?? 0;
  if (n.kind === 'Cohort') for (const k of kids(state, name)) total += pooled(state, k, fr) - kept(state, k, fr);
  return total;
}

function kept(state: KueueState, name: string, fr: FlavorResource): number {
  const limit = state.nodes.get(name)!.quota.get(fr)?.lendingLimit;
  return limit === undefined ? 0 : Math.max(0, pooled(state, name, fr) - limit);
}

function load(state: KueueState, name: string, fr: FlavorResource): number {
  const n = state.nodes.get(name)!;
  if (n.kind === 'ClusterQueue') return state.workloads.filter((w) => w.clusterQueue === name).reduce((s, w) => s + (w.usage.get(fr) ?? 0), 0);
  return kids(state, name).reduce((s, k) => s + Math.max(0, load(state, k, fr) - kept(state, k, fr)), 0);
}

function reach(state: KueueState, name: string, fr: FlavorResource): number {
  const n = state.nodes.get(name)!;
  if (n.parent === null) return pooled(state, name, fr);
  const viaParent = kept(state, name, fr) + reach(state, n.parent, fr);
  const limit = n.quota.get(fr)?.borrowingLimit;
  return limit === undefined ? viaParent : Math.min(viaParent, pooled(state, name, fr) + limit);
}

function rootOf(state: KueueState, name: string): string {
  let n = state.nodes.get(name)!;
  while (n.parent !== null) n = state.nodes.get(n.parent)!;
  return n.name;
}

/** The share of one node, with `extra` usage added at that node only (Kueue's wlReq). */
export function oracleShare(state: KueueState, name: string, extra: ReadonlyMap<FlavorResource, number> = new Map()): OracleShare {
  const n = state.nodes.get(name)!;
  const none: OracleShare = { borrowing: false, ratio: 0, dominant: null, weighted: 0 };
  if (n.parent === null) return none;
  const excess = new Map<string, number>();
  for (const fr of keysOf(state, name)) {
    const over = load(state, name, fr) + (extra.get(fr) ?? 0) - pooled(state, name, fr);
    if (over > 0) excess.set(resourceOf(fr), (excess.get(resourceOf(fr)) ?? 0) + over);
  }
  if (excess.size === 0) return none;
  const lendable = new Map<string, number>();
  for (const fr of keysOf(state, rootOf(state, name))) lendable.set(resourceOf(fr), (lendable.get(resourceOf(fr)) ?? 0) + reach(state, n.parent, fr));
  let ratio = 0;
  let dominant: string | null = null;
  for (const r of [...excess.keys()].sort()) {
    const l = lendable.get(r) ?? 0;
    if (l <= 0) continue;
    const x = (excess.get(r)! * 1000) / l;
    if (x > ratio) {
      ratio = x;
      dominant = r;
    }
  }
  const weighted = ratio === 0 ? 0 : n.weight === 0 ? Infinity : ratio / n.weight;
  return { borrowing: true, ratio, dominant, weighted };
}
