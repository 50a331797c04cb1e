/**
 * A Pod of `kubectl get pods -A -o json` → the facts its job is made of (import-kubectl.ts):
 * GPUs, cpu and memory, priority, quota, workspace, module and owner. A Running pod on an
 * imported node is part of a running job; a Pending pod without a node that names a
 * queue (Kueue's or Koordinator's label) is part of a waiting job (SEMANTICS 8).
 */
import { MODULES, type Module } from '../model/policy.js';
import { parseCpu, parseMemory, parseTime } from '../model/quantity.js';
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { importedName } from './imported-name.js';
import { parseCount } from './kube-quantity.js';
import { KOORDINATOR_QUOTA_LABEL, KUEUE_QUEUE_LABEL, type ImportedNode, type KubectlOptions, type NameSource, type PodFacts } from './kubectl-types.js';
import { asObject, type Report, shown, stringMap } from './located-json.js';
import { DEFAULT_OWNER_MODULES, moduleOfOwner } from './owner-module.js';
import { mapPriority } from './priority-map.js';

/** Sums a resource over a pod's containers: limits, else requests ("requests default to limits"). `path` is the pod's (or a Workload podSet's template). */
export function containerSum(
  path: PathSeg[],
  spec: Record<string, unknown>,
  resource: string,
  parse: (v: unknown) => number | undefined,
  prefer: 'limits' | 'requests',
): { value?: number; bad?: { path: PathSeg[]; raw: unknown } } {
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  let total: number | undefined;
  for (let i = 0; i < containers.length; i++) {
    const res = asObject(asObject(containers[i])?.resources) ?? {};
    const order = prefer === 'limits' ? (['limits', 'requests'] as const) : (['requests', 'limits'] as const);
    for (const key of order) {
      const raw = asObject(res[key])?.[resource];
      if (raw === undefined) continue;
      const v = parse(raw);
      if (v === undefined) return { bad: { path: [...path, 'spec', 'containers', i, 'resources', key, resource], raw } };
      total = (total ?? 0) + v;
      break;
    }
  }
  return { value: total };
}

/** A quota or workspace name from the first source the pod has, with where it was read (relative to the pod, or a Workload podSet's template). */
export function nameFrom(sources: NameSource[], labels: Record<string, string>, namespace: string): { name: string; from: string; path: PathSeg[] } | undefined {
  for (const s of sources) {
    if (s === 'namespace') {
      if (namespace) return { name: namespace, from: 'namespace', path: ['metadata', 'namespace'] };
      continue;
    }
    const label = s === 'kueue' ? KUEUE_QUEUE_LABEL : s === 'koordinator' ? KOORDINATOR_QUOTA_LABEL : s.slice('label:'.length);
    const v = labels[label];
    if (v) return { name: v, from: `label ${label}`, path: ['metadata', 'labels', label] };
  }
  return undefined;
}

export function readPod(
  sd: SourceDoc,
  path: PathSeg[],
  obj: Record<string, unknown>,
  nodes: Map<string, ImportedNode>,
  opts: KubectlOptions,
  report: Report,
  skip: (name: string, reason: string) => void,
): PodFacts | undefined {
  const meta = asObject(obj.metadata) ?? {};
  const rawName = typeof meta.name === 'string' ? meta.name : '';
  const rawNamespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const full = rawNamespace ? `${rawNamespace}/${rawName}` : rawName;
  const status = asObject(obj.status) ?? {};
  const spec = asObject(obj.spec) ?? {};
  const unbound = typeof spec.nodeName !== 'string' || spec.nodeName === '';
  // Pending and bound to no node: waiting, in a queue if it names one (below).
  const waiting = status.phase === 'Pending' && unbound;
  if (status.phase !== 'Running' && !waiting) {
    skip(full, `phase ${typeof status.phase === 'string' ? status.phase : '(none)'}, not Running${status.phase === 'Pending' ? ' (bound to a node, not yet started)' : ''}`);
    return undefined;
  }
  if (!waiting && unbound) {
    skip(full, 'no spec.nodeName');
    return undefined;
  }
  const gpu = containerSum(path, spec, opts.gpuResource, parseCount, 'limits');
  if (gpu.bad) {
    const read = shown(sd, gpu.bad.path, gpu.bad.raw);
    report.warn(sd, gpu.bad.path, 'interop/bad-quantity', `pod "${full}": ${opts.gpuResource} ${read} is not a whole number of GPUs; the pod is skipped`, 'GPU limits are a whole count such as "8"');
    skip(full, `${opts.gpuResource} ${read} is not a whole number`);
    return undefined;
  }
  if (!gpu.value) {
    skip(full, `no ${opts.gpuResource} in its containers' limits or requests`);
    return undefined;
  }
  const node = waiting ? undefined : nodes.get(spec.nodeName as string);
  if (!waiting && !node) {
    skip(full, `runs on node "${spec.nodeName as string}", which is not imported`);
    return undefined;
  }
  if (node && gpu.value > node.gpus) {
    report.warn(
      sd,
      [...path, 'spec', 'nodeName'],
      'interop/pod-exceeds-node',
      `pod "${full}" holds ${gpu.value} GPUs on node "${node.name}", which has ${node.gpus}; the pod is skipped`,
      'the input is inconsistent; take the snapshot again',
    );
    skip(full, `holds ${gpu.value} GPUs on a ${node.gpus}-GPU node`);
    return undefined;
  }
  // spec.priority is an int32 Kubernetes writes from the pod's PriorityClass; anything else
  // is not a priority, and guessing one would change who may preempt whom.
  const kubePriority = readKubePriority(sd, path, spec, `pod "${full}"`, 'pod', report);
  if (kubePriority.bad !== undefined) {
    skip(full, `spec.priority ${kubePriority.bad} is not a whole number`);
    return undefined;
  }
  const rawPriority = kubePriority.value;
  const quota = nameFrom(opts.quotaFrom, stringMap(meta.labels), rawNamespace);
  const workspace = nameFrom(opts.workspaceFrom, stringMap(meta.labels), rawNamespace);
  if (!quota || !workspace) {
    skip(full, `no ${!quota ? 'quota' : 'workspace'} name from ${(!quota ? opts.quotaFrom : opts.workspaceFrom).join(', ')}`);
    return undefined;
  }
  const queued = quota.from === `label ${KUEUE_QUEUE_LABEL}` || quota.from === `label ${KOORDINATOR_QUOTA_LABEL}`;
  if (waiting && !queued) {
    skip(full, `pending without a queue (label ${KUEUE_QUEUE_LABEL} or ${KOORDINATOR_QUOTA_LABEL}): it waits for the scheduler, not in a quota's queue`);
    return undefined;
  }
  let createdAt: number | undefined;
  if (waiting) {
    const created = readCreated(sd, path, meta, `pod "${full}"`, 'the waiting pod is skipped', report);
    createdAt = created.at;
    if (createdAt === undefined) {
      skip(full, `pending in a queue, with ${created.missing} metadata.creationTimestamp: when it was submitted is not known`);
      return undefined;
    }
  }
  // Kueue's label names a LocalQueue; with --kueue, the quota is the ClusterQueue it feeds.
  let quotaDetail: string | undefined;
  if (quota.from === `label ${KUEUE_QUEUE_LABEL}` && opts.localQueues) {
    const link = clusterQueueOf(rawNamespace, quota.name, opts, report, sd, [...path, ...quota.path], `pod "${full}"`, `label ${KUEUE_QUEUE_LABEL}`);
    if (link) {
      quotaDetail = link.detail;
      quota.from = `label ${KUEUE_QUEUE_LABEL} through the --kueue LocalQueues`;
      quota.name = link.clusterQueue;
    }
  }
  // Every name the snapshot will hold, written safe (imported-name.ts); each rewrite is said where it was read.
  const rewritten: string[] = [];
  const safe = safeNamer(sd, path, `pod "${full}"`, report, rewritten);
  const namespace = safe(rawNamespace, ['metadata', 'namespace'], 'namespace');
  const name = safe(rawName, ['metadata', 'name'], 'pod name');
  const facts: PodFacts = {
    sd,
    path,
    name: namespace ? `${namespace}/${name}` : name,
    namespace,
    node: node?.name ?? '',
    gpu: gpu.value,
    priority: mapPriority(typeof rawPriority === 'number' ? rawPriority : 0, opts.priorityMap),
    kubePriority: typeof rawPriority === 'number' ? rawPriority : undefined,
    quota: quota.from === 'namespace' ? namespace : safe(quota.name, quota.path, 'quota'),
    quotaFrom: quota.from,
    ...(quotaDetail ? { quotaDetail } : {}),
    workspace: workspace.from === 'namespace' ? namespace : safe(workspace.name, workspace.path, 'workspace'),
    module: opts.module,
    moduleFrom: '',
    owner: undefined,
    rewritten,
    ...(createdAt !== undefined ? { pending: { createdAt } } : {}),
  };
  Object.assign(facts, cpuAndMemory(sd, path, spec, `pod "${full}"`, report));
  // The controlling owner, else the first: its pods make one gang job.
  facts.owner = ownerOf(meta, safe);
  // The module: the pod's label, else its owner's kind (owner-module.ts), else --module.
  const chosen = moduleOf(stringMap(meta.labels), [...path, 'metadata', 'labels'], facts.owner?.kind, opts, report, sd, `pod "${full}"`, 'pods');
  facts.module = chosen.module;
  facts.moduleFrom = chosen.from;
  if (status.startTime !== undefined) {
    const started = parseTime(status.startTime);
    if (started === undefined)
      report.warn(
        sd,
        [...path, 'status', 'startTime'],
        'interop/bad-time',
        `pod "${full}": status.startTime ${shown(sd, [...path, 'status', 'startTime'], status.startTime)} is not a time; the pod's start is left out of its job's startedAt`,
        'Kubernetes writes times as RFC 3339, such as 2026-11-23T06:00:00Z: take the snapshot again',
      );
    else facts.startedAt = started;
  }
  return facts;
}

/** cpu and memory per pod from the containers' requests (limits without); a bad quantity is a warning at it and the resource is left untracked. */
export function cpuAndMemory(sd: SourceDoc, path: PathSeg[], spec: Record<string, unknown>, who: string, report: Report): { cpu?: number; memory?: number } {
  const out: { cpu?: number; memory?: number } = {};
  for (const r of ['cpu', 'memory'] as const) {
    const v = containerSum(path, spec, r, r === 'cpu' ? parseCpu : parseMemory, 'requests');
    if (v.bad)
      report.warn(
        sd,
        v.bad.path,
        'interop/bad-quantity',
        `${who}: ${r} ${shown(sd, v.bad.path, v.bad.raw)} is not a quantity; the job's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores or millicores ("500m")' : 'memory is a size such as "64Gi"',
      );
    else if (v.value !== undefined) out[r] = v.value;
  }
  return out;
}

/**
 * The ClusterQueue a Kueue LocalQueue `namespace/queue` feeds (--kueue), with the text
 * the job's comment gives; a LocalQueue the files do not hold is a warning at `at` and
 * undefined (the caller keeps the LocalQueue's name). Pods (their queue-name label) and
 * Workloads (spec.queueName) both come here.
 */
export function clusterQueueOf(
  namespace: string,
  queue: string,
  opts: KubectlOptions,
  report: Report,
  sd: SourceDoc,
  at: PathSeg[],
  who: string,
  field: string,
): { clusterQueue: string; detail: string } | undefined {
  const link = opts.localQueues?.get(`${namespace}/${queue}`);
  if (link) return { clusterQueue: link.clusterQueue, detail: `${field}: LocalQueue ${namespace}/${queue} → ClusterQueue ${link.clusterQueue} (${link.origin})` };
  report.warn(
    sd,
    at,
    'interop/unknown-local-queue',
    `${who}: LocalQueue ${namespace}/${queue} is not among the --kueue files' LocalQueues; its name is taken as the quota`,
    'give the LocalQueue (kubectl get localqueues -A -o yaml) to --kueue',
  );
  return undefined;
}

/** Writes a name of the object at `path` safe (imported-name.ts), warning where it was read and noting the rewrite in `rewritten`. */
export function safeNamer(sd: SourceDoc, path: PathSeg[], who: string, report: Report, rewritten: string[]): (raw: string, at: PathSeg[], what: string) => string {
  return (raw, at, what) => {
    const n = importedName(raw);
    if (n.rewritten) {
      report.warn(sd, [...path, ...at], 'interop/unsafe-name', `${who}: the ${what} "${n.name}": ${n.rewritten}`, `rename it in the cluster, or keep the escaped ${what}`);
      rewritten.push(`${what} rewritten: ${n.rewritten}`);
    }
    return n.name;
  };
}

/** The controlling owner of an object's `metadata`, else its first, with names written safe. */
export function ownerOf(meta: Record<string, unknown>, safe: (raw: string, at: PathSeg[], what: string) => string): { kind: string; name: string } | undefined {
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  let ownerAt = refs.findIndex((r) => asObject(r)?.controller === true);
  if (ownerAt < 0) ownerAt = refs.findIndex((r) => asObject(r) !== undefined);
  const owner = ownerAt >= 0 ? asObject(refs[ownerAt]) : undefined;
  if (!owner || typeof owner.kind !== 'string' || typeof owner.name !== 'string') return undefined;
  const at: PathSeg[] = ['metadata', 'ownerReferences', ownerAt];
  return { kind: safe(owner.kind, [...at, 'kind'], 'owner kind'), name: safe(owner.name, [...at, 'name'], 'owner name') };
}

/**
 * A job's module: the module label among `labels` (a pod's, or a Workload podSet's
 * template's, at `labelsAt`), else its owner's kind (owner-module.ts), else --module. A
 * label that is not a module is a warning at it, and the owner's choice is used.
 */
export function moduleOf(
  labels: Record<string, string>,
  labelsAt: PathSeg[],
  ownerKind: string | undefined,
  opts: KubectlOptions,
  report: Report,
  sd: SourceDoc,
  who: string,
  what: string,
): { module: Module; from: string } {
  const byOwner = moduleOfOwner(ownerKind, opts.moduleMap ?? DEFAULT_OWNER_MODULES, opts.module);
  const value = labels[opts.moduleLabel];
  if (value === undefined) return byOwner;
  if ((MODULES as readonly string[]).includes(value)) return { module: value as Module, from: `label ${opts.moduleLabel}` };
  report.warn(
    sd,
    [...labelsAt, opts.moduleLabel],
    'interop/unknown-module',
    `${who}: module ${shown(sd, [...labelsAt, opts.moduleLabel], value)} is not one of ${MODULES.join(', ')}; ${byOwner.module} (${byOwner.from}) is used`,
    `label ${what} ${opts.moduleLabel}=DLC, DSW or EAS`,
  );
  return byOwner;
}

const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/**
 * spec.priority of a pod or a Workload: an int32 Kubernetes (or Kueue) writes from its
 * priority class. Anything else is not a priority, and guessing one would change who may
 * preempt whom: a warning at the value, and `bad` (the value as the input spells it) for
 * the caller to skip the object. None: `value` undefined (it counts as 0).
 */
export function readKubePriority(sd: SourceDoc, path: PathSeg[], spec: Record<string, unknown>, who: string, noun: 'pod' | 'Workload', report: Report): { value?: number; bad?: string } {
  const raw = spec.priority;
  if (raw === undefined || raw === null) return {};
  if (isKubePriority(raw)) return { value: raw };
  const at = [...path, 'spec', 'priority'];
  const read = shown(sd, at, raw);
  const pod = noun === 'pod';
  report.warn(
    sd,
    at,
    'interop/bad-priority',
    `${who}: spec.priority ${read} is not a Kubernetes priority (a whole number from ${INT32_MIN} to ${INT32_MAX}); ${pod ? 'the pod is skipped' : 'the Workload is not queued'}`,
    `${pod ? 'Kubernetes' : 'Kueue'} writes spec.priority from the ${noun}'s ${pod ? 'PriorityClass' : 'priority class'} as a whole number: take the snapshot again, or remove the field (a ${noun} without it counts as 0)`,
  );
  return { bad: read };
}

/** metadata.creationTimestamp of a waiting pod or Workload; one that is not a time is a warning at it (`then`: what becomes of the object). */
export function readCreated(sd: SourceDoc, path: PathSeg[], meta: Record<string, unknown>, who: string, then: string, report: Report): { at?: number; missing?: 'no' | 'a bad' } {
  const created = meta.creationTimestamp;
  if (created === undefined) return { missing: 'no' };
  const at = parseTime(created);
  if (at !== undefined) return { at };
  const where = [...path, 'metadata', 'creationTimestamp'];
  report.warn(
    sd,
    where,
    'interop/bad-time',
    `${who}: metadata.creationTimestamp ${shown(sd, where, created)} is not a time; ${then}`,
    'Kubernetes writes times as RFC 3339, such as 2026-11-23T06:00:00Z: take the snapshot again',
  );
  return { missing: 'a bad' };
}

/** Whether `v` is a Kubernetes priority: a whole number in int32's range. */
function isKubePriority(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
}
