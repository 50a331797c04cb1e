/**
 * A job's fields → JobSpec, shared by running jobs (Cluster) and submissions (WhatIf).
 * Checks that the names it gives exist. Whether the workspace may use the quota and
 * module is checked by the caller: for a running job it is a snapshot error, for a
 * submission it is a `reject` answer.
 */
import type { JobSpec, Policy, Quota, Workspace } from '../../model/policy.js';
import { MILLI_PER_GPU } from '../../model/resources.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../model/priority.js';
import type { Collector } from '../collector.js';
import { parseDurationField, parseResources, parseTimeField } from './parse-fields.js';
import type { JobInput } from '../validate/schema.js';
import { sourceAt, type Doc, type PathSeg } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';

/** Names the job fields point at. */
export interface NameIndex {
  quotas: Map<string, Quota>;
  workspaces: Map<string, Workspace>;
}

/** The names a job's fields point at, from a policy. */
export function nameIndex(policy: Pick<Policy, 'quotas' | 'workspaces'>): NameIndex {
  return { quotas: new Map(policy.quotas.map((q) => [q.name, q])), workspaces: new Map(policy.workspaces.map((w) => [w.name, w])) };
}

/** Builds a JobSpec; returns undefined (after findings) when a field is unusable. */
export function buildJobSpec(c: Collector, sd: Doc, path: PathSeg[], input: JobInput, names: NameIndex): JobSpec | undefined {
  let ok = checkJobFields(c, sd, path, input, names);
  // GPUs alone (most jobs): nothing to parse.
  const r = input.resources;
  const resources = r.cpu === undefined && r.memory === undefined ? { gpu: r.gpu } : parseResources(c, sd, [...path, 'resources'], r);
  let checkpoint: JobSpec['checkpoint'];
  if (input.checkpoint) {
    const every = parseDurationField(c, sd, [...path, 'checkpoint', 'every'], input.checkpoint.every);
    const last = input.checkpoint.last === undefined ? undefined : parseTimeField(c, sd, [...path, 'checkpoint', 'last'], input.checkpoint.last);
    if (every === undefined || (input.checkpoint.last !== undefined && last === undefined)) ok = false;
    else checkpoint = { every, last };
  }
  const maxRuntime = input.maxRuntime === undefined ? undefined : parseDurationField(c, sd, [...path, 'maxRuntime'], input.maxRuntime);
  if (input.maxRuntime !== undefined && maxRuntime === undefined) ok = false;
  if (!ok || !resources) return undefined;
  return {
    name: input.name,
    workspace: input.workspace,
    quota: input.quota,
    module: input.module,
    priority: input.priority,
    pods: input.pods ?? 1,
    resources,
    idleResources: input.idleResources ?? 'none',
    checkpoint,
    faultTolerance: input.faultTolerance ? { autoRestart: input.faultTolerance.autoRestart, maxRestarts: input.faultTolerance.maxRestarts ?? 3 } : undefined,
    submittedBy: input.submittedBy,
    maxRuntime,
    ...(input.gpuModels ? { gpuModels: [...new Set(input.gpuModels)] } : {}),
    src: sourceAt(sd, path),
  };
}

/**
 * The checks of a job's fields that need nothing parsed: the workspace and quota it
 * names exist, and its GPUs per pod are whole or a share of one GPU. False (after
 * findings) when one fails.
 */
export function checkJobFields(c: Collector, sd: Doc, path: PathSeg[], input: Pick<JobInput, 'name' | 'quota' | 'workspace' | 'resources'> & { priority?: number }, names: NameIndex): boolean {
  let ok = true;
  const quota = names.quotas.get(input.quota);
  // PAI's priorities are 1..9; under Kueue's rules any int32 (the schema's range) is a priority.
  if (quota && !quota.kueue && input.priority !== undefined && (input.priority < MIN_PRIORITY || input.priority > MAX_PRIORITY)) {
    c.error(sd, [...path, 'priority'], 'policy/priority-out-of-range', `priority must be between 1 and 9`, 'priorities run from 1 (least important) to 9 (most important)');
    ok = false;
  }
  if (!quota) {
    c.error(sd, [...path, 'quota'], 'policy/unknown-quota', `job "${input.name}" names quota "${input.quota}", which no QuotaTree declares`, closest(input.quota, [...names.quotas.keys()], 'quota'));
    ok = false;
  }
  if (!names.workspaces.has(input.workspace)) {
    c.error(
      sd,
      [...path, 'workspace'],
      'policy/unknown-workspace',
      `job "${input.name}" names workspace "${input.workspace}", which no Workspace declares`,
      closest(input.workspace, [...names.workspaces.keys()], 'workspace'),
    );
    ok = false;
  }
  // A whole number of GPUs (most jobs) needs no share check.
  const gpu = input.resources.gpu;
  if (!Number.isInteger(gpu) && !checkGpuShare(c, sd, [...path, 'resources', 'gpu'], gpu)) ok = false;
  return ok;
}

/**
 * A pod's GPUs are a whole number, or a share of one GPU (GPU sharing, openb's
 * gpu_milli): below 1, in whole milli-GPUs. Anything else is `policy/gpu-share`.
 */
function checkGpuShare(c: Collector, sd: Doc, path: PathSeg[], gpu: number): boolean {
  if (Number.isInteger(gpu)) return true;
  const milli = gpu * MILLI_PER_GPU;
  if (gpu < 1 && Math.abs(milli - Math.round(milli)) < 1e-6 && Math.round(milli) >= 1) return true;
  c.error(
    sd,
    path,
    'policy/gpu-share',
    gpu > 1 ? `resources.gpu ${gpu} is neither a whole number of GPUs nor a share of one GPU` : `resources.gpu ${gpu} is not a whole number of milli-GPUs`,
    gpu > 1 ? 'ask whole GPUs (1, 2, 8), or a share of one GPU below 1 such as 0.46; a pod shares at most one GPU' : 'give a share with at most three decimals, such as 0.46 (460 milli-GPUs)',
  );
  return false;
}

/** A workspace's quotas as a set, made once per list: a snapshot checks every running job (~100 quotas each in B3) against it. */
const quotaSets = new WeakMap<readonly string[], { length: number; set: ReadonlySet<string> }>();
function quotaSet(quotas: readonly string[]): ReadonlySet<string> {
  let made = quotaSets.get(quotas);
  // The length guards a list grown after its set was made (model lists are not changed after loading).
  if (made === undefined || made.length !== quotas.length) {
    made = { length: quotas.length, set: new Set(quotas) };
    quotaSets.set(quotas, made);
  }
  return made.set;
}

/**
 * Why a workspace may not run this job on this quota, or undefined when it may
 * (SEMANTICS 10: the workspace must be associated with the quota and allow the module).
 */
export function workspaceRefusal(job: Pick<JobSpec, 'workspace' | 'quota' | 'module'>, ws: Workspace): { code: string; field: 'quota' | 'module'; message: string; hint: string } | undefined {
  if (!quotaSet(ws.quotas).has(job.quota)) {
    return {
      code: 'policy/quota-not-in-workspace',
      field: 'quota',
      message: `workspace "${ws.name}" is not associated with quota "${job.quota}" (it has ${ws.quotas.join(', ')})`,
      hint: `submit to one of ${ws.quotas.join(', ')}, or add ${job.quota} to ${ws.name}'s quotas`,
    };
  }
  if (!ws.modules.includes(job.module)) {
    return {
      code: 'policy/module-not-allowed',
      field: 'module',
      message: `workspace "${ws.name}" does not allow module ${job.module} (it allows ${ws.modules.join(', ')})`,
      hint: `use one of ${ws.modules.join(', ')}, or add ${job.module} to ${ws.name}'s modules`,
    };
  }
  return undefined;
}
