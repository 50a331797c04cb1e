/**
 * `kubectl get nodes,pods -A -o json` → the nodes and running jobs of a Cluster snapshot.
 *
 * What Kubernetes says and Quotient needs differ in three ways, each handled here and
 * reported in the summary: GPU indices are unknown (placements are a node and a GPU
 * count, the engine assigns indices); priorities are any int32 (mapped onto 1..9 by
 * bands, priority-map.ts); a job is many pods (pods of one controlling owner — Job,
 * PyTorchJob, StatefulSet, ReplicaSet… — become one gang job, split by pod shape).
 * Nothing is dropped silently: every object not imported is listed with the reason.
 */
import { MODULES, type Module } from '../model/policy.js';
import { parseCpu, parseMemory, parseTime } from '../model/quantity.js';
import type { InputFile, PathSeg, SourceDoc } from '../policy/source-doc.js';
import { importedName, writableText } from './imported-name.js';
import { parseCount } from './kube-quantity.js';
import { asObject, readLocated, Report, shown, stringMap, where } from './located-json.js';
import { mapPriority, type PriorityBand } from './priority-map.js';

/** Kueue's pod label naming the LocalQueue (kueue pkg/controller/constants/constants.go `QueueLabel`). */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
/** Koordinator's pod label naming the ElasticQuota (koordinator apis/extension/elastic_quota.go `LabelQuotaName`). */
export const KOORDINATOR_QUOTA_LABEL = 'quota.scheduling.koordinator.sh/name';

/** Where a pod's quota or workspace name comes from, tried in order. */
export type NameSource = 'kueue' | 'koordinator' | 'namespace' | `label:${string}`;

/** How to read the cluster (every field has a CLI flag; defaults in docs/interop.md). */
export interface KubectlOptions {
  /** The extended resource counted as GPUs. */
  gpuResource: string;
  /** The node label holding the GPU model. */
  modelLabel: string;
  /** The node label holding the pool; nodes without it (or when unset) get `pool`. */
  poolLabel?: string;
  pool: string;
  quotaFrom: NameSource[];
  workspaceFrom: NameSource[];
  /** The pod label holding the module (DLC, DSW, EAS); pods without it get `module`. */
  moduleLabel: string;
  module: Module;
  priorityMap: PriorityBand[];
}

/** A node of the snapshot, with where it came from. */
export interface ImportedNode {
  name: string;
  gpus: number;
  cpu?: number;
  memory?: number;
  pool: string;
  gpuModel?: string;
  unschedulable?: boolean;
  /** `file:line:col` of the Node object, and how each value was read. */
  origin: string;
  notes: string[];
}

/** A running job of the snapshot: one gang of pods of one owner and one shape. */
export interface ImportedJob {
  name: string;
  workspace: string;
  quota: string;
  module: Module;
  priority: number;
  pods: number;
  resources: { gpu: number; cpu?: number; memory?: number };
  startedAt?: number;
  placement: Array<{ node: string; gpuCount: number }>;
  origin: string;
  notes: string[];
}

/** An object that was read and not imported (its kind, name and reason escaped, imported-name.ts writableText). */
export interface Skipped {
  kind: string;
  name: string;
  where: string;
  reason: string;
}

export interface KubectlImport {
  nodes: ImportedNode[];
  jobs: ImportedJob[];
  skipped: Skipped[];
  /** Objects read, by kind. */
  read: Record<string, number>;
  /** How values were mapped, one line each, for the summary. */
  mapped: string[];
  report: Report;
}

interface PodFacts {
  sd: SourceDoc;
  path: PathSeg[];
  name: string;
  namespace: string;
  node: string;
  gpu: number;
  cpu?: number;
  memory?: number;
  priority: number;
  /** spec.priority, or undefined when the pod has none (it counts as 0). */
  kubePriority: number | undefined;
  quota: string;
  quotaFrom: string;
  workspace: string;
  module: Module;
  owner: { kind: string; name: string } | undefined;
  startedAt?: number;
  /** Why a name of the pod was rewritten (imported-name.ts), for the job's comment. */
  rewritten: string[];
}

/** Reads a kubectl List; a document that is not one is a located error. */
export function importKubectl(file: InputFile, opts: KubectlOptions): KubectlImport {
  const { docs, findings } = readLocated(file, { json: true, what: 'the kubectl List' });
  const report = new Report();
  for (const f of findings) report.findings.push(f);
  const out: KubectlImport = { nodes: [], jobs: [], skipped: [], read: {}, mapped: [], report };
  if (report.failed) return out;
  const items: Array<{ sd: SourceDoc; path: PathSeg[]; obj: Record<string, unknown> }> = [];
  if (docs.length === 0) {
    report.findings.push({
      file: file.path,
      line: 1,
      column: 1,
      code: 'interop/not-a-list',
      severity: 'error',
      path: '',
      message: 'the input is empty',
      hint: 'give the output of `kubectl get nodes,pods -A -o json`',
    });
    return out;
  }
  for (const { sd, value } of docs) {
    const top = asObject(value);
    if (!top || (typeof top.kind === 'string' && top.kind !== 'List' && !top.kind.endsWith('List') && top.kind !== 'Node' && top.kind !== 'Pod')) {
      report.error(
        sd,
        top ? ['kind'] : [],
        'interop/not-a-list',
        `expected a Kubernetes List (kind: List with items), got ${top ? `kind ${JSON.stringify(top.kind)}` : 'a non-object'}`,
        'give the output of `kubectl get nodes,pods -A -o json`',
      );
      continue;
    }
    if (top.kind === 'Node' || top.kind === 'Pod') {
      items.push({ sd, path: [], obj: top });
      continue;
    }
    if (!Array.isArray(top.items)) {
      report.error(sd, ['items'], 'interop/not-a-list', 'the List has no items array', 'give the output of `kubectl get nodes,pods -A -o json`');
      continue;
    }
    top.items.forEach((it, i) => {
      const obj = asObject(it);
      if (!obj) report.error(sd, ['items', i], 'interop/bad-object', `items[${i}] is not an object`, 'each item of a List is a Kubernetes object');
      else items.push({ sd, path: ['items', i], obj });
    });
  }
  if (report.failed) return out;

  // What is listed for people holds the input's text escaped (the summary is printed as it is).
  const skip = (sd: SourceDoc, path: PathSeg[], kind: string, name: string, reason: string): void => {
    out.skipped.push({ kind: writableText(kind), name: writableText(name), where: where(sd, path), reason: writableText(reason) });
  };
  const pods: Array<(typeof items)[number]> = [];
  // Nodes by their name in the input (pods name them so), and every Node read by the name it is written as.
  const nodes = new Map<string, ImportedNode>();
  const nodeNames = new Map<string, string>();
  const counts = { poolLabel: 0, poolDefault: 0, model: 0, unschedulable: 0 };
  for (const it of items) {
    const kind = typeof it.obj.kind === 'string' ? it.obj.kind : '(no kind)';
    out.read[writableText(kind)] = (out.read[writableText(kind)] ?? 0) + 1;
    const meta = asObject(it.obj.metadata) ?? {};
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (kind === 'Pod') pods.push(it);
    else if (kind !== 'Node') skip(it.sd, it.path, kind, name, `kind ${kind} is not read (only Node and Pod)`);
    else if (!name) report.error(it.sd, [...it.path, 'metadata'], 'interop/missing-name', 'a Node without metadata.name', 'every Kubernetes object has a name');
    else {
      const safe = importedName(name);
      const first = nodeNames.get(safe.name);
      if (first !== undefined) {
        report.error(
          it.sd,
          [...it.path, 'metadata', 'name'],
          'interop/duplicate-node',
          `two Nodes are named "${safe.name}" (the first at ${first}); which one the pods on it run on is not known`,
          'a cluster has one Node of each name: take the snapshot again (`kubectl get nodes,pods -A -o json`), or remove one of them',
        );
        continue;
      }
      nodeNames.set(safe.name, where(it.sd, it.path));
      const node = readNode(it.sd, it.path, it.obj, safe.name, opts, report, (reason) => skip(it.sd, it.path, 'Node', name, reason));
      if (safe.rewritten) {
        report.warn(it.sd, [...it.path, 'metadata', 'name'], 'interop/unsafe-name', `Node "${safe.name}": ${safe.rewritten}`, 'rename the node, or keep the escaped name');
        node?.notes.push(`name rewritten: ${safe.rewritten}`);
      }
      if (node) {
        nodes.set(name, node);
        if (node.notes.some((n) => n.startsWith('pool from label'))) counts.poolLabel++;
        else counts.poolDefault++;
        if (node.gpuModel) counts.model++;
        if (node.unschedulable) counts.unschedulable++;
      }
    }
  }
  if (report.failed) return out;
  out.nodes = [...nodes.values()];
  out.mapped.push(
    `nodes: GPUs from status.allocatable["${opts.gpuResource}"], cpu and memory from status.allocatable; model from label ${opts.modelLabel} on ${counts.model} of ${out.nodes.length}; pool from ${opts.poolLabel ? `label ${opts.poolLabel} on ${counts.poolLabel}, ` : ''}"${opts.pool}" on ${counts.poolDefault}; ${counts.unschedulable} unschedulable (spec.unschedulable) marked`,
  );

  const facts: PodFacts[] = [];
  // Every Pod by namespace and name: the same pod twice would count its GPUs twice.
  const podNames = new Map<string, string>();
  for (const it of pods) {
    const meta = asObject(it.obj.metadata) ?? {};
    const key = `${typeof meta.namespace === 'string' ? meta.namespace : ''}\u0000${typeof meta.name === 'string' ? meta.name : ''}`;
    const first = podNames.get(key);
    if (first !== undefined) {
      report.error(
        it.sd,
        [...it.path, 'metadata', 'name'],
        'interop/duplicate-pod',
        `the Pod ${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${typeof meta.name === 'string' ? meta.name : ''} is in the input twice (the first at ${first})`,
        'a namespace has one Pod of each name: take the snapshot again (`kubectl get nodes,pods -A -o json`), or remove one of them',
      );
      continue;
    }
    podNames.set(key, where(it.sd, it.path));
    const f = readPod(it.sd, it.path, it.obj, nodes, opts, report, (name, reason) => skip(it.sd, it.path, 'Pod', name, reason));
    if (f) facts.push(f);
  }
  if (report.failed) return out;
  // Pods name their node as the input does; jobs are placed by the name the node is written as.
  out.jobs = groupJobs(facts, new Map(out.nodes.map((n) => [n.name, n])), out, opts);
  return out;
}

function readNode(sd: SourceDoc, path: PathSeg[], obj: Record<string, unknown>, name: string, opts: KubectlOptions, report: Report, skip: (reason: string) => void): ImportedNode | undefined {
  const status = asObject(obj.status) ?? {};
  const alloc = asObject(status.allocatable) ?? {};
  const allocPath = [...path, 'status', 'allocatable'];
  const raw = alloc[opts.gpuResource];
  if (raw === undefined) {
    skip(`no ${opts.gpuResource} in status.allocatable`);
    return undefined;
  }
  const gpus = parseCount(raw);
  if (gpus === undefined) {
    const read = shown(sd, [...allocPath, opts.gpuResource], raw);
    report.warn(
      sd,
      [...allocPath, opts.gpuResource],
      'interop/bad-quantity',
      `node "${name}": ${opts.gpuResource} ${read} is not a whole number of GPUs; the node is skipped`,
      'allocatable GPUs are a whole count such as "8"',
    );
    skip(`${opts.gpuResource} ${read} is not a whole number`);
    return undefined;
  }
  if (gpus === 0) {
    skip(`0 allocatable ${opts.gpuResource}`);
    return undefined;
  }
  if (gpus > 32) {
    report.warn(
      sd,
      [...allocPath, opts.gpuResource],
      'interop/too-many-gpus',
      `node "${name}" has ${gpus} GPUs; Quotient models at most 32 per node, so the node is skipped`,
      'split the node into smaller ones by hand if you need it',
    );
    skip(`${gpus} GPUs (more than 32)`);
    return undefined;
  }
  const notes = [`GPUs from status.allocatable["${opts.gpuResource}"] = ${shown(sd, [...allocPath, opts.gpuResource], raw)}`];
  const node: ImportedNode = { name, gpus, pool: opts.pool, origin: where(sd, path), notes };
  for (const r of ['cpu', 'memory'] as const) {
    if (alloc[r] === undefined) continue;
    const v = r === 'cpu' ? parseCpu(alloc[r]) : parseMemory(alloc[r]);
    if (v === undefined)
      report.warn(
        sd,
        [...allocPath, r],
        'interop/bad-quantity',
        `node "${name}": ${r} ${shown(sd, [...allocPath, r], alloc[r])} is not a quantity; the node's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores ("96") or millicores ("95500m")' : 'memory is a size such as "1056Gi"',
      );
    else node[r] = v;
  }
  const meta = asObject(obj.metadata) ?? {};
  const labels = stringMap(meta.labels);
  // A label's value names a model or a pool: written safe, as names are (imported-name.ts).
  const labelled = (label: string, what: string): string | undefined => {
    const value = labels[label];
    if (!value) return undefined;
    const safe = importedName(value);
    if (safe.rewritten) {
      report.warn(
        sd,
        [...path, 'metadata', 'labels', label],
        'interop/unsafe-name',
        `node "${name}": the ${what} "${safe.name}" of label ${label}: ${safe.rewritten}`,
        `relabel the node, or keep the escaped ${what}`,
      );
      notes.push(`${what} rewritten: ${safe.rewritten}`);
    }
    return safe.name;
  };
  const model = labelled(opts.modelLabel, 'GPU model');
  if (model) {
    node.gpuModel = model;
    notes.push(`model from label ${opts.modelLabel}`);
  }
  const pool = opts.poolLabel ? labelled(opts.poolLabel, 'pool') : undefined;
  if (pool) {
    node.pool = pool;
    notes.push(`pool from label ${opts.poolLabel}`);
  } else notes.push(opts.poolLabel ? `no label ${opts.poolLabel}: pool "${opts.pool}"` : `pool "${opts.pool}" (--pool)`);
  const spec = asObject(obj.spec) ?? {};
  if (spec.unschedulable === true) {
    node.unschedulable = true;
    notes.push('spec.unschedulable: true (cordoned)');
  }
  return node;
}

/** Sums a resource over a pod's containers: limits, else requests ("requests default to limits"). */
function containerSum(
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

/** A quota or workspace name from the first source the pod has, with where it was read. */
function nameFrom(sources: NameSource[], labels: Record<string, string>, namespace: string): { name: string; from: string; path: PathSeg[] } | undefined {
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

function readPod(
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
  if (status.phase !== 'Running') {
    skip(full, `phase ${typeof status.phase === 'string' ? status.phase : '(none)'}, not Running`);
    return undefined;
  }
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') {
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
  const node = nodes.get(spec.nodeName);
  if (!node) {
    skip(full, `runs on node "${spec.nodeName}", which is not imported`);
    return undefined;
  }
  if (gpu.value > node.gpus) {
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
  const rawPriority = spec.priority;
  if (rawPriority !== undefined && rawPriority !== null && !isKubePriority(rawPriority)) {
    const read = shown(sd, [...path, 'spec', 'priority'], rawPriority);
    report.warn(
      sd,
      [...path, 'spec', 'priority'],
      'interop/bad-priority',
      `pod "${full}": spec.priority ${read} is not a Kubernetes priority (a whole number from ${INT32_MIN} to ${INT32_MAX}); the pod is skipped`,
      "Kubernetes writes spec.priority from the pod's PriorityClass as a whole number: take the snapshot again, or remove the field (a pod without it counts as 0)",
    );
    skip(full, `spec.priority ${read} is not a whole number`);
    return undefined;
  }
  const quota = nameFrom(opts.quotaFrom, stringMap(meta.labels), rawNamespace);
  const workspace = nameFrom(opts.workspaceFrom, stringMap(meta.labels), rawNamespace);
  if (!quota || !workspace) {
    skip(full, `no ${!quota ? 'quota' : 'workspace'} name from ${(!quota ? opts.quotaFrom : opts.workspaceFrom).join(', ')}`);
    return undefined;
  }
  // Every name the snapshot will hold, written safe (imported-name.ts); each rewrite is said where it was read.
  const rewritten: string[] = [];
  const safe = (raw: string, at: PathSeg[], what: string): string => {
    const n = importedName(raw);
    if (n.rewritten) {
      report.warn(sd, [...path, ...at], 'interop/unsafe-name', `pod "${full}": the ${what} "${n.name}": ${n.rewritten}`, `rename it in the cluster, or keep the escaped ${what}`);
      rewritten.push(`${what} rewritten: ${n.rewritten}`);
    }
    return n.name;
  };
  const namespace = safe(rawNamespace, ['metadata', 'namespace'], 'namespace');
  const name = safe(rawName, ['metadata', 'name'], 'pod name');
  const facts: PodFacts = {
    sd,
    path,
    name: namespace ? `${namespace}/${name}` : name,
    namespace,
    node: node.name,
    gpu: gpu.value,
    priority: mapPriority(typeof rawPriority === 'number' ? rawPriority : 0, opts.priorityMap),
    kubePriority: typeof rawPriority === 'number' ? rawPriority : undefined,
    quota: quota.from === 'namespace' ? namespace : safe(quota.name, quota.path, 'quota'),
    quotaFrom: quota.from,
    workspace: workspace.from === 'namespace' ? namespace : safe(workspace.name, workspace.path, 'workspace'),
    module: opts.module,
    owner: undefined,
    rewritten,
  };
  for (const r of ['cpu', 'memory'] as const) {
    const v = containerSum(path, spec, r, r === 'cpu' ? parseCpu : parseMemory, 'requests');
    if (v.bad)
      report.warn(
        sd,
        v.bad.path,
        'interop/bad-quantity',
        `pod "${full}": ${r} ${shown(sd, v.bad.path, v.bad.raw)} is not a quantity; the job's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores or millicores ("500m")' : 'memory is a size such as "64Gi"',
      );
    else if (v.value !== undefined) facts[r] = v.value;
  }
  const labels = stringMap(meta.labels);
  const moduleValue = labels[opts.moduleLabel];
  if (moduleValue !== undefined) {
    if ((MODULES as readonly string[]).includes(moduleValue)) facts.module = moduleValue as Module;
    else
      report.warn(
        sd,
        [...path, 'metadata', 'labels', opts.moduleLabel],
        'interop/unknown-module',
        `pod "${full}": module ${shown(sd, [...path, 'metadata', 'labels', opts.moduleLabel], moduleValue)} is not one of ${MODULES.join(', ')}; ${opts.module} is used`,
        `label pods ${opts.moduleLabel}=DLC, DSW or EAS`,
      );
  }
  // The controlling owner, else the first: its pods make one gang job.
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  let ownerAt = refs.findIndex((r) => asObject(r)?.controller === true);
  if (ownerAt < 0) ownerAt = refs.findIndex((r) => asObject(r) !== undefined);
  const owner = ownerAt >= 0 ? asObject(refs[ownerAt]) : undefined;
  if (owner && typeof owner.kind === 'string' && typeof owner.name === 'string') {
    const at: PathSeg[] = ['metadata', 'ownerReferences', ownerAt];
    facts.owner = { kind: safe(owner.kind, [...at, 'kind'], 'owner kind'), name: safe(owner.name, [...at, 'name'], 'owner name') };
  }
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

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Whether `v` is a Kubernetes priority: a whole number in int32's range. */
function isKubePriority(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
}

/** Pods of one owner and one shape → one gang job; a node's GPUs are never over-committed. */
function groupJobs(pods: PodFacts[], nodes: Map<string, ImportedNode>, out: KubectlImport, opts: KubectlOptions): ImportedJob[] {
  const groups = new Map<string, PodFacts[]>();
  for (const p of pods) {
    const key = p.owner ? `${p.namespace}\u0000${p.owner.kind}\u0000${p.owner.name}` : `${p.namespace}\u0000Pod\u0000${p.name}`;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  const jobs: ImportedJob[] = [];
  const used = new Map<string, number>();
  const names = new Set<string>();
  const ownerKinds = new Map<string, number>();
  const quotaSources = new Map<string, number>();
  for (const members of groups.values()) {
    const first = members[0]!;
    const base = first.owner ? `${first.namespace}/${first.owner.name}` : first.name;
    const shapes = new Map<string, PodFacts[]>();
    for (const p of members) {
      const shape = `${p.gpu}/${p.cpu ?? '-'}/${p.memory ?? '-'}`;
      const same = shapes.get(shape);
      if (same) same.push(p);
      else shapes.set(shape, [p]);
    }
    let part = 0;
    for (const group of shapes.values()) {
      const head = group[0]!;
      let name = shapes.size > 1 ? `${base}#${++part}` : base;
      if (names.has(name)) name = `${name}(${head.owner?.kind ?? 'Pod'})`;
      // Names made from rewritten ones (imported-name.ts) may meet a name the input spelled with the escape itself.
      for (let k = 2; names.has(name); k++) name = `${base}~${k}`;
      names.add(name);
      const notes: string[] = [];
      notes.push(
        head.owner
          ? `${group.length} pod(s) of ${head.owner.kind} ${head.namespace}/${head.owner.name}${shapes.size > 1 ? ` (pods of one shape; the owner has ${shapes.size} shapes)` : ''}`
          : `standalone pod ${head.name}`,
      );
      notes.push(...new Set(group.flatMap((p) => p.rewritten)));
      const differ = (f: (p: PodFacts) => string | number): boolean => group.some((p) => f(p) !== f(head));
      if (differ((p) => p.quota) || differ((p) => p.workspace) || differ((p) => p.priority) || differ((p) => p.module)) {
        out.report.warn(
          head.sd,
          head.path,
          'interop/mixed-gang',
          `the pods of ${name} differ in quota, workspace, priority or module; the first pod's (${head.name}) are used for the whole job`,
          'label every pod of one owner alike',
        );
      }
      // A node's GPUs: pods beyond its count are inconsistent input; the job is skipped.
      const onNode = new Map<string, number>();
      for (const p of group) onNode.set(p.node, (onNode.get(p.node) ?? 0) + p.gpu);
      const over = [...onNode].find(([node, gpus]) => (used.get(node) ?? 0) + gpus > nodes.get(node)!.gpus)?.[0];
      if (over !== undefined) {
        for (const p of group) out.skipped.push({ kind: 'Pod', name: p.name, where: where(p.sd, p.path), reason: `node "${over}" would hold more GPUs than it has with job ${name}` });
        continue;
      }
      for (const [node, gpus] of onNode) used.set(node, (used.get(node) ?? 0) + gpus);
      const priority = head.kubePriority === undefined ? `priority ${head.priority}: no spec.priority (counted as 0)` : `priority ${head.priority} from spec.priority ${head.kubePriority}`;
      notes.push(`GPUs per pod from limits["${opts.gpuResource}"] = ${head.gpu}; ${priority}; quota "${head.quota}" from ${head.quotaFrom}`);
      const startedAt = group.reduce<number | undefined>((m, p) => (p.startedAt === undefined ? m : m === undefined ? p.startedAt : Math.min(m, p.startedAt)), undefined);
      jobs.push({
        name,
        workspace: head.workspace,
        quota: head.quota,
        module: head.module,
        priority: head.priority,
        pods: group.length,
        resources: { gpu: head.gpu, ...(head.cpu !== undefined ? { cpu: head.cpu } : {}), ...(head.memory !== undefined ? { memory: head.memory } : {}) },
        startedAt,
        placement: group.map((p) => ({ node: p.node, gpuCount: p.gpu })),
        origin: where(head.sd, head.path),
        notes,
      });
      const kind = head.owner?.kind ?? 'Pod (no owner)';
      ownerKinds.set(kind, (ownerKinds.get(kind) ?? 0) + 1);
      for (const p of group) quotaSources.set(p.quotaFrom, (quotaSources.get(p.quotaFrom) ?? 0) + 1);
    }
  }
  const list = (m: Map<string, number>): string => [...m].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  out.mapped.push(
    `pods: Running with spec.nodeName and GPUs → ${jobs.length} job(s) by controlling owner (${list(ownerKinds)}); GPUs from limits (requests when no limit), cpu and memory from requests (limits when no request)`,
  );
  out.mapped.push(`quota per pod from ${list(quotaSources)}; workspace from ${opts.workspaceFrom.join(', ')}; module from label ${opts.moduleLabel} (default ${opts.module})`);
  out.mapped.push(`priority: spec.priority → 1..9 by bands ${opts.priorityMap.map((b) => `${b.from}=${b.priority}`).join(',')} (a pod without spec.priority counts as 0)`);
  out.mapped.push('placement: node and GPU count per pod (Kubernetes does not say which GPU indices a pod holds); Quotient assigns indices when it loads the snapshot and says so in answers');
  return jobs;
}
