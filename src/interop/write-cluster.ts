/**
 * An imported snapshot as a Cluster document: YAML a person reads and edits, with a
 * comment on every node and job saying where its values came from.
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import { formatCpu, formatMemory } from '../model/resources.js';
import { API_VERSION } from '../policy/schema.js';
import type { ImportedJob, ImportedNode } from './import-kubectl.js';

/**
 * The jobs whose pods started after the snapshot's time: a Cluster's `startedAt` may not
 * be later than its `at`, so theirs is left out of the document, and both the job's
 * comment and the import's summary say so (nothing the input gave is dropped unsaid).
 */
export function startedAfter(jobs: ImportedJob[], at: number): ImportedJob[] {
  return jobs.filter((j) => j.startedAt !== undefined && j.startedAt > at);
}

/** The Cluster document's text. */
export function clusterYaml(name: string, at: number, source: string, nodes: ImportedNode[], jobs: ImportedJob[]): string {
  const nodeDocs = nodes.map((n) => ({
    name: n.name,
    gpus: n.gpus,
    ...(n.cpu !== undefined ? { cpu: formatCpu(n.cpu) } : {}),
    ...(n.memory !== undefined ? { memory: formatMemory(n.memory) } : {}),
    pool: n.pool,
    ...(n.gpuModel ? { gpuModel: n.gpuModel } : {}),
    ...(n.unschedulable ? { unschedulable: true } : {}),
  }));
  const jobDocs = jobs.map((j) => ({
    name: j.name,
    workspace: j.workspace,
    quota: j.quota,
    module: j.module,
    priority: j.priority,
    pods: j.pods,
    resources: {
      gpu: j.resources.gpu,
      ...(j.resources.cpu !== undefined ? { cpu: formatCpu(j.resources.cpu) } : {}),
      ...(j.resources.memory !== undefined ? { memory: formatMemory(j.resources.memory) } : {}),
    },
    ...(j.startedAt !== undefined && j.startedAt <= at ? { startedAt: new Date(j.startedAt).toISOString() } : {}),
    placement: j.placement,
  }));
  const doc = new Document({ apiVersion: API_VERSION, kind: 'Cluster', metadata: { name }, spec: { at: new Date(at).toISOString(), standings: 'derive', nodes: nodeDocs, jobs: jobDocs } });
  doc.commentBefore = ` Imported by \`quotient import kubectl\` from ${source}.\n Kubernetes does not say which jobs run within their quota's guarantee: with standings: derive,\n the policy's quota tree decides when the snapshot is loaded (docs/interop.md), and says which\n jobs it takes as borrowing or idle. Write standing: on a job to state it yourself.`;
  const spec = doc.get('spec') as YAMLMap;
  const comment = (list: unknown, lines: (i: number) => string[]): void => {
    if (!isSeq(list)) return;
    list.items.forEach((item, i) => {
      if (isMap(item))
        item.commentBefore = lines(i)
          .map((l) => ` ${l}`)
          .join('\n');
    });
  };
  comment(spec.get('nodes'), (i) => [`Node ${nodes[i]!.name} at ${nodes[i]!.origin}: ${nodes[i]!.notes.join('; ')}`]);
  const late = new Set(startedAfter(jobs, at));
  comment(spec.get('jobs'), (i) => {
    const j = jobs[i]!;
    const lateNote = late.has(j) ? [`started ${new Date(j.startedAt!).toISOString()}, after the snapshot's time (at): startedAt is left out`] : [];
    return [`${j.notes[0]} (first at ${j.origin})`, ...j.notes.slice(1), ...lateNote];
  });
  // Placements and resources read best on one line each.
  for (const list of [spec.get('nodes'), spec.get('jobs')]) {
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (!isMap(item)) continue;
      const res = item.get('resources');
      if (isMap(res)) res.flow = true;
      const pl = item.get('placement');
      if (isSeq(pl)) for (const p of pl.items) if (isMap(p)) p.flow = true;
    }
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
