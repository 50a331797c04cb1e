/**
 * The running jobs with their standing, as far as the caller may see them
 * (`GET /v1/jobs`, the web app's "my jobs"), and the queue. Snapshots hold no queue yet
 * (issue 21): `queued` is always empty until they do.
 */
import type { RunningJob } from '../../model/policy.js';
import type { Viewer } from '../visibility.js';
import { jobEntry, seesJob, type JobEntry } from './job-entry.js';

/** The body of a JobView. */
export interface JobView {
  running: JobEntry[];
  /** Always empty: snapshots hold no queue until issue 21 lands. */
  queued: JobEntry[];
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

/** The running jobs for `viewer` (undefined: everything). */
export function jobView(jobs: readonly RunningJob[], viewer: Viewer | undefined, options: JobViewOptions = {}): JobView {
  const own = new Set(options.workspaces ?? []);
  const mine = (j: RunningJob): boolean => seesJob(viewer, j) && (j.submittedBy !== undefined ? j.submittedBy === options.user : own.has(j.workspace));
  const running = jobs
    .filter((j) => (options.quota === undefined || j.quota === options.quota) && (options.workspace === undefined || j.workspace === options.workspace) && (!options.mine || mine(j)))
    .map((j) => jobEntry(j, viewer));
  return { running, queued: [] };
}
