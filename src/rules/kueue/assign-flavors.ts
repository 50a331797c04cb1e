/**
 * Kueue's flavor assignment for one pod set (SEMANTICS 12, after Kueue's
 * pkg/scheduler/flavorassigner at ff69552): per resource group the pod set requests, one
 * flavor, tried in the ClusterQueue's order; a flavor whose taints the pods do not tolerate
 * is skipped; each flavor gets a mode — fit (within what the queue can take now), preempt
 * (within what it could take, and Kueue's preemption finds candidates), no candidates, or
 * no fit — and whether it borrows; flavorFungibility decides whether the search stops at
 * a flavor or tries the next, and the best mode tried wins (fit over preempt, not
 * borrowing over borrowing, the earlier flavor on a tie: Kueue's BorrowingOverPreemption).
 *
 * What this does not do (docs/kueue.md): Kueue's borrowing level is the height of the
 * lowest subtree that fits; here a flavor borrows or does not. Its "reclaim" mode (all
 * victims from other queues) ranks as preempt. Pods carry no tolerations or node
 * selectors of their own.
 */
import type { KueueFlavor, KueueQuotaClauses } from '../../model/kueue-policy.js';
import { classicPreemption } from './classic-preemption.js';
import { fairPreemption } from './fair-preemption.js';
import { flavorResource, type FlavorResource, type KueueState, type KueueWorkload } from './kueue-state.js';
import { KueueQuotaTree } from './quota-math.js';

/** A flavor's mode, worst first (Kueue's preemptionMode order, reclaim read as preempt). */
export const FLAVOR_MODES = ['NoFit', 'NoCandidates', 'Preempt', 'Fit'] as const;
export type FlavorMode = (typeof FLAVOR_MODES)[number];

/** One flavor tried for one resource group. */
export interface FlavorTry {
  flavor: string;
  mode: FlavorMode;
  borrow: boolean;
  /** Kueue's words for why it does not fit now (absent on a fit). */
  why?: string;
}

/** The flavor one resource group got. */
export interface GroupAssignment {
  resources: string[];
  /** The chosen flavor; undefined when no flavor could be tried at all. */
  flavor?: string;
  mode: FlavorMode;
  borrow: boolean;
  tried: FlavorTry[];
}

export interface FlavorAssignment {
  /** The worst mode over the groups. */
  mode: FlavorMode;
  borrow: boolean;
  groups: GroupAssignment[];
  /** The pod set's total requests on its assigned flavors. */
  usage: Map<FlavorResource, number>;
  /** The flavor-resources that need preemption (Kueue's frsNeedPreemption). */
  needPreemption: FlavorResource[];
  /** Kueue's pending message when the workload does not fit now. */
  pending?: string;
}

const RANK: Record<FlavorMode, number> = { NoFit: 0, NoCandidates: 1, Preempt: 2, Fit: 3 };

/** True when `a` is preferred to `b` (Kueue's isPreferred with BorrowingOverPreemption). */
function isPreferred(a: FlavorTry, b: FlavorTry | undefined): boolean {
  if (!b) return true;
  if (a.mode === 'NoFit') return false;
  if (b.mode === 'NoFit') return true;
  if (RANK[a.mode] !== RANK[b.mode]) return RANK[a.mode] > RANK[b.mode];
  return !a.borrow && b.borrow;
}

/** Kueue's shouldTryNextFlavor. */
function tryNext(t: FlavorTry, clauses: KueueQuotaClauses): boolean {
  if (t.mode === 'NoFit' || t.mode === 'NoCandidates') return true;
  const ff = clauses.flavorFungibility!;
  if (t.mode === 'Preempt' && ff.whenCanPreempt === 'TryNextFlavor') return true;
  if (t.borrow && ff.whenCanBorrow === 'TryNextFlavor') return true;
  return false;
}

/** Taints a pod without tolerations cannot run beside (NoSchedule, NoExecute). */
function untolerated(flavor: KueueFlavor | undefined): string | undefined {
  const t = flavor?.nodeTaints.find((x) => x.effect === 'NoSchedule' || x.effect === 'NoExecute');
  return t ? `untolerated taint {${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}} in flavor ${flavor!.name}` : undefined;
}

/** The incoming workload as the preemption oracle sees it (its usage is set per flavor tried). */
export type PreemptorInfo = Pick<KueueWorkload, 'name' | 'priority' | 'createdAt'>;

/**
 * Assigns flavors to one pod set of `clusterQueue` asking `requests` (totals by resource
 * name, in the model's units) on `state` (the workload is not among its workloads).
 */
export function assignFlavors(
  state: KueueState,
  clusterQueue: string,
  clauses: KueueQuotaClauses,
  flavors: ReadonlyMap<string, KueueFlavor>,
  requests: ReadonlyMap<string, number>,
  preemptor: PreemptorInfo,
): FlavorAssignment {
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  const groups: GroupAssignment[] = [];
  const usage = new Map<FlavorResource, number>();
  const pending: string[] = [];
  // A resource the queue covers in no group cannot be admitted (Kueue: "resource X unavailable in ClusterQueue").
  for (const [r, v] of requests) {
    if (v > 0 && !clauses.resourceGroups.some((g) => g.coveredResources.includes(r))) {
      groups.push({ resources: [r], mode: 'NoFit', borrow: false, tried: [] });
      pending.push(`resource ${r} unavailable in ClusterQueue`);
    }
  }
  const preemption = state.nodes.get(clusterQueue)?.preemption;
  const canPreemptWhileBorrowing = (preemption?.borrowWithinCohort.policy ?? 'Never') !== 'Never';
  for (const g of clauses.resourceGroups) {
    const asked = g.coveredResources.filter((r) => (requests.get(r) ?? 0) > 0);
    if (asked.length === 0) continue;
    const tried: FlavorTry[] = [];
    let best: FlavorTry | undefined;
    for (const f of g.flavors) {
      const taint = untolerated(flavors.get(f.name));
      if (taint) {
        tried.push({ flavor: f.name, mode: 'NoFit', borrow: false, why: taint });
        continue;
      }
      let mode: FlavorMode = 'Fit';
      let borrow = false;
      const whys: string[] = [];
      for (const r of asked) {
        const fr = flavorResource(f.name, r);
        const val = requests.get(r)!;
        const nominal = tree.quota(clusterQueue, fr).nominal;
        let m: FlavorMode;
        if (val > ledger.potentialAvailable(clusterQueue, fr)) {
          m = 'NoFit';
          whys.push(`insufficient quota for ${r} in flavor ${f.name}, request (${val}) > maximum capacity (${ledger.potentialAvailable(clusterQueue, fr)})`);
        } else if (val <= ledger.available(clusterQueue, fr)) {
          m = 'Fit';
        } else {
          whys.push(`insufficient unused quota for ${r} in flavor ${f.name}, ${val - ledger.available(clusterQueue, fr)} more needed`);
          if (nominal >= val || canPreemptWhileBorrowing || tree.parentOf(clusterQueue) !== null) {
            // Kueue's oracle: would its preemption find victims for this flavor-resource alone?
            // Under fair sharing the oracle asks fair preemption, as Kueue's does (SEMANTICS 13).
            const probe = { workload: { ...preemptor, clusterQueue, admittedAt: preemptor.createdAt, evicted: false, usage: new Map([[fr, val]]) } };
            const sim = state.fairSharing ? fairPreemption(state, probe, [fr]) : classicPreemption(state, probe, [fr]);
            m = sim.targets.length > 0 ? 'Preempt' : 'NoCandidates';
          } else m = 'NoFit';
        }
        if (ledger.isBorrowing(clusterQueue, fr, val) && tree.parentOf(clusterQueue) !== null) borrow = true;
        if (RANK[m] < RANK[mode]) mode = m;
      }
      const t: FlavorTry = { flavor: f.name, mode, borrow, ...(whys.length > 0 ? { why: whys.join('; ') } : {}) };
      tried.push(t);
      if (isPreferred(t, best)) best = t;
      if (!tryNext(t, clauses)) break;
    }
    const chosen = best;
    groups.push({ resources: asked, ...(chosen && chosen.mode !== 'NoFit' ? { flavor: chosen.flavor } : {}), mode: chosen?.mode ?? 'NoFit', borrow: chosen?.borrow ?? false, tried });
    if (chosen && chosen.mode !== 'NoFit') for (const r of asked) usage.set(flavorResource(chosen.flavor, r), requests.get(r)!);
    if (!chosen || chosen.mode !== 'Fit')
      pending.push(
        tried
          .map((t) => t.why)
          .filter((w): w is string => w !== undefined)
          .join('; '),
      );
  }
  const mode = groups.reduce<FlavorMode>((m, g) => (RANK[g.mode] < RANK[m] ? g.mode : m), 'Fit');
  const needPreemption = mode === 'Preempt' ? [...usage.keys()].filter((fr) => (usage.get(fr) ?? 0) > ledger.available(clusterQueue, fr)) : [];
  return {
    mode,
    borrow: groups.some((g) => g.borrow),
    groups,
    usage,
    needPreemption,
    ...(pending.length > 0 ? { pending: `couldn't assign flavors to pod set main: ${pending.filter((p) => p !== '').join('; ')}` } : {}),
  };
}
