/**
 * The running jobs with their standing, and the snapshot's queued jobs with their place
 * in their quota's queue (SEMANTICS 8), as far as the caller may see them (`GET /v1/jobs`,
 * the web app's "my jobs").
 */
import type { Cluster, Quota, RunningJob } from '../../model/policy.js';
import type { Viewer } from '../visibility.js';
import { jobEntry, queuedEntry, seesJob, type JobEntry, type QueuedEntry } from './job-entry.js';
import { JobQueue, type QueueEntry } from '../queue-order.js';

/** The body of a JobView. */
export interface JobView {
  running: JobEntry[];
  /** The snapshot's queued jobs, each quota's in the order its strategy tries them at the snapshot time. */
  queued: QueuedEntry[];
}

/** Filters of the listing; all must hold. */
export interface JobViewOptions {
  quota?: string;
  workspace?: string;
  /**
   * Only the caller's own jobs: those they submitted, and those of their workspaces that
   * name no submitter (a snapshot from Kubernetes does not say who submitted). Needs `user`.
   */
  mine?: boolean;
  /** The caller, for `mine`. */
  user?: string;
  /** The workspaces the caller is a member or guest of, for `mine`. */
  workspaces?: readonly string[];
}

/** The running and queued jobs of `cluster` for `viewer` (undefined: everything). */
export function jobView(cluster: Pick<Cluster, 'at' | 'queue'>, jobs: readonly RunningJob[], quotas: readonly Quota[], viewer: Viewer | undefined, options: JobViewOptions = {}): JobView {
  const own = new Set(options.workspaces ?? []);
  type Listed = Pick<RunningJob, 'workspace' | 'quota'> & { submittedBy?: string };
  const mine = (j: Listed): boolean => seesJob(viewer, j) && (j.submittedBy !== undefined ? j.submittedBy === options.user : own.has(j.workspace));
  const listed = (j: Listed): boolean =>
    (options.quota === undefined || j.quota === options.quota) && (options.workspace === undefined || j.workspace === options.workspace) && (!options.mine || mine(j));
  const running = jobs.filter(listed).map((j) => jobEntry(j, viewer));
  const queued = queueOrder(cluster, quotas)
    .filter((q) => listed(q.job))
    .map((q) => queuedEntry(q.job, q.position, q.strategy, viewer));
  return { running, queued };
}

/**
 * Every queued job with its 1-based place in its quota's queue, as the strategy orders
 * the queue at the snapshot time (engine/queue-order.ts, the order a what-if serves it
 * in); quotas in the policy's order, each queue in its own order.
 */
function queueOrder(cluster: Pick<Cluster, 'at' | 'queue'>, quotas: readonly Quota[]): Array<{ job: NonNullable<Cluster['queue']>[number]; position: number; strategy: Quota['queueStrategy'] }> {
  if (!cluster.queue?.length) return [];
  type Entry = QueueEntry & { job: NonNullable<Cluster['queue']>[number] };
  const order = new Map([...cluster.queue.map((j) => j.name)].sort().map((n, i) => [n, i]));
  const queues = new Map<string, JobQueue<Entry>>();
  for (const q of quotas) queues.set(q.name, new JobQueue<Entry>(q.queueStrategy, q.queue));
  for (const job of cluster.queue) queues.get(job.quota)?.add({ job, priority: job.priority, submit: job.submittedAt, order: order.get(job.name)!, enqueuedAt: job.submittedAt });
  return [...queues.values()].flatMap((queue) => queue.ordered(cluster.at).map((e, i) => ({ job: e.job, position: i + 1, strategy: queue.strategy })));
}
