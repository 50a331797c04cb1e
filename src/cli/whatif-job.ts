/**
 * `quotient whatif --job FILE`: the job asked about, a PAI DLC CreateJob request body or
 * a Kubernetes manifest (a Job, JobSet, PyTorchJob, RayJob, Deployment, Kueue Workload…,
 * interop/manifest-job.ts). A manifest's quota may depend on the policy (its workspaces
 * say where a LocalQueue leads), so its request is made per policy.
 */
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import type { AnswerRequest, RequestOrigin } from '../engine/request.js';
import type { ManifestContext, ManifestJob } from '../interop/manifest-job.js';
import type { PaiSubmission } from '../interop/pai-job.js';
import type { Policy } from '../model/policy.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { log } from './output.js';
import { readInput } from './read-input.js';
import { countFindings, renderFindings } from './render-findings.js';

/** A job read from --job: a PAI request, or a manifest with the objects that give its queue and priority class meaning. */
export type JobInput = { kind: 'pai'; path: string; submission: PaiSubmission } | { kind: 'manifest'; path: string; job: ManifestJob; context: ManifestContext };

/** A --job that cannot be asked about: its findings (located in the file) and what to say. */
export class BadJobInput extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
    readonly findings: Finding[],
  ) {
    super(message);
  }
}

/** Whether `file` is a Kubernetes object (it has `apiVersion` or `kind`) rather than a PAI request (which has neither). */
export async function isManifest(file: InputFile): Promise<boolean> {
  const { readLocated, asObject } = await import('../interop/located-json.js');
  const { docs, findings } = readLocated(file, { json: true });
  if (
    docs.some(({ value }) => {
      const o = asObject(value);
      return o !== undefined && (typeof o.kind === 'string' || typeof o.apiVersion === 'string');
    })
  )
    return true;
  // Text that does not parse: a PAI request is JSON, so YAML (or JSON naming a kind) is a manifest.
  return findings.length > 0 && (/\.ya?ml$/i.test(file.path) || !/^\s*\{/.test(file.text) || /"(apiVersion|kind)"\s*:/.test(file.text));
}

/** Options of a manifest --job. */
export interface ManifestFlags {
  /** Files of Kueue objects (LocalQueues, ClusterQueues, WorkloadPriorityClasses, PriorityClasses) the manifest's queue and class are looked up in. */
  kueue?: string[];
  /** The namespace of an object without one (kubectl's current namespace). */
  namespace?: string;
  gpuResource?: string;
}

/** Reads --job; a bad input is a BadJobInput with its located findings (on stderr already). */
export async function readJobInput(path: string, flags: ManifestFlags = {}): Promise<JobInput> {
  const input = readInput(path);
  const extra = (flags.kueue ?? []).map(readInput);
  if (!(await isManifest(input))) {
    if (extra.length || flags.namespace !== undefined || flags.gpuResource !== undefined)
      throw new QuotientError('cli/conflicting-flags', '--kueue, --namespace and --gpu-resource go with a Kubernetes manifest --job, not a PAI request', 'drop them, or give a manifest');
    // The PAI reader loads only for --job.
    const { submission, report } = (await import('../interop/pai-job.js')).readPaiJob(input);
    if (report.findings.length) log(renderFindings(sortFindings(report.findings)));
    if (!submission)
      throw new BadJobInput(
        'whatif/invalid-job',
        `the PAI request ${input.path} is not valid (${countFindings(report.findings)})`,
        'fix the JSON fields named above (docs/interop.md lists what each one means)',
        report.findings,
      );
    return { kind: 'pai', path: input.path, submission };
  }
  const { readManifest } = await import('../interop/manifest-job.js');
  const { job, context, report } = readManifest(input, {
    extra,
    ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
    ...(flags.gpuResource !== undefined ? { gpuResource: flags.gpuResource } : {}),
  });
  if (report.findings.length) log(renderFindings(sortFindings(report.findings)));
  if (!job)
    throw new BadJobInput(
      'whatif/invalid-manifest',
      `the Kubernetes manifest ${input.path} cannot be asked about (${countFindings(report.findings)})`,
      'fix the fields named above (docs/interop.md "Kubernetes manifests" says how each is read)',
      report.findings,
    );
  return { kind: 'manifest', path: input.path, job, context };
}

/** The request of a --job for one policy (a manifest's queue may lead through the policy's workspaces). */
export async function jobRequest(input: JobInput, policy: Policy, user: string | undefined): Promise<{ request: AnswerRequest; origin: RequestOrigin }> {
  if (input.kind === 'pai') return (await import('../interop/pai-whatif.js')).paiRequest(input.submission, input.path, user);
  const { manifestSubmission, manifestRequest, defaultManifestMapping } = await import('../interop/manifest-submission.js');
  const { Report } = await import('../interop/located-json.js');
  const report = new Report();
  const sub = manifestSubmission(input.job, input.context, policy, defaultManifestMapping(), report);
  if (report.findings.length) log(renderFindings(sortFindings(report.findings)));
  if (!sub)
    throw new BadJobInput(
      'whatif/invalid-manifest',
      `the Kubernetes manifest ${input.path} does not lead to a quota of the policy (${countFindings(report.findings)})`,
      'fix the fields named above',
      report.findings,
    );
  return manifestRequest(sub, input.path, user);
}
