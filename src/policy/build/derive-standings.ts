/**
 * Standings for a snapshot of a real cluster (`Cluster` `spec.standings: derive`, as
 * `quotient import kubectl` writes it). Kubernetes does not say whether a running job is
 * within its quota's guarantee, and a real cluster runs jobs over their guarantees all
 * the time; SEMANTICS 2 would refuse such a snapshot when every job defaults to
 * `in-quota`. Here the policy's quota tree decides instead, the way quota scaling does
 * (SEMANTICS 9): the jobs that state no standing are taken highest priority first, then
 * longest running, and stay `in-quota` while they fit every guarantee and every ceiling
 * (`max`, SEMANTICS 3) on their path; a job that does not fit runs `borrowing` where the
 * policy lets it borrow (its quota's borrowing rule holds its priority, model/borrowing.ts:
 * SEMANTICS 5.2; every ancestor has room: invariant 2; every ceiling holds: invariant 10),
 * and otherwise `idle` on capacity beyond the quota tree (idleResources: acceptable),
 * which any job on quota may reclaim. The arithmetic is the engine's (model/usage-rule.ts). Jobs that
 * state a standing keep it and count first. Every job not left `in-quota` is a warning
 * at its entry, so the reading is never silent; the same snapshot read under another
 * policy (`quotient diff`) gets that policy's standings.
 */
import { borrowingOf } from '../../model/borrowing.js';
import type { Cluster, Quota, RunningJob } from '../../model/policy.js';
import { formatRange, inRange } from '../../model/priority.js';
import { QuotaTree } from '../../model/quota-tree.js';
import { RESOURCE_NAMES, formatAmount } from '../../model/resources.js';
import { ceilingOverruns, countsAt, countsAtCeiling, overruns, totalRequest, type Overrun } from '../../model/usage-rule.js';
import type { JobOrigins } from './build-cluster.js';
import type { Collector } from '../collector.js';

/** Gives the jobs marked `derive` in `origins` their standing; warns for each one not in-quota. */
export function deriveStandings(c: Collector, cluster: Cluster, quotas: Quota[], origins: JobOrigins): void {
  const derived = cluster.jobs.filter((j) => origins.get(j.name)?.derive === true);
  if (derived.length === 0) return;
  const tree = new QuotaTree(quotas);
  // Usage as the guarantees count it (usage-rule.ts `countsAt`) and as the ceilings do (`countsAtCeiling`).
  const used = quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
  const ceilingUsed = quotas.map(() => new Float64Array(RESOURCE_NAMES.length));
  const add = (job: RunningJob): void => {
    if (job.standing === 'idle') return;
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    for (const a of tree.pathToRoot(q)) {
      RESOURCE_NAMES.forEach((r, i) => {
        if (countsAt(tree, job.standing, q, a)) used[a]![i]! += need[r];
        if (countsAtCeiling(tree, job.standing, q, a)) ceilingUsed[a]![i]! += need[r];
      });
    }
  };
  // Stated standings are facts: they count before any derived one.
  for (const job of cluster.jobs) if (origins.get(job.name)?.derive !== true) add(job);
  const order = [...derived].sort((a, b) => b.priority - a.priority || a.startedAt - b.startedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const job of order) {
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    // SEMANTICS 3: every guarantee for its standing and every ceiling on the path, as the engine admits.
    const ceiling = ceilingOverruns(tree, ceilingUsed, q, need)[0];
    const inQuota = overruns(tree, used, q, need, 'in-quota')[0];
    if (!inQuota && !ceiling) {
      job.standing = 'in-quota';
      add(job);
      continue;
    }
    const quota = tree.at(q);
    // SEMANTICS 12: under Kueue's rules a running job was admitted by Kueue and holds quota;
    // there is no per-job borrowing rule to judge it by (a ClusterQueue borrows up to its
    // borrowingLimit): past its queue's nominal quota it runs borrowing, said by no warning.
    if (quota.kueue !== undefined) {
      job.standing = 'borrowing';
      add(job);
      continue;
    }
    // SEMANTICS 5.2: the quota's borrowing rule (model/borrowing.ts), the one the engine compiles.
    const rule = borrowingOf(quota);
    const mayBorrow = rule !== undefined && inRange(rule.priority, job.priority);
    const lenderFull = mayBorrow ? overruns(tree, used, q, need, 'borrowing')[0] : undefined;
    const o = origins.get(job.name)!;
    const over = inQuota
      ? `job "${job.name}" (${need.gpu} GPU${need.gpu === 1 ? '' : 's'}) does not fit quota "${tree.at(inQuota.quota).name}"'s guarantee after the jobs of higher priority or earlier start`
      : `job "${job.name}" (${need.gpu} GPU${need.gpu === 1 ? '' : 's'}) fits its guarantees but not ${ceilingText(tree, ceiling!)} after the jobs of higher priority or earlier start`;
    if (rule && mayBorrow && !lenderFull && !ceiling) {
      job.standing = 'borrowing';
      add(job);
      c.warn(
        o.sd,
        o.path,
        'policy/derived-standing',
        `${over}: it runs borrowing (${borrowText(quota, rule, job.priority)}, and the quotas above have room)`,
        'the snapshot states no standing (standings: derive); write standing: on the job to say otherwise',
      );
      continue;
    }
    job.standing = 'idle';
    if (job.idleResources === 'none') job.idleResources = 'acceptable';
    const why = ceiling
      ? `${ceilingText(tree, ceiling)} leaves no room for it in quota or borrowing`
      : mayBorrow
        ? `quota "${tree.at(lenderFull?.quota ?? q).name}" above it has no room to lend`
        : quota.parent === null
          ? `${quota.name} is a root quota, with no siblings to borrow from`
          : `the policy does not let it borrow (${noBorrowText(quota, job.priority)})`;
    c.warn(
      o.sd,
      o.path,
      'policy/derived-standing',
      `${over}, and ${why}: it runs idle (on capacity beyond the quota tree; any job on quota may reclaim it)`,
      'the snapshot states no standing (standings: derive); write standing: on the job to say otherwise',
    );
  }
}

/** `quota "A"'s max of 16 GPUs`. */
function ceilingText(tree: QuotaTree, o: Overrun): string {
  return `quota "${tree.at(o.quota).name}"'s max of ${formatAmount(RESOURCE_NAMES[o.resource]!, o.limit)}`;
}

/** Why a job may borrow, in the words of its quota's rule (the default's as before borrowing.priority existed). */
function borrowText(quota: Quota, rule: NonNullable<ReturnType<typeof borrowingOf>>, priority: number): string {
  return rule.from === 'borrowing.priority'
    ? `its priority ${priority} is in ${rule.rule} ${formatRange(rule.priority)}, from ${quota.name}'s borrowing.priority`
    : `its priority ${priority} is in ${quota.name}'s selfPreemption.highPriority ${formatRange(rule.priority)}`;
}

/** Why a job of `priority` may not borrow on a non-root quota. */
function noBorrowText(quota: Quota, priority: number): string {
  const rule = borrowingOf(quota);
  if (rule?.from === 'borrowing.priority') return `priority ${priority} is not in ${rule.rule} ${formatRange(rule.priority)}, from ${quota.name}'s borrowing.priority`;
  const self = quota.selfPreemption;
  return `priority ${priority} is not in ${quota.name}'s selfPreemption.highPriority${self ? ` ${formatRange(self.highPriority)}` : ': it has no selfPreemption'}`;
}
