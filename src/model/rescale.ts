/**
 * How running jobs' standings change when quotas get new `min.gpu` values (SEMANTICS 9,
 * docs/teams.md "Quota scaling"). Pure: the model in, the changes out. engine/scale.ts
 * explains the result; policy/check/check-scales.ts refuses a scaling that leaves `over`.
 *
 *   1. Every quota whose min changes and whose new min has room takes its own
 *      `borrowing` jobs back into its guarantee, most important first (priority high →
 *      low, then oldest first, then name), while they fit: they are no longer
 *      reclaimable.
 *   2. A quota that shrinks below its usage turns the fewest of its own `in-quota` jobs
 *      `borrowing` that the shrink needs: least important first (priority low → high,
 *      then newest first, then name) until its usage is within the new min, then, in
 *      reverse, each turned job whose return keeps the quota within its min goes back
 *      `in-quota` (the reprieve of SEMANTICS 5.3, so the set is minimal). Their GPUs
 *      still count at every ancestor, so no ancestor's usage changes; they become
 *      reclaimable by the quota's siblings.
 *   3. What is still over after 2 (a root has no sibling to borrow from; borrowers from
 *      below count at a shrunk parent) is returned as `over`: the scaling is refused.
 *
 * Usage is SEMANTICS 3's: in-quota and borrowing jobs of the subtree, a borrower not
 * counted at its own quota. Only GPUs are rescaled.
 */
import type { Quota, RunningJob, Standing } from './policy.js';
import { compareText } from './order.js';
import { QuotaTree } from './quota-tree.js';
import { usageByQuota } from './usage-rule.js';

/** One job whose standing changes. */
export interface StandingChange {
  job: RunningJob;
  from: Standing;
  to: Standing;
  /** The quota whose new min caused it. */
  quota: string;
}

/** The outcome of a rescale. */
export interface Rescale {
  changes: StandingChange[];
  /** Quotas still over their new min after step 2, by how many GPUs. */
  over: Array<{ quota: string; used: number; min: number }>;
  /** GPU usage per quota index after the changes (SEMANTICS 3). */
  usage: number[];
  /** The standing of every job after the changes, by job name. */
  standings: Map<string, Standing>;
}

/** Applies `newMin` (quota name → GPUs) to the running jobs. */
export function rescaleStandings(quotas: Quota[], jobs: RunningJob[], newMin: Map<string, number>): Rescale {
  const tree = new QuotaTree(quotas);
  const standings = new Map(jobs.map((j) => [j.name, j.standing]));
  const gpus = (j: RunningJob) => j.pods * j.resources.gpu;
  // GPU usage per quota, computed once; a job changing standing at its own quota moves
  // only that quota's usage (its ancestors count it either way).
  const usage = usageByQuota(tree, jobs).map((u) => u[0]!); // one row per quota, GPUs first
  const byQuota = new Map<string, RunningJob[]>();
  for (const j of jobs) byQuota.set(j.quota, [...(byQuota.get(j.quota) ?? []), j]);
  const min = (q: Quota) => newMin.get(q.name) ?? q.min.gpu;
  const changes: StandingChange[] = [];
  const own = (q: Quota, s: Standing) => (byQuota.get(q.name) ?? []).filter((j) => standings.get(j.name) === s);

  for (const q of quotas) {
    if (min(q) === q.min.gpu) continue;
    const a = tree.indexOf(q.name);
    const borrowers = own(q, 'borrowing').sort((x, y) => y.priority - x.priority || x.startedAt - y.startedAt || compareText(x.name, y.name));
    for (const j of borrowers) {
      if (usage[a]! + gpus(j) > min(q)) continue;
      standings.set(j.name, 'in-quota');
      usage[a] = usage[a]! + gpus(j);
      changes.push({ job: j, from: 'borrowing', to: 'in-quota', quota: q.name });
    }
  }
  const over: Rescale['over'] = [];
  for (const q of quotas) {
    if (min(q) >= q.min.gpu) continue;
    const a = tree.indexOf(q.name);
    if (q.parent !== null && usage[a]! > min(q)) {
      const inQuota = own(q, 'in-quota').sort((x, y) => x.priority - y.priority || y.startedAt - x.startedAt || compareText(x.name, y.name));
      const turned: RunningJob[] = [];
      for (const j of inQuota) {
        if (usage[a]! <= min(q)) break;
        turned.push(j);
        usage[a] = usage[a]! - gpus(j);
      }
      // Reprieve: the greedy prefix may hold small jobs a later, larger one made needless.
      for (let k = turned.length - 1; k >= 0; k--) {
        const j = turned[k]!;
        if (usage[a]! + gpus(j) > min(q)) continue;
        usage[a] = usage[a]! + gpus(j);
        turned.splice(k, 1);
      }
      for (const j of turned) {
        standings.set(j.name, 'borrowing');
        changes.push({ job: j, from: 'in-quota', to: 'borrowing', quota: q.name });
      }
    }
    if (usage[a]! > min(q)) over.push({ quota: q.name, used: usage[a]!, min: min(q) });
  }
  return { changes, over, usage, standings };
}
