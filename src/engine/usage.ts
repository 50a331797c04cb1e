/**
 * Quota usage (SEMANTICS 3) and what a request would overrun. usage(A) counts the
 * in-quota and borrowing jobs of A's subtree, except a borrower at its own quota: it is
 * over its own `min` by design and counts only at the ancestors it borrows through
 * (invariant 2).
 */
import type { Quota, RunningJob } from '../model/policy.js';
import { usageByQuota } from '../model/usage-rule.js';
import type { QuotaTree } from '../model/quota-tree.js';
import { RESOURCE_NAMES, addGpu, type ResourceName } from '../model/resources.js';

/** usage[quota][resource], resources in RESOURCE_NAMES order. */
export type UsageTable = Float64Array[];

export { countsAt, totalRequest } from '../model/usage-rule.js';

/** Usage of every quota by the running jobs. */
export function computeUsage(tree: QuotaTree, jobs: RunningJob[]): UsageTable {
  return usageByQuota(tree, jobs);
}

/** One quota a request would overrun: by how much, of which resource. */
export interface Overrun {
  quota: number;
  resource: number;
  deficit: number;
  used: number;
  min: number;
  need: number;
}

/**
 * What admitting `need` on quota `q` would overrun, for the standing it would run in:
 * `in-quota` checks q and every ancestor; `borrowing` skips q itself (it may exceed its
 * own min) and checks the ancestors it borrows through.
 */
export function overruns(tree: QuotaTree, usage: UsageTable, q: number, need: Record<ResourceName, number>, target: 'in-quota' | 'borrowing'): Overrun[] {
  const out: Overrun[] = [];
  for (const a of tree.pathToRoot(q)) {
    if (target === 'borrowing' && a === q) continue;
    const quota: Quota = tree.at(a);
    const row = usage[a]!; // one usage row per quota
    RESOURCE_NAMES.forEach((r, i) => {
      const min = quota.min[r];
      if (min === undefined || need[r] === 0) return;
      const used = row[i]!;
      // GPU amounts are whole milli-GPUs (shares): round so 0.1 + 0.2 − 0.3 is 0, not 5e-17.
      const deficit = i === 0 ? addGpu(used + need[r], -min) : used + need[r] - min;
      if (deficit > 0) out.push({ quota: a, resource: i, deficit, used, min, need: need[r] });
    });
  }
  return out;
}

/** Quotas where `need` exceeds `min` outright: no preemption can ever make room there. */
export function neverFits(tree: QuotaTree, q: number, need: Record<ResourceName, number>, target: 'in-quota' | 'borrowing'): Overrun[] {
  return overruns(tree, zeroUsage(tree), q, need, target);
}

const zeros = new WeakMap<QuotaTree, UsageTable>();

/** An all-zero usage table for `tree`, made once per tree (read only): answers ask for it every time. */
function zeroUsage(tree: QuotaTree): UsageTable {
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
