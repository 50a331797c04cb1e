/**
 * A Kubernetes workload manifest (`quotient whatif --job job.yaml`, `POST
 * /v1/whatif/kubernetes`, `kubectl quotient whatif -f`) → the facts of the job it asks
 * for: namespace, queue, priority class, pod sets and their shapes. One object among the
 * input's documents or List items is the job; LocalQueues, ClusterQueues,
 * WorkloadPriorityClasses and PriorityClasses beside it (or from `--kueue`, or the live
 * cluster) say where its queue leads and what its priority class is worth. The shapes are
 * read as `import kubectl` reads a Workload's podSets (pod-set-shape.ts); the quota,
 * workspace, module and priority as it reads a pod's (manifest-submission.ts).
 */
import type { InputFile, PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { KUEUE_QUEUE_LABEL } from './kubectl-types.js';
import { readKubePriority } from './kubectl-pod.js';
import { indexLocalQueues, readLocalQueues, type LocalQueueIndex } from './kueue-local-queues.js';
import { asObject, type ForeignObject, readObjects, Report, shown, stringMap, where } from './located-json.js';
import { MANIFEST_KINDS, podSetsOf } from './manifest-pod-sets.js';
import { otherShape, readPodSetShapes, shapeText, type PodSetShape } from './pod-set-shape.js';
import { NAME_ANNOTATION } from './tree-quota.js';

/** Kueue's label naming a WorkloadPriorityClass (kueue pkg/controller/constants `WorkloadPriorityClassLabel`). */
export const KUEUE_PRIORITY_CLASS_LABEL = 'kueue.x-k8s.io/priority-class';

/** Kubernetes' own PriorityClasses, which exist in every cluster (k8s.io/api/scheduling/v1 `SystemClusterCritical`, `SystemNodeCritical`). */
const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = { 'system-cluster-critical': 2000000000, 'system-node-critical': 2000001000 };

/** The objects that say what a manifest's queue and priority class mean. */
export interface ManifestContext {
  localQueues: LocalQueueIndex;
  /** WorkloadPriorityClass name → value, and where it was read. */
  workloadPriorityClasses: Map<string, { value: number; origin: string }>;
  /** PriorityClass name → value (and the globalDefault one, if any). */
  priorityClasses: Map<string, { value: number; origin: string }>;
  globalDefault?: { name: string; value: number; origin: string };
}

/** The priority a manifest asks for, as Kueue reads it, before it is mapped to the policy's. */
export interface ManifestPriority {
  /** The Kubernetes value (int32); 0 when nothing gives one. */
  value: number;
  /** How it was read, for the answer's note. */
  from: string;
  /** The field it came from, for findings about the priority. */
  at?: PathSeg[];
}

/** One manifest job, read. */
export interface ManifestJob {
  sd: SourceDoc;
  path: PathSeg[];
  kind: string;
  /** metadata.name as written. */
  name: string;
  /** metadata.namespace, else `defaultNamespace` (said in `namespaceFrom`). */
  namespace: string;
  namespaceFrom: string;
  labels: Record<string, string>;
  /** The labels of the first GPU pod set's template (what its pods will carry), and where they are. */
  podLabels: Record<string, string>;
  podLabelsAt: PathSeg[];
  /** Where the first GPU pod set's count and template are, for findings about the job's pods and resources. */
  countAt: PathSeg[];
  templateAt: PathSeg[];
  /** A Workload's spec.queueName (its LocalQueue; other kinds name theirs by label). */
  queueName?: string;
  priority: ManifestPriority;
  shapes: PodSetShape[];
  /** Pod sets without GPUs, left out of the GPU gang (said in the answer). */
  noGpu: string[];
  /** spec.suspend true: ignored, the question is what happens when it is submitted. */
  suspended: boolean;
  /** Owner kind for the module: the manifest's kind (a Workload's owner's, or none for Kueue's pod integration). */
  ownerKind: string | undefined;
}

/** Reads a manifest input: the job, the context objects beside it, and the findings (errors leave `job` undefined). */
/** How to read a manifest: context files beside it, the namespace of an object without one (kubectl's), the GPU resource. */
export interface ManifestOptions {
  extra?: InputFile[];
  namespace?: string;
  gpuResource?: string;
}

export function readManifest(file: InputFile, options: ManifestOptions = {}): { job?: ManifestJob; context: ManifestContext; report: Report } {
  const extra = options.extra ?? [];
  const defaultNamespace = options.namespace ?? 'default';
  const gpuResource = options.gpuResource ?? 'nvidia.com/gpu';
  const report = new Report();
  const objects = readObjects([file], report);
  const more = extra.length ? readObjects(extra, report) : [];
  const context = contextOf([...objects, ...more], report);
  if (report.failed) return { context, report };
  const jobs = objects.filter((o) => MANIFEST_KINDS[o.kind] !== undefined);
  if (jobs.length === 0) {
    const first = objects[0];
    const hint = `give one of ${Object.keys(MANIFEST_KINDS).join(', ')}, as \`kubectl apply -f\` would take it`;
    if (first) report.error(first.sd, [...first.path, 'kind'], 'interop/manifest-no-job', `${first.kind} ${first.name} is not a workload; the input holds no job to ask about`, hint);
    else report.findings.push({ file: file.path, line: 1, column: 1, code: 'interop/manifest-no-job', severity: 'error', path: '', message: 'the input holds no Kubernetes object', hint });
    return { context, report };
  }
  if (jobs.length > 1) {
    const [a, b] = jobs;
    report.error(
      b!.sd,
      [...b!.path, 'kind'],
      'interop/manifest-several-jobs',
      `${b!.kind} ${b!.name} is a second job in the input (the first is ${a!.kind} ${a!.name} at ${where(a!.sd, a!.path)}); a what-if asks about one job`,
      'give one workload per input (its LocalQueues and priority classes may stay beside it)',
    );
    return { context, report };
  }
  // Objects neither the job nor context are said, not dropped in silence.
  for (const o of objects)
    if (MANIFEST_KINDS[o.kind] === undefined && !CONTEXT_KINDS.has(o.kind))
      report.warn(o.sd, [...o.path, 'kind'], 'interop/skipped-object', `${o.kind} ${o.name} is not read`, `only a workload and the ${[...CONTEXT_KINDS].join(', ')} beside it are read`);
  const job = readJob(jobs[0]!, context, defaultNamespace, gpuResource, report);
  return { ...(job && !report.failed ? { job } : {}), context, report };
}

/** Kinds read as context, not as the job. */
const CONTEXT_KINDS = new Set(['LocalQueue', 'ClusterQueue', 'WorkloadPriorityClass', 'PriorityClass', 'ResourceFlavor', 'Cohort', 'Namespace']);

/** The LocalQueues (named by their ClusterQueue's quota name, as import kueue names quotas) and priority classes among `objects`. */
export function contextOf(objects: ForeignObject[], report: Report): ManifestContext {
  const quotaName = new Map(objects.filter((o) => o.kind === 'ClusterQueue').map((o) => [o.name, o.annotations[NAME_ANNOTATION] ?? o.name]));
  const links = readLocalQueues(objects, report).map((l) => ({ ...l, clusterQueue: quotaName.get(l.clusterQueue) ?? l.clusterQueue }));
  const context: ManifestContext = { localQueues: indexLocalQueues(links), workloadPriorityClasses: new Map(), priorityClasses: new Map() };
  for (const o of objects) {
    if (o.kind !== 'WorkloadPriorityClass' && o.kind !== 'PriorityClass') continue;
    const value = o.obj.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
      report.error(
        o.sd,
        [...o.path, 'value'],
        'interop/bad-priority',
        `${o.kind} ${o.name}: value ${shown(o.sd, [...o.path, 'value'], value)} is not a priority (a whole number from -2147483648 to 2147483647)`,
        'a priority class has an int32 value',
      );
      continue;
    }
    const entry = { value, origin: where(o.sd, o.path) };
    if (o.kind === 'WorkloadPriorityClass') context.workloadPriorityClasses.set(o.name, entry);
    else {
      context.priorityClasses.set(o.name, entry);
      if (o.obj.globalDefault === true) context.globalDefault = { name: o.name, ...entry };
    }
  }
  return context;
}

function readJob(o: ForeignObject, context: ManifestContext, defaultNamespace: string, gpuResource: string, report: Report): ManifestJob | undefined {
  const { sd, path, obj, kind } = o;
  const meta = asObject(obj.metadata) ?? {};
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace;
  const who = `${kind} "${namespace}/${o.name}"`;
  const then = 'the job cannot be asked about';
  const spec = asObject(obj.spec) ?? {};
  const sets = podSetsOf(kind, obj, path);
  if ('missing' in sets) {
    report.error(sd, sets.missing, 'interop/bad-manifest', `${who} has no ${sets.what}; ${then}`, `a ${kind} gives its pods' template (as \`kubectl apply\` would take it)`);
    return undefined;
  }
  for (const s of sets.sets)
    if (!s.template) {
      report.error(sd, s.templateAt, 'interop/bad-manifest', `${who}: pod set ${s.name} has no pod template; ${then}`, 'each pod set gives its pods a template: metadata and spec.containers');
      return undefined;
    }
  const read = readPodSetShapes(sd, sets.sets, gpuResource, { report, severity: 'error', who, then });
  if ('skip' in read) return undefined;
  const { shapes, noGpu } = read;
  if (shapes.length === 0) {
    report.error(
      sd,
      path,
      'interop/manifest-no-gpu',
      `${who} asks for no ${gpuResource} in any pod set (${noGpu.join(', ') || 'no pods'}); a Quotient job is a gang of GPU pods`,
      `give its containers resources.limits["${gpuResource}"]`,
    );
    return undefined;
  }
  const other = otherShape(shapes);
  if (other) {
    // A Quotient job is pods of one shape (SEMANTICS 1): merging shapes would ask for what the job does not, and splitting it would admit its parts apart.
    const head = shapes[0]!;
    report.error(
      sd,
      sets.sets[other.index]!.templateAt,
      'interop/manifest-shapes',
      `${who}: pod set ${other.name} (per pod ${shapeText(other)}) differs from pod set ${head.name} (${shapeText(head)}); a Quotient job is pods of one shape, so the pod sets ${shapes.map((s) => s.name).join(', ')} cannot be asked as one job`,
      'give the GPU pod sets one shape (the same GPUs, cpu and memory per pod), or ask about each pod set as its own job',
    );
    return undefined;
  }
  const head = sets.sets[shapes[0]!.index]!;
  const labels = stringMap(meta.labels);
  const priority = priorityOf(o, sets.sets, context, who, report);
  if (!priority) return undefined;
  const ownerKind = kind === 'Workload' ? workloadOwnerKind(meta) : kind === 'Pod' ? undefined : kind;
  return {
    sd,
    path,
    kind,
    name: o.name,
    namespace,
    namespaceFrom: typeof meta.namespace === 'string' && meta.namespace !== '' ? 'metadata.namespace' : `no metadata.namespace: the namespace ${defaultNamespace}`,
    labels,
    podLabels: stringMap(asObject(head.template?.metadata)?.labels),
    podLabelsAt: [...head.templateAt, 'metadata', 'labels'],
    countAt: head.countAt,
    templateAt: head.templateAt,
    ...(kind === 'Workload' && typeof spec.queueName === 'string' && spec.queueName !== '' ? { queueName: spec.queueName } : {}),
    priority,
    shapes,
    noGpu,
    suspended: spec.suspend === true || (kind === 'Workload' && spec.active === false),
    ownerKind,
  };
}

/** The kind of a Workload's controlling owner (none, or a Pod of Kueue's pod integration: undefined). */
function workloadOwnerKind(meta: Record<string, unknown>): string | undefined {
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  const owner = refs.map(asObject).find((r) => r?.controller === true) ?? asObject(refs[0]);
  const kind = typeof owner?.kind === 'string' ? owner.kind : undefined;
  return kind === 'Pod' ? undefined : kind;
}

/**
 * The priority as Kueue gives a Workload one: the WorkloadPriorityClass the job's label
 * names; else (a Workload) its spec.priority; else the first pod template's
 * spec.priorityClassName; else the cluster's globalDefault PriorityClass; else 0. A class
 * no object says the value of is an error at the name (a guessed priority would change
 * who may preempt whom).
 */
function priorityOf(
  o: ForeignObject,
  sets: ReadonlyArray<{ template: Record<string, unknown> | undefined; templateAt: PathSeg[] }>,
  context: ManifestContext,
  who: string,
  report: Report,
): ManifestPriority | undefined {
  const { sd, path, obj } = o;
  const wpc = o.labels[KUEUE_PRIORITY_CLASS_LABEL];
  const unknown = (at: PathSeg[], what: string, name: string, get: string): undefined => {
    report.error(
      sd,
      at,
      'interop/unknown-priority-class',
      `${who}: ${what} ${name} is not known: no ${what} of that name is in the input`,
      `put the ${what} beside the job (\`kubectl get ${get} ${name} -o yaml\`), give it to --kueue, or ask through \`kubectl quotient\`, which reads the cluster's`,
    );
    return undefined;
  };
  if (wpc !== undefined) {
    const at = [...path, 'metadata', 'labels', KUEUE_PRIORITY_CLASS_LABEL];
    const c = context.workloadPriorityClasses.get(wpc);
    if (!c) return unknown(at, 'WorkloadPriorityClass', wpc, 'workloadpriorityclasses');
    return { value: c.value, from: `WorkloadPriorityClass ${wpc} (value ${c.value}, ${c.origin}), named by label ${KUEUE_PRIORITY_CLASS_LABEL}`, at };
  }
  if (o.kind === 'Workload') {
    const spec = asObject(obj.spec) ?? {};
    const p = readKubePriority(sd, path, spec, who, 'Workload', report);
    if (p.bad !== undefined) {
      // A Workload asked about is refused, not skipped: the warning becomes the error.
      const last = report.findings[report.findings.length - 1]!;
      report.findings[report.findings.length - 1] = { ...last, severity: 'error', message: last.message.replace('the Workload is not queued', 'the job cannot be asked about') };
      return undefined;
    }
    if (p.value !== undefined) return { value: p.value, from: `spec.priority ${p.value}`, at: [...path, 'spec', 'priority'] };
  }
  for (const s of sets) {
    const name = asObject(s.template?.spec)?.priorityClassName;
    if (typeof name !== 'string' || name === '') continue;
    const at = [...s.templateAt, 'spec', 'priorityClassName'];
    const c = context.priorityClasses.get(name) ?? (SYSTEM_PRIORITY_CLASSES[name] !== undefined ? { value: SYSTEM_PRIORITY_CLASSES[name], origin: "Kubernetes' own" } : undefined);
    if (!c) return unknown(at, 'PriorityClass', name, 'priorityclasses');
    return { value: c.value, from: `PriorityClass ${name} (value ${c.value}, ${c.origin}), the pods' spec.priorityClassName`, at };
  }
  const d = context.globalDefault;
  if (d) return { value: d.value, from: `the globalDefault PriorityClass ${d.name} (value ${d.value}, ${d.origin}): the job names no priority class` };
  return { value: 0, from: 'no priority class (counted as 0)' };
}

/** The queue label of a job (Kueue's `kueue.x-k8s.io/queue-name` on the job object), for the summary. */
export function queueLabelOf(job: ManifestJob): string | undefined {
  return job.queueName ?? job.labels[KUEUE_QUEUE_LABEL];
}
