/**
 * A read manifest job (manifest-job.ts) → the Quotient submission a what-if asks, with
 * the quota, workspace, module and priority chosen as `import kubectl` chooses a pod's
 * (kubectl-pod.ts `nameFrom`, `clusterQueueOf`, `moduleOf`, `safeNamer`; owner-module.ts;
 * priority-map.ts), so a job asked about is the job the snapshot would hold once it ran.
 *
 * Kueue's queue label names a LocalQueue. Which ClusterQueue it feeds is read from the
 * LocalQueues given (beside the job, `--kueue`, or the live cluster); without them, from
 * the policy as `import kueue` writes it: a Workspace per namespace whose `quotas` are the
 * ClusterQueues its LocalQueues feed, so a namespace with one is unambiguous.
 */
import { because } from '../engine/reason-codes.js';
import type { AnswerRequest, RequestOrigin } from '../engine/request.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import type { Policy } from '../model/policy.js';
import type { InputFile, PathSeg } from '../policy/parse/source-doc.js';
import type { Finding } from '../errors.js';
import { clusterQueueOf, moduleOf, nameFrom, safeNamer } from './kubectl-pod.js';
import { KUEUE_QUEUE_LABEL, type KubectlOptions } from './kubectl-types.js';
import { positionOf, type Report } from './located-json.js';
import { readManifest, type ManifestContext, type ManifestJob, type ManifestOptions } from './manifest-job.js';
import { locateField, type LocatedSubmission } from './pai-whatif.js';
import { DEFAULT_PRIORITY_MAP, mapPriority, parsePriorityMap } from './priority-map.js';

/** What the mapping needs of the `import kubectl` options (the quota and workspace sources, modules, priority bands). */
export type ManifestMapping = Pick<KubectlOptions, 'quotaFrom' | 'workspaceFrom' | 'moduleLabel' | 'module' | 'moduleMap' | 'priorityMap'>;

/** import kubectl's defaults (docs/interop.md): a job asked about reads as the same job running would. */
export function defaultManifestMapping(): ManifestMapping {
  return {
    quotaFrom: ['kueue', 'koordinator', 'namespace'],
    workspaceFrom: ['namespace'],
    moduleLabel: 'quotient.dev/module',
    module: 'DLC',
    priorityMap: parsePriorityMap(DEFAULT_PRIORITY_MAP).bands!,
  };
}

/** The submission of a manifest job, plain values as a WhatIf's `spec.submit` holds them. */
export interface ManifestSubmission extends LocatedSubmission {
  job: {
    name: string;
    workspace: string;
    quota: string;
    module: string;
    priority: number;
    pods: number;
    resources: { gpu: number; cpu?: string; memory?: string };
  };
}

/**
 * The submission of `job` under `policy` (its quotas and workspaces resolve a LocalQueue
 * the context does not hold); a queue that leads nowhere is an error at the label.
 */
export function manifestSubmission(
  job: ManifestJob,
  context: ManifestContext,
  policy: Pick<Policy, 'quotas' | 'workspaces' | 'pools'>,
  mapping: ManifestMapping,
  report: Report,
): ManifestSubmission | undefined {
  const { sd, path } = job;
  const who = `${job.kind} "${job.namespace}/${job.name}"`;
  const rewritten: string[] = [];
  const safe = safeNamer(sd, path, who, report, rewritten);
  const namespace = safe(job.namespace, ['metadata', 'namespace'], 'namespace');
  const name = safe(job.name, ['metadata', 'name'], 'name');
  const origins = new Map<string, { path: string; line: number; column: number }>();
  const origin = (field: string, at: PathSeg[]): void => void origins.set(field, positionOf(sd, at));
  origin('name', [...path, 'metadata', 'name']);

  // The quota: a Workload's spec.queueName, else the sources import kubectl reads a pod's from (the job object's labels).
  const q = job.queueName !== undefined ? { name: job.queueName, from: 'spec.queueName', path: ['spec', 'queueName'] as PathSeg[] } : nameFrom(mapping.quotaFrom, job.labels, job.namespace);
  const workspace = nameFrom(mapping.workspaceFrom, job.labels, job.namespace);
  if (!q || !workspace) {
    report.error(
      sd,
      [...path, 'metadata'],
      'interop/manifest-no-quota',
      `${who}: no ${!q ? 'quota' : 'workspace'} name from ${(!q ? mapping.quotaFrom : mapping.workspaceFrom).join(', ')}`,
      `label the job ${KUEUE_QUEUE_LABEL}=LOCALQUEUE, or give it a namespace`,
    );
    return undefined;
  }
  const workspaceName = workspace.from === 'namespace' ? namespace : safe(workspace.name, workspace.path, 'workspace');
  const kueue = q.from === 'spec.queueName' || q.from === `label ${KUEUE_QUEUE_LABEL}`;
  let quota: string;
  let quotaDetail: string;
  if (!kueue) {
    quota = q.from === 'namespace' ? namespace : safe(q.name, q.path, 'quota');
    quotaDetail = q.from;
  } else {
    const led = localQueueTarget(job, q.name, [...path, ...q.path], q.from, context, policy, workspaceName, mapping, report);
    if (!led) return undefined;
    quota = led.quota;
    quotaDetail = led.detail;
  }
  origin('quota', [...path, ...q.path]);
  origin('workspace', [...path, ...(workspace.from === 'namespace' && job.namespaceFrom !== 'metadata.namespace' ? ['metadata'] : workspace.path)]);

  const module = moduleOf(job.podLabels, job.podLabelsAt, job.ownerKind, { ...mapping } as KubectlOptions, report, sd, who, "the pod template's");
  origin('module', job.podLabelsAt);
  const kueueRules = followsKueue(policy, quota);
  // Under Kueue's rules a priority is Kueue's own number (SEMANTICS 12); under PAI's, the bands map it onto 1..9 as import kubectl does.
  const priority = kueueRules ? job.priority.value : mapPriority(job.priority.value, mapping.priorityMap);
  if (job.priority.at) origin('priority', job.priority.at);
  const head = job.shapes[0]!;
  const pods = job.shapes.reduce((s, p) => s + p.count, 0);
  origin('pods', job.countAt);
  origin('resources', job.templateAt);
  const notes = [
    `${job.kind} ${namespace}/${name}: ${pods} pod(s) from pod set(s) ${job.shapes.map((s) => `${s.name} × ${s.count}${s.countFrom !== undefined ? ` (${s.countFrom})` : ''}`).join(', ')}${job.noGpu.length ? `; pod sets without GPUs left out of the GPU gang: ${job.noGpu.join(', ')}` : ''}`,
    `GPUs per pod ${head.gpu}; priority ${priority} from ${job.priority.from}, ${kueueRules ? "as Kueue's own number (the quota's pool follows rules: kueue)" : 'by the priority bands'}; quota "${quota}" from ${quotaDetail}; workspace "${workspaceName}" from ${workspace.from === 'namespace' ? job.namespaceFrom : workspace.from}; module ${module.module} from ${module.from}`,
    ...(job.suspended ? [`${job.kind === 'Workload' ? 'spec.active: false' : 'spec.suspend: true'} is ignored: the question is what happens when the job is let run`] : []),
    ...new Set(rewritten),
  ];
  return {
    job: {
      name: `${namespace}/${name}`,
      workspace: workspaceName,
      quota,
      module: module.module,
      priority,
      pods,
      resources: { gpu: head.gpu, ...(head.cpu !== undefined ? { cpu: formatCpu(head.cpu) } : {}), ...(head.memory !== undefined ? { memory: formatMemory(head.memory) } : {}) },
    },
    origins,
    notes,
  };
}

/**
 * Whether `quota`'s pool follows Kueue's rules (`spec.rules: kueue`, SEMANTICS 12; the
 * field is h28-kueue's: read where present, so a policy without it is PAI's, the default).
 */
function followsKueue(policy: Pick<Policy, 'quotas' | 'pools'>, quota: string): boolean {
  const pool = policy.quotas.find((q) => q.name === quota)?.pool;
  const rules = (policy.pools.find((p) => p.name === pool) as { rules?: string } | undefined)?.rules;
  return rules === 'kueue';
}

/**
 * The quota a LocalQueue `namespace/queue` leads to: its ClusterQueue through the given
 * LocalQueues (import kubectl's `clusterQueueOf`), else through the policy's Workspace of
 * the namespace when it holds one quota, else a quota named as the LocalQueue (as import
 * kubectl takes it without --kueue); otherwise an error at the label.
 */
function localQueueTarget(
  job: ManifestJob,
  queue: string,
  at: PathSeg[],
  field: string,
  context: ManifestContext,
  policy: Pick<Policy, 'quotas' | 'workspaces' | 'pools'>,
  workspace: string,
  mapping: ManifestMapping,
  report: Report,
): { quota: string; detail: string } | undefined {
  const who = `${job.kind} "${job.namespace}/${job.name}"`;
  if (context.localQueues.has(`${job.namespace}/${queue}`)) {
    const link = clusterQueueOf(job.namespace, queue, { ...mapping, localQueues: context.localQueues } as KubectlOptions, report, job.sd, at, who, field);
    if (link) return { quota: link.clusterQueue, detail: link.detail };
  }
  if (policy.quotas.some((x) => x.name === queue)) return { quota: queue, detail: `${field}: LocalQueue ${job.namespace}/${queue}, a quota of the policy by that name` };
  const ws = policy.workspaces.find((w) => w.name === workspace);
  if (ws && ws.quotas.length === 1)
    return {
      quota: ws.quotas[0]!,
      detail: `${field}: LocalQueue ${job.namespace}/${queue} → ${ws.quotas[0]!}, the one quota of the policy's workspace ${ws.name} (import kueue makes a namespace's Workspace of the ClusterQueues its LocalQueues feed)`,
    };
  const why = !ws
    ? `no LocalQueue of that name is given, and the policy has no quota of that name nor a workspace ${workspace}`
    : `no LocalQueue of that name is given, and the policy's workspace ${ws.name} may submit to ${ws.quotas.length ? ws.quotas.join(', ') : 'no quota'}: which one this LocalQueue feeds is not in the policy`;
  report.error(
    job.sd,
    at,
    'interop/unknown-local-queue',
    `${who}: LocalQueue ${job.namespace}/${queue} leads to no quota: ${why}`,
    "put the LocalQueue (and its ClusterQueue) beside the job, give `kubectl get localqueues,clusterqueues -A -o yaml` to --kueue, or ask through `kubectl quotient whatif`, which reads the cluster's",
  );
  return undefined;
}

/**
 * A manifest's text as a request to `policy`: read (manifest-job.ts), mapped, and made the
 * pipeline's request; or the located findings that stop it. The CLI and the server both
 * come here.
 */
export function manifestAsk(
  file: InputFile,
  policy: Pick<Policy, 'quotas' | 'workspaces' | 'pools'>,
  options: ManifestOptions & { as?: string; mapping?: ManifestMapping },
): { request?: { request: AnswerRequest; origin: RequestOrigin }; findings: Finding[] } {
  const { job, context, report } = readManifest(file, options);
  if (!job) return { findings: report.findings };
  const sub = manifestSubmission(job, context, policy, options.mapping ?? defaultManifestMapping(), report);
  if (!sub) return { findings: report.findings };
  return { request: manifestRequest(sub, file.path, options.as), findings: report.findings };
}

/** The request and its origin for a manifest submission: findings about a field are moved onto the manifest field it came from. */
export function manifestRequest(sub: ManifestSubmission, file: string, as?: string): { request: AnswerRequest; origin: RequestOrigin } {
  const job = { ...sub.job, ...(as !== undefined ? { submittedBy: as } : {}) };
  return {
    request: { submit: job, ...(as !== undefined ? { as } : {}) },
    origin: {
      file,
      path: [],
      query: sub.job.name,
      locate: (p) => locateField(sub, file, p),
      notes: sub.notes.map((n) => because('interop/kubernetes-manifest', `Kubernetes manifest: ${n}`)),
    },
  };
}
