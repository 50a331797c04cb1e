/**
 * Standings for a snapshot of a real cluster (`Cluster` `spec.standings: derive`, as
 * `quotient import kubectl` writes it). Kubernetes does not say whether a running job is
 * within its quota's guarantee, and a real cluster runs jobs over their guarantees all
 * the time; SEMANTICS 2 would refuse such a snapshot when every job defaults to
 * `in-quota`. Here the policy's quota tree decides instead, the way quota scaling does
 * (SEMANTICS 9): the jobs that state no standing are taken highest priority first, then
 * longest running, and stay `in-quota` while they fit every guarantee on their path; a
 * job that does not fit runs `borrowing` where the policy lets it borrow (its priority is
 * in its quota's selfPreemption.highPriority, SEMANTICS 5.2, the quota is not a root, and
 * every ancestor has room: invariant 2), and otherwise `idle` on capacity beyond the
 * quota tree (idleResources: acceptable), which any job on quota may reclaim. Jobs that
 * state a standing keep it and count first. Every job not left `in-quota` is a warning
 * at its entry, so the reading is never silent; the same snapshot read under another
 * policy (`quotient diff`) gets that policy's standings.
 */
import type { Cluster, Quota, RunningJob } from '../model/policy.js';
import { formatRange, inRange } from '../model/priority.js';
import { QuotaTree } from '../model/quota-tree.js';
import { RESOURCE_NAMES } from '../model/resources.js';
import { countsAt, totalRequest } from '../model/usage-rule.js';
import type { JobOrigins } from './build-cluster.js';
import type { Collector } from './collector.js';

/** Gives the jobs marked `derive` in `origins` their standing; warns for each one not in-quota. */
export function deriveStandings(c: Collector, cluster: Cluster, quotas: Quota[], origins: JobOrigins): void {
  const derived = cluster.jobs.filter((j) => origins.get(j.name)?.derive === true);
  if (derived.length === 0) return;
  const tree = new QuotaTree(quotas);
  const used = quotas.map(() => RESOURCE_NAMES.map(() => 0));
  const add = (job: RunningJob): void => {
    if (job.standing === 'idle') return;
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    for (const a of tree.pathToRoot(q)) if (countsAt(tree, job.standing, q, a)) RESOURCE_NAMES.forEach((r, i) => (used[a]![i]! += need[r])); // a: quota index, i: resource index
  };
  // Stated standings are facts: they count before any derived one.
  for (const job of cluster.jobs) if (origins.get(job.name)?.derive !== true) add(job);
  const order = [...derived].sort((a, b) => b.priority - a.priority || a.startedAt - b.startedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const job of order) {
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    const path = tree.pathToRoot(q);
    // The first quota on the path a job of `standing` would push over its min (undefined: it fits).
    const blocking = (standing: 'in-quota' | 'borrowing'): number | undefined =>
      path.find(
        (a) =>
          countsAt(tree, standing, q, a) &&
          RESOURCE_NAMES.some((r, i) => {
            const min = tree.at(a).min[r];
            return min !== undefined && used[a]![i]! + need[r] > min;
          }),
      );
    const overAt = blocking('in-quota');
    if (overAt === undefined) {
      job.standing = 'in-quota';
      add(job);
      continue;
    }
    const quota = tree.at(q);
    const self = quota.selfPreemption;
    // SEMANTICS 5.2: only a job in its quota's highPriority range borrows, and a root has nobody to borrow from.
    const borrowRange = self !== undefined && inRange(self.highPriority, job.priority) && quota.parent !== null ? self.highPriority : undefined;
    const mayBorrow = borrowRange !== undefined;
    const lenderFull = mayBorrow ? blocking('borrowing') : undefined;
    const o = origins.get(job.name)!;
    const over = `job "${job.name}" (${need.gpu} GPU${need.gpu === 1 ? '' : 's'}) does not fit quota "${tree.at(overAt).name}"'s guarantee after the jobs of higher priority or earlier start`;
    if (borrowRange !== undefined && lenderFull === undefined) {
      job.standing = 'borrowing';
      add(job);
      c.warn(
        o.sd,
        o.path,
        'policy/derived-standing',
        `${over}: it runs borrowing (its priority ${job.priority} is in ${quota.name}'s selfPreemption.highPriority ${formatRange(borrowRange)}, and the quotas above have room)`,
        'the snapshot states no standing (standings: derive); write standing: on the job to say otherwise',
      );
      continue;
    }
    job.standing = 'idle';
    if (job.idleResources === 'none') job.idleResources = 'acceptable';
    const why = mayBorrow
      ? `quota "${tree.at(lenderFull ?? q).name}" above it has no room to lend`
      : quota.parent === null
        ? `${quota.name} is a root quota, with no siblings to borrow from`
        : `the policy does not let it borrow (priority ${job.priority} is not in ${quota.name}'s selfPreemption.highPriority${self ? ` ${formatRange(self.highPriority)}` : ': it has no selfPreemption'})`;
    c.warn(
      o.sd,
      o.path,
      'policy/derived-standing',
      `${over}, and ${why}: it runs idle (on capacity beyond the quota tree; any job on quota may reclaim it)`,
      'the snapshot states no standing (standings: derive); write standing: on the job to say otherwise',
    );
  }
}
