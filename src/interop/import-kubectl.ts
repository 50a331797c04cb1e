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
import { parseCpu, parseMemory } from '../model/quantity.js';
import type { InputFile, PathSeg, SourceDoc } from '../policy/source-doc.js';
import { parseCount } from './kube-quantity.js';
import { asObject, readLocated, Report, stringMap, where } from './located-json.js';
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

/** An object that was read and not imported. */
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
  kubePriority: number;
  quota: string;
  quotaFrom: string;
  workspace: string;
  module: Module;
  owner: { kind: string; name: string } | undefined;
  startedAt?: number;
}

/** Reads a kubectl List; a document that is not one is a located error. */
export function importKubectl(file: InputFile, opts: KubectlOptions): KubectlImport {
  const { docs, findings } = readLocated(file);
  const report = new Report();
  report.findings.push(...findings);
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

  const skip = (sd: SourceDoc, path: PathSeg[], kind: string, name: string, reason: string): void => {
    out.skipped.push({ kind, name, where: where(sd, path), reason });
  };
  const pods: Array<(typeof items)[number]> = [];
  const nodes = new Map<string, ImportedNode>();
  const counts = { poolLabel: 0, poolDefault: 0, model: 0, unschedulable: 0 };
  for (const it of items) {
    const kind = typeof it.obj.kind === 'string' ? it.obj.kind : '(no kind)';
    out.read[kind] = (out.read[kind] ?? 0) + 1;
    const meta = asObject(it.obj.metadata) ?? {};
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (kind === 'Pod') pods.push(it);
    else if (kind !== 'Node') skip(it.sd, it.path, kind, name, `kind ${kind} is not read (only Node and Pod)`);
    else if (!name) report.error(it.sd, [...it.path, 'metadata'], 'interop/missing-name', 'a Node without metadata.name', 'every Kubernetes object has a name');
    else {
      const node = readNode(it.sd, it.path, it.obj, name, opts, report, (reason) => skip(it.sd, it.path, 'Node', name, reason));
      if (node) {
        nodes.set(name, node);
        if (node.notes.some((n) => n.startsWith('pool from label'))) counts.poolLabel++;
        else counts.poolDefault++;
        if (node.gpuModel) counts.model++;
        if (node.unschedulable) counts.unschedulable++;
      }
    }
  }
  out.nodes = [...nodes.values()];
  out.mapped.push(
    `nodes: GPUs from status.allocatable["${opts.gpuResource}"], cpu and memory from status.allocatable; model from label ${opts.modelLabel} on ${counts.model} of ${out.nodes.length}; pool from ${opts.poolLabel ? `label ${opts.poolLabel} on ${counts.poolLabel}, ` : ''}"${opts.pool}" on ${counts.poolDefault}; ${counts.unschedulable} unschedulable (spec.unschedulable) marked`,
  );

  const facts: PodFacts[] = [];
  for (const it of pods) {
    const f = readPod(it.sd, it.path, it.obj, nodes, opts, report, (name, reason) => skip(it.sd, it.path, 'Pod', name, reason));
    if (f) facts.push(f);
  }
  out.jobs = groupJobs(facts, nodes, out, opts);
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
    report.warn(
      sd,
      [...allocPath, opts.gpuResource],
      'interop/bad-quantity',
      `node "${name}": ${opts.gpuResource} ${JSON.stringify(raw)} is not a whole number of GPUs; the node is skipped`,
      'allocatable GPUs are a whole count such as "8"',
    );
    skip(`${opts.gpuResource} ${JSON.stringify(raw)} is not a whole number`);
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
  const notes = [`GPUs from status.allocatable["${opts.gpuResource}"] = ${JSON.stringify(raw)}`];
  const node: ImportedNode = { name, gpus, pool: opts.pool, origin: where(sd, path), notes };
  for (const r of ['cpu', 'memory'] as const) {
    if (alloc[r] === undefined) continue;
    const v = r === 'cpu' ? parseCpu(alloc[r]) : parseMemory(alloc[r]);
    if (v === undefined)
      report.warn(
        sd,
        [...allocPath, r],
        'interop/bad-quantity',
        `node "${name}": ${r} ${JSON.stringify(alloc[r])} is not a quantity; the node's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores ("96") or millicores ("95500m")' : 'memory is a size such as "1056Gi"',
      );
    else node[r] = v;
  }
  const meta = asObject(obj.metadata) ?? {};
  const labels = stringMap(meta.labels);
  const model = labels[opts.modelLabel];
  if (model) {
    node.gpuModel = model;
    notes.push(`model from label ${opts.modelLabel}`);
  }
  const pool = opts.poolLabel ? labels[opts.poolLabel] : undefined;
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

function nameFrom(sources: NameSource[], labels: Record<string, string>, namespace: string): { name: string; from: string } | undefined {
  for (const s of sources) {
    if (s === 'namespace') {
      if (namespace) return { name: namespace, from: 'namespace' };
      continue;
    }
    const label = s === 'kueue' ? KUEUE_QUEUE_LABEL : s === 'koordinator' ? KOORDINATOR_QUOTA_LABEL : s.slice('label:'.length);
    const v = labels[label];
    if (v) return { name: v, from: `label ${label}` };
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
  const name = typeof meta.name === 'string' ? meta.name : '';
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const full = namespace ? `${namespace}/${name}` : name;
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
    report.warn(
      sd,
      gpu.bad.path,
      'interop/bad-quantity',
      `pod "${full}": ${opts.gpuResource} ${JSON.stringify(gpu.bad.raw)} is not a whole number of GPUs; the pod is skipped`,
      'GPU limits are a whole count such as "8"',
    );
    skip(full, `${opts.gpuResource} ${JSON.stringify(gpu.bad.raw)} is not a whole number`);
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
  const facts: PodFacts = {
    sd,
    path,
    name: full,
    namespace,
    node: node.name,
    gpu: gpu.value,
    priority: 1,
    kubePriority: 0,
    quota: '',
    quotaFrom: '',
    workspace: '',
    module: opts.module,
    owner: undefined,
  };
  for (const r of ['cpu', 'memory'] as const) {
    const v = containerSum(path, spec, r, r === 'cpu' ? parseCpu : parseMemory, 'requests');
    if (v.bad)
      report.warn(
        sd,
        v.bad.path,
        'interop/bad-quantity',
        `pod "${full}": ${r} ${JSON.stringify(v.bad.raw)} is not a quantity; the job's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores or millicores ("500m")' : 'memory is a size such as "64Gi"',
      );
    else if (v.value !== undefined) facts[r] = v.value;
  }
  facts.kubePriority = typeof spec.priority === 'number' ? spec.priority : 0;
  facts.priority = mapPriority(facts.kubePriority, opts.priorityMap);
  const labels = stringMap(meta.labels);
  const quota = nameFrom(opts.quotaFrom, labels, namespace);
  const workspace = nameFrom(opts.workspaceFrom, labels, namespace);
  if (!quota || !workspace) {
    skip(full, `no ${!quota ? 'quota' : 'workspace'} name from ${(!quota ? opts.quotaFrom : opts.workspaceFrom).join(', ')}`);
    return undefined;
  }
  facts.quota = quota.name;
  facts.quotaFrom = quota.from;
  facts.workspace = workspace.name;
  const moduleValue = labels[opts.moduleLabel];
  if (moduleValue !== undefined) {
    if ((MODULES as readonly string[]).includes(moduleValue)) facts.module = moduleValue as Module;
    else
      report.warn(
        sd,
        [...path, 'metadata', 'labels', opts.moduleLabel],
        'interop/unknown-module',
        `pod "${full}": module ${JSON.stringify(moduleValue)} is not one of ${MODULES.join(', ')}; ${opts.module} is used`,
        `label pods ${opts.moduleLabel}=DLC, DSW or EAS`,
      );
  }
  const refs = Array.isArray(meta.ownerReferences) ? meta.ownerReferences.map(asObject).filter((r) => r !== undefined) : [];
  const owner = refs.find((r) => r.controller === true) ?? refs[0];
  if (owner && typeof owner.kind === 'string' && typeof owner.name === 'string') facts.owner = { kind: owner.kind, name: owner.name };
  const started = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
  if (!Number.isNaN(started)) facts.startedAt = started;
  return facts;
}

/** Pods of one owner and one shape → one gang job; a node's GPUs are never over-committed. */
function groupJobs(pods: PodFacts[], nodes: Map<string, ImportedNode>, out: KubectlImport, opts: KubectlOptions): ImportedJob[] {
  const groups = new Map<string, PodFacts[]>();
  for (const p of pods) {
    const key = p.owner ? `${p.namespace}\u0000${p.owner.kind}\u0000${p.owner.name}` : `${p.namespace}\u0000Pod\u0000${p.name}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
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
      shapes.set(shape, [...(shapes.get(shape) ?? []), p]);
    }
    let part = 0;
    for (const group of shapes.values()) {
      const head = group[0]!;
      let name = shapes.size > 1 ? `${base}#${++part}` : base;
      if (names.has(name)) name = `${name}(${head.owner?.kind ?? 'Pod'})`;
      names.add(name);
      const notes: string[] = [];
      notes.push(
        head.owner
          ? `${group.length} pod(s) of ${head.owner.kind} ${head.namespace}/${head.owner.name}${shapes.size > 1 ? ` (pods of one shape; the owner has ${shapes.size} shapes)` : ''}`
          : `standalone pod ${head.name}`,
      );
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
      const over = group.find((p) => (used.get(p.node) ?? 0) + group.filter((q) => q.node === p.node).length * p.gpu > nodes.get(p.node)!.gpus);
      if (over) {
        for (const p of group) out.skipped.push({ kind: 'Pod', name: p.name, where: where(p.sd, p.path), reason: `node "${over.node}" would hold more GPUs than it has with job ${name}` });
        continue;
      }
      for (const p of group) used.set(p.node, (used.get(p.node) ?? 0) + p.gpu);
      notes.push(`GPUs per pod from limits["${opts.gpuResource}"] = ${head.gpu}; priority ${head.priority} from spec.priority ${head.kubePriority}; quota "${head.quota}" from ${head.quotaFrom}`);
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
