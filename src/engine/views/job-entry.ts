/**
 * One running job as a listing shows it to one caller (SEMANTICS 10): in full when the
 * caller may see it, else as anonymous usage — its workspace, quota, standing, GPUs and
 * a priority band, under the label `(hidden: WORKSPACE)`, never its name, module,
 * submitter, times or source line. Every view (jobs, nodes, explanations) makes its job
 * entries here, so the rule has one home.
 */
import type { RunningJob, Standing } from '../../model/policy.js';
import { addGpu } from '../../model/resources.js';
import { sourceText } from '../../model/source.js';
import { hiddenLabel, priorityBand, type Viewer } from '../visibility.js';

/** What every entry holds, seen or hidden. */
interface JobEntryBase {
  /** The job's name, or `(hidden: WORKSPACE)`. */
  job: string;
  workspace: string;
  quota: string;
  priorityBand: string;
  standing: Standing;
  pods: number;
  gpusPerPod: number;
  /** pods × gpusPerPod. */
  gpus: number;
  /** The nodes its pods run on, each once, in placement order. */
  nodes: string[];
}

/** A job the caller may see in full. */
export interface VisibleJobEntry extends JobEntryBase {
  module: string;
  priority: number;
  /** ISO 8601. */
  startedAt: string;
  expectedEnd?: string;
  submittedBy?: string;
  checkpoint?: { everyMinutes: number; last?: string };
  /** `file:line:col` of the job in the snapshot. */
  source: string;
}

/** A job of another team: anonymous usage. */
export interface HiddenJobEntry extends JobEntryBase {
  hidden: true;
}

export type JobEntry = VisibleJobEntry | HiddenJobEntry;

/** True when `viewer` (undefined: an administrator, who sees everything) may see `job` in full. */
export function seesJob(viewer: Viewer | undefined, job: Pick<RunningJob, 'workspace' | 'quota'>): boolean {
  return viewer === undefined || viewer.canSee(job);
}

/** The entry of `job` for `viewer`. */
export function jobEntry(job: RunningJob, viewer: Viewer | undefined): JobEntry {
  const base: JobEntryBase = {
    job: job.name,
    workspace: job.workspace,
    quota: job.quota,
    priorityBand: priorityBand(job.priority),
    standing: job.standing,
    pods: job.pods,
    gpusPerPod: job.resources.gpu,
    gpus: addGpu(0, job.pods * job.resources.gpu),
    nodes: [...new Set(job.placement.map((p) => p.node))],
  };
  if (!seesJob(viewer, job)) return { ...base, job: hiddenLabel(job), hidden: true };
  return {
    ...base,
    module: job.module,
    priority: job.priority,
    startedAt: new Date(job.startedAt).toISOString(),
    ...(job.expectedEnd !== undefined ? { expectedEnd: new Date(job.expectedEnd).toISOString() } : {}),
    ...(job.submittedBy !== undefined ? { submittedBy: job.submittedBy } : {}),
    ...(job.checkpoint ? { checkpoint: { everyMinutes: job.checkpoint.every / 60_000, ...(job.checkpoint.last !== undefined ? { last: new Date(job.checkpoint.last).toISOString() } : {}) } } : {}),
    source: sourceText(job.src),
  };
}
