/**
 * SEMANTICS 3's usage rule, in one place: usage(A) counts the in-quota and borrowing
 * jobs of A's subtree, except a borrower at its own quota — it is over its own `min` by
 * design and counts only at the ancestors it borrows through (invariant 2). Idle jobs
 * never count (invariant 5). The engine, the snapshot checks and quota scaling all use
 * these functions, so they cannot disagree.
 */
import type { Standing } from './policy.js';
import type { QuotaTree } from './quota-tree.js';
import { RESOURCE_NAMES, addGpu, type ResourceName, type Resources } from './resources.js';

/** True when a job of `standing` on quota `jobQuota` counts in usage(A). */
export function countsAt(tree: QuotaTree, standing: Standing, jobQuota: number, a: number): boolean {
  if (standing === 'idle') return false;
  if (!tree.inSubtree(jobQuota, a)) return false;
  return !(standing === 'borrowing' && jobQuota === a);
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
      if (!countsAt(tree, standing, q, a)) continue;
      const row = usage[a]!; // a is a quota index
      row[0] = addGpu(row[0]!, gpu);
      row[1] = row[1]! + cpu;
      row[2] = row[2]! + memory;
    }
  }
  return usage;
}
