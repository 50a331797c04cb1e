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
import type { InputFile, PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { importedName, writableText } from './imported-name.js';
import { groupJobs } from './kubectl-jobs.js';
import { readNode } from './kubectl-node.js';
import { liftToDeployment, noteReplicaSet, type ReplicaSetOwners } from './kubectl-owner.js';
import { readPod } from './kubectl-pod.js';
import { bySubmission, groupQueued } from './kubectl-queue.js';
import { KUEUE_GROUP, readWorkloads } from './kubectl-workload.js';
import type { ImportedNode, ImportedQueuedJob, KubectlImport, KubectlOptions, PodFacts } from './kubectl-types.js';
import { asObject, readLocated, Report, where } from './located-json.js';

export { KOORDINATOR_QUOTA_LABEL, KUEUE_QUEUE_LABEL } from './kubectl-types.js';
export type { WorkloadCounts } from './kubectl-types.js';
export type { ImportedJob, ImportedNode, ImportedQueuedJob, KubectlImport, KubectlOptions, NameSource, Skipped } from './kubectl-types.js';

/** Reads a kubectl List; a document that is not one is a located error. */
export function importKubectl(file: InputFile, opts: KubectlOptions): KubectlImport {
  const { docs, findings } = readLocated(file, { json: true, what: 'the kubectl List' });
  const report = new Report();
  for (const f of findings) report.findings.push(f);
  const out: KubectlImport = { nodes: [], jobs: [], queue: [], skipped: [], read: {}, mapped: [], report };
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
    if (!top || (typeof top.kind === 'string' && top.kind !== 'List' && !top.kind.endsWith('List') && top.kind !== 'Node' && top.kind !== 'Pod' && top.kind !== 'Workload')) {
      report.error(
        sd,
        top ? ['kind'] : [],
        'interop/not-a-list',
        `expected a Kubernetes List (kind: List with items), got ${top ? `kind ${JSON.stringify(top.kind)}` : 'a non-object'}`,
        'give the output of `kubectl get nodes,pods -A -o json`',
      );
      continue;
    }
    if (top.kind === 'Node' || top.kind === 'Pod' || top.kind === 'Workload') {
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
  const workloads: Array<(typeof items)[number]> = [];
  // Nodes by their name in the input (pods name them so), and every Node read by the name it is written as.
  const nodes = new Map<string, ImportedNode>();
  const nodeNames = new Map<string, string>();
  const counts = { poolLabel: 0, poolDefault: 0, model: 0, unschedulable: 0 };
  // ReplicaSets are read only for their owner: a Deployment's pods are its job (kubectl-owner.ts).
  const replicaSets: ReplicaSetOwners = new Map();
  for (const it of items) {
    const kind = typeof it.obj.kind === 'string' ? it.obj.kind : '(no kind)';
    out.read[writableText(kind)] = (out.read[writableText(kind)] ?? 0) + 1;
    const meta = asObject(it.obj.metadata) ?? {};
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (kind === 'Pod') pods.push(it);
    else if (kind === 'Workload' && typeof it.obj.apiVersion === 'string' && it.obj.apiVersion.startsWith(`${KUEUE_GROUP}/`)) workloads.push(it);
    else if (kind === 'ReplicaSet') noteReplicaSet(it.obj, replicaSets);
    else if (kind !== 'Node')
      skip(
        it.sd,
        it.path,
        kind,
        name,
        `kind ${kind}${kind === 'Workload' ? ` of apiVersion ${String(it.obj.apiVersion)}` : ''} is not read (only Node, Pod, Kueue's Workload, and a ReplicaSet's owner)`,
      );
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
    if (f) {
      liftToDeployment(f, it.obj, replicaSets, opts);
      facts.push(f);
    }
  }
  if (report.failed) return out;
  // Pods name their node as the input does; jobs are placed by the name the node is written as.
  out.jobs = groupJobs(
    facts.filter((f) => !f.pending),
    new Map(out.nodes.map((n) => [n.name, n])),
    out,
    opts,
  );
  const taken = new Set(out.jobs.map((j) => j.name));
  let pending = facts.filter((f) => f.pending);
  let fromWorkloads: ImportedQueuedJob[] = [];
  if (workloads.length) {
    const read = readWorkloads(workloads, pending, taken, opts, report, (it, kind, name, reason) => skip(it.sd, it.path, kind, name, reason));
    fromWorkloads = read.queue;
    pending = read.pending;
    out.workloads = read.counts;
    if (report.failed) return out;
    const c = read.counts;
    out.mapped.push(
      `workloads: ${c.read} Kueue Workload(s) read, ${c.queued} queued (not admitted, not finished; submitted at metadata.creationTimestamp, pods and resources from spec.podSets, quota from spec.queueName), ${c.admitted} admitted or holding quota (their running pods are the running jobs), ${c.finished} finished, ${c.inactive} inactive (spec.active false), ${c.skipped} skipped (listed below); ${c.podsOfWorkloads} pending pod(s) of a Workload's job left to the Workload`,
    );
  }
  out.queue = [...groupQueued(pending, taken, out), ...fromWorkloads].sort(bySubmission);
  return out;
}
