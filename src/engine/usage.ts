/**
 * Quota usage (SEMANTICS 3) and what a request would overrun, as the engine reads them
 * from a snapshot. usage(A) counts the in-quota and borrowing jobs of A's subtree,
 * except a borrower at its own quota: it is over its own `min` by design and counts only
 * at the ancestors it borrows through (invariant 2). A ceiling (`max`) counts the
 * borrower at its own quota too (invariant 10). The rules themselves are
 * model/usage-rule.ts, which the loader's checks share.
 */
import type { QuotaTree } from '../model/quota-tree.js';
import { RESOURCE_NAMES, type ResourceName } from '../model/resources.js';
import { ceilingUsageByQuota, overruns, usageByQuota, type Overrun } from '../model/usage-rule.js';
import type { RunningJob } from '../model/policy.js';

/** usage[quota][resource], resources in RESOURCE_NAMES order. */
export type UsageTable = Float64Array[];

export { ceilingOverruns, countsAt, countsAtCeiling, overruns, totalRequest, type Overrun } from '../model/usage-rule.js';

/** Usage of every quota by the running jobs. */
export function computeUsage(tree: QuotaTree, jobs: RunningJob[]): UsageTable {
  return usageByQuota(tree, jobs);
}

/** True when some quota of the tree has a ceiling (made once per tree). */
export function hasCeilings(tree: QuotaTree): boolean {
  let known = withCeilings.get(tree);
  if (known === undefined) withCeilings.set(tree, (known = tree.quotas.some((q) => q.max !== undefined)));
  return known;
}

const withCeilings = new WeakMap<QuotaTree, boolean>();

/** What `ceilingUsage` reads of a snapshot (engine/snapshot.ts), named here so that usage.ts, which it imports, need not import it. */
export interface MemoizingState {
  readonly tree: QuotaTree;
  readonly jobs: readonly RunningJob[];
  memo<T>(key: string, make: () => T): T;
}

/**
 * The snapshot's usage as ceilings count it, once per snapshot state (a live snapshot's
 * every change drops it): only a policy with a `max` ever asks, so a policy without one
 * pays nothing.
 */
export function ceilingUsage(snap: MemoizingState): UsageTable {
  return snap.memo('ceiling-usage', () => ceilingUsageByQuota(snap.tree, snap.jobs));
}

/** Quotas where `need` exceeds `min` outright: no preemption can ever make room there. */
export function neverFits(tree: QuotaTree, q: number, need: Record<ResourceName, number>, target: 'in-quota' | 'borrowing'): Overrun[] {
  return overruns(tree, zeroUsage(tree), q, need, target);
}

const zeros = new WeakMap<QuotaTree, UsageTable>();

/** An all-zero usage table for `tree`, made once per tree (read only): answers ask for it every time. */
export function zeroUsage(tree: QuotaTree): UsageTable {
  let zero = zeros.get(tree);
  if (!zero || zero.length !== tree.quotas.length) {
    zero = tree.quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
    zeros.set(tree, zero);
  }
  return zero;
}

/**
 * The overruns victim selection must satisfy, without the dominated ones. For one
 * resource, whatever relieves a quota also relieves its ancestors (a job counted below
 * is counted above), so an ancestor's overrun is already met once a descendant's larger
 * or equal one is: it is dropped. `over` runs from the job's quota up, as `overruns`
 * returns it. What remains is at most one overrun per strictly growing deficit.
 */
export function bindingOverruns(over: Overrun[]): Overrun[] {
  const largestBelow = new Map<number, number>();
  const out: Overrun[] = [];
  for (const o of over) {
    const below = largestBelow.get(o.resource) ?? 0;
    if (o.deficit <= below) continue;
    largestBelow.set(o.resource, o.deficit);
    out.push(o);
  }
  return out;
}
