/**
 * SEMANTICS 3's usage rule, in one place: usage(A) counts the in-quota and borrowing
 * jobs of A's subtree, except a borrower at its own quota — it is over its own `min` by
 * design and counts only at the ancestors it borrows through (invariant 2). Idle jobs
 * never count (invariant 5). The engine, the snapshot checks and quota scaling all use
 * these functions, so they cannot disagree.
 */
import type { Quota, Standing } from './policy.js';
import type { QuotaTree } from './quota-tree.js';
import { RESOURCE_NAMES, addGpu, type ResourceName, type Resources } from './resources.js';

/** True when a job of `standing` on quota `jobQuota` counts in usage(A) (any tree that answers `inSubtree`: generators keep their own). */
export function countsAt(tree: Pick<QuotaTree, 'inSubtree'>, standing: Standing, jobQuota: number, a: number): boolean {
  if (standing === 'idle') return false;
  if (!tree.inSubtree(jobQuota, a)) return false;
  return !(standing === 'borrowing' && jobQuota === a);
}

/**
 * SEMANTICS 3's ceiling counts differently from `min`: a job of `standing` on `jobQuota`
 * counts against A.max when it is in-quota or borrowing anywhere in A's subtree, a
 * borrower at its own quota too (invariant 10: the subtree's in-quota and borrowing usage
 * never exceeds A.max). Idle jobs never count.
 */
export function countsAtCeiling(tree: QuotaTree, standing: Standing, jobQuota: number, a: number): boolean {
  return standing !== 'idle' && tree.inSubtree(jobQuota, a);
}

/** A job's total request: pods × per-pod resources. */
export function totalRequest(job: { pods: number; resources: Resources }): Record<ResourceName, number> {
  return {
    gpu: addGpu(0, job.pods * job.resources.gpu),
    cpu: job.pods * (job.resources.cpu ?? 0),
    memory: job.pods * (job.resources.memory ?? 0),
  };
}

/** usage[quota][resource] (resources in RESOURCE_NAMES order) of `jobs`, whose standing may be overridden. */
export function usageByQuota(
  tree: QuotaTree,
  jobs: ReadonlyArray<{ name: string; quota: string; standing: Standing; pods: number; resources: Resources }>,
  standingOf: (job: { name: string; standing: Standing }) => Standing = (j) => j.standing,
  counts: (tree: QuotaTree, standing: Standing, jobQuota: number, a: number) => boolean = countsAt,
): Float64Array[] {
  const usage = tree.quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
  for (const job of jobs) {
    const standing = standingOf(job);
    if (standing === 'idle') continue;
    const q = tree.indexOf(job.quota);
    // totalRequest's sums, without its object: this runs once per running job at every load.
    const gpu = addGpu(0, job.pods * job.resources.gpu);
    const cpu = job.pods * (job.resources.cpu ?? 0);
    const memory = job.pods * (job.resources.memory ?? 0);
    // q and its ancestors (pathToRoot's order, without its list); rows in RESOURCE_NAMES order.
    for (let a = q; a !== -1; a = tree.parentOf(a)) {
      if (!counts(tree, standing, q, a)) continue;
      const row = usage[a]!; // a is a quota index
      row[0] = addGpu(row[0]!, gpu);
      row[1] = row[1]! + cpu;
      row[2] = row[2]! + memory;
    }
  }
  return usage;
}

/** usage[quota][resource] as SEMANTICS 3's ceilings count it (`countsAtCeiling`): what each quota's `max` bounds. */
export function ceilingUsageByQuota(tree: QuotaTree, jobs: ReadonlyArray<{ name: string; quota: string; standing: Standing; pods: number; resources: Resources }>): Float64Array[] {
  return usageByQuota(tree, jobs, undefined, countsAtCeiling);
}

/**
 * One bound a request would break at one quota: a guarantee (`min`, SEMANTICS 3's
 * admission) or a ceiling (`max`), by how much, of which resource.
 */
export interface Overrun {
  quota: number;
  /** Index in RESOURCE_NAMES. */
  resource: number;
  kind: 'min' | 'max';
  deficit: number;
  /** What counts against the bound now (usage for `min`, ceiling usage for `max`). */
  used: number;
  /** The bound: the quota's min or max of that resource. */
  limit: number;
  need: number;
}

/** usage[quota][resource], resources in RESOURCE_NAMES order. */
export type UsageRows = readonly Float64Array[];

/**
 * What admitting `need` on quota `q` would overrun of the guarantees, for the standing it
 * would run in: `in-quota` checks q and every ancestor; `borrowing` skips q itself (it
 * may exceed its own min) and checks the ancestors it borrows through.
 */
export function overruns(tree: QuotaTree, usage: UsageRows, q: number, need: Record<ResourceName, number>, target: 'in-quota' | 'borrowing'): Overrun[] {
  const out: Overrun[] = [];
  for (const a of tree.pathToRoot(q)) {
    if (target === 'borrowing' && a === q) continue;
    pushOver(out, tree.at(a).min, 'min', a, usage[a]!, need);
  }
  return out;
}

/**
 * What admitting `need` on quota `q`, in quota or borrowing alike, would overrun of the
 * ceilings on its path, q's own included (SEMANTICS 3), given the ceiling usage
 * (`ceilingUsageByQuota`). Empty for a path without `max`.
 */
export function ceilingOverruns(tree: QuotaTree, ceilingUsage: UsageRows, q: number, need: Record<ResourceName, number>): Overrun[] {
  const out: Overrun[] = [];
  for (let a = q; a !== -1; a = tree.parentOf(a)) {
    const max = tree.at(a).max;
    if (max) pushOver(out, max, 'max', a, ceilingUsage[a]!, need);
  }
  return out;
}

function pushOver(out: Overrun[], bound: Quota['max'], kind: Overrun['kind'], a: number, row: Float64Array, need: Record<ResourceName, number>): void {
  for (let i = 0; i < RESOURCE_NAMES.length; i++) {
    const r = RESOURCE_NAMES[i]!;
    const limit = bound![r];
    if (limit === undefined || need[r] === 0) continue;
    const used = row[i]!;
    // GPU amounts are whole milli-GPUs (shares): round so 0.1 + 0.2 − 0.3 is 0, not 5e-17.
    const deficit = i === 0 ? addGpu(used + need[r], -limit) : used + need[r] - limit;
    if (deficit > 0) out.push({ quota: a, resource: i, kind, deficit, used, limit, need: need[r] });
  }
}
