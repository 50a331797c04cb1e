/**
 * Quota usage (SEMANTICS 3) and what a request would overrun. usage(A) counts the
 * in-quota and borrowing jobs of A's subtree, except a borrower at its own quota: it is
 * over its own `min` by design and counts only at the ancestors it borrows through
 * (invariant 2).
 */
import type { Quota, RunningJob, Standing } from '../model/policy.js';
import type { QuotaTree } from '../model/quota-tree.js';
import { RESOURCE_NAMES, type ResourceName, type Resources } from '../model/resources.js';

/** usage[quota][resource], resources in RESOURCE_NAMES order. */
export type UsageTable = Float64Array[];

/** True when a job of `standing` on quota `jobQuota` counts in usage(A). */
export function countsAt(tree: QuotaTree, standing: Standing, jobQuota: number, a: number): boolean {
  if (standing === 'idle') return false;
  if (!tree.inSubtree(jobQuota, a)) return false;
  return !(standing === 'borrowing' && jobQuota === a);
}

/** A job's total request: pods × per-pod resources. */
export function totalRequest(job: { pods: number; resources: Resources }): Record<ResourceName, number> {
  return {
    gpu: job.pods * job.resources.gpu,
    cpu: job.pods * (job.resources.cpu ?? 0),
    memory: job.pods * (job.resources.memory ?? 0),
  };
}

/** Usage of every quota by the running jobs. */
export function computeUsage(tree: QuotaTree, jobs: RunningJob[]): UsageTable {
  const usage = tree.quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
  for (const job of jobs) {
    if (job.standing === 'idle') continue;
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    for (const a of tree.pathToRoot(q)) {
      if (!countsAt(tree, job.standing, q, a)) continue;
      RESOURCE_NAMES.forEach((r, i) => (usage[a][i] += need[r]));
    }
  }
  return usage;
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
    const quota: Quota = tree.quotas[a];
    RESOURCE_NAMES.forEach((r, i) => {
      const min = quota.min[r];
      if (min === undefined || need[r] === 0) return;
      const deficit = usage[a][i] + need[r] - min;
      if (deficit > 0) out.push({ quota: a, resource: i, deficit, used: usage[a][i], min, need: need[r] });
    });
  }
  return out;
}

/** Quotas where `need` exceeds `min` outright: no preemption can ever make room there. */
export function neverFits(tree: QuotaTree, q: number, need: Record<ResourceName, number>, target: 'in-quota' | 'borrowing'): Overrun[] {
  const zero = tree.quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
  return overruns(tree, zero, q, need, target);
}
