/**
 * The model back to YAML documents: a snapshot and a submission as the user would write
 * them, so that generated states (counterexamples of `quotient test`) can be saved and
 * replayed with `quotient whatif`. Round-trips through load-policy to the same model.
 */
import { Document, isScalar, isSeq, parseAllDocuments, visit } from 'yaml';
import type { Cluster, JobSpec } from '../../model/policy.js';
import { formatDuration } from '../../model/quantity.js';
import { formatCpu, formatMemory, type Resources } from '../../model/resources.js';
import { API_VERSION } from '../validate/schema.js';
import type { InputFile } from '../parse/source-doc.js';

type Doc = Record<string, unknown>;

function resourcesDoc(r: Resources): Doc {
  const d: Doc = { gpu: r.gpu };
  if (r.cpu) d.cpu = formatCpu(r.cpu);
  if (r.memory) d.memory = formatMemory(r.memory);
  return d;
}

/** The fields a JobSpec writes, defaults left out. */
export function jobSpecDoc(job: JobSpec): Doc {
  const d: Doc = { name: job.name, workspace: job.workspace, quota: job.quota, module: job.module, priority: job.priority, pods: job.pods, resources: resourcesDoc(job.resources) };
  if (job.idleResources !== 'none') d.idleResources = job.idleResources;
  if (job.checkpoint)
    d.checkpoint =
      job.checkpoint.last === undefined ? { every: formatDuration(job.checkpoint.every) } : { every: formatDuration(job.checkpoint.every), last: new Date(job.checkpoint.last).toISOString() };
  if (job.faultTolerance) d.faultTolerance = { ...job.faultTolerance };
  if (job.gpuModels) d.gpuModels = [...job.gpuModels];
  if (job.submittedBy !== undefined) d.submittedBy = job.submittedBy;
  if (job.maxRuntime !== undefined) d.maxRuntime = formatDuration(job.maxRuntime);
  return d;
}

/** A Cluster document holding every node and running job (placements explicit). */
export function clusterDoc(cluster: Cluster): Doc {
  return {
    apiVersion: API_VERSION,
    kind: 'Cluster',
    metadata: { name: cluster.name },
    spec: {
      at: new Date(cluster.at).toISOString(),
      nodes: cluster.nodes.map((n) => {
        const d: Doc = { name: n.name, gpus: n.gpus, pool: n.pool };
        if (n.cpu !== undefined) d.cpu = formatCpu(n.cpu);
        if (n.memory !== undefined) d.memory = formatMemory(n.memory);
        if (n.instanceType) d.instanceType = n.instanceType;
        if (n.gpuModel) d.gpuModel = n.gpuModel;
        if (n.unschedulable) d.unschedulable = true;
        return d;
      }),
      jobs: cluster.jobs.map((j) => {
        const d = jobSpecDoc(j);
        const implied = j.idleResources === 'only' ? 'idle' : 'in-quota';
        if (j.standing !== implied) d.standing = j.standing;
        d.startedAt = new Date(j.startedAt).toISOString();
        if (j.expectedEnd !== undefined) d.expectedEnd = new Date(j.expectedEnd).toISOString();
        // Indices Quotient assigned are written as the count the snapshot gave, so a replay assigns them the same way.
        d.placement = j.placement.map((p) => (p.indicesAssigned ? { node: p.node, gpuCount: j.resources.gpu } : { node: p.node, gpus: p.gpus }));
        return d;
      }),
    },
  };
}

/** A WhatIf document submitting `job`. */
export function whatIfDoc(name: string, job: JobSpec): Doc {
  return { apiVersion: API_VERSION, kind: 'WhatIf', metadata: { name }, spec: { submit: jobSpecDoc(job) } };
}

/** The documents of `files` whose kind is in `kinds`, as YAML text with their comments. */
export function documentsOfKinds(files: InputFile[], kinds: string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const docs = parseAllDocuments(f.text);
    if (!Array.isArray(docs)) continue;
    for (const d of docs) {
      const kind = (d.toJS() as { kind?: string } | null)?.kind;
      if (kind && kinds.includes(kind)) out.push(d.toString().replace(/^---\n/, ''));
    }
  }
  return out;
}

/**
 * A document as YAML the way people write these files: short lists of scalars and
 * small mappings of scalars in flow style (`gpus: [0, 1, 2, 3]`), the rest in block style.
 */
export function toYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Seq(_, node) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
    Map(_, node) {
      if (node.items.length <= 6 && node.items.every((p) => isScalar(p.value) || (isSeq(p.value) && p.value.items.every((i) => isScalar(i))))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
