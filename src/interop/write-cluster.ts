/**
 * An imported snapshot as a Cluster document: YAML a person reads and edits, with a
 * comment on every node and job saying where its values came from. Written line by line
 * (the yaml library's Document took 1.3 s for a 20,000-pod cluster; this takes a few
 * tens of ms), every string through `scalar` and every comment through `comment`.
 */
import { writableText } from './imported-name.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import { API_VERSION } from '../policy/validate/schema.js';
import type { ImportedGang, ImportedJob, ImportedNode, ImportedQueuedJob } from './kubectl-types.js';

/**
 * The jobs whose pods started after the snapshot's time: a Cluster's `startedAt` may not
 * be later than its `at`, so theirs is left out of the document, and both the job's
 * comment and the import's summary say so (nothing the input gave is dropped unsaid).
 */
export function startedAfter(jobs: ImportedJob[], at: number): ImportedJob[] {
  return jobs.filter((j) => j.startedAt !== undefined && j.startedAt > at);
}

/**
 * The waiting jobs submitted after the snapshot's time: a queued job's `submittedAt` may
 * not be later than `at`, and such a job was not waiting then, so it is left out of the
 * queue; the Cluster's comment and the import's summary say so.
 */
export function submittedAfter(queue: ImportedQueuedJob[], at: number): ImportedQueuedJob[] {
  return queue.filter((j) => j.submittedAt > at);
}

/** The Cluster document's text. */
export function clusterYaml(name: string, at: number, source: string, nodes: ImportedNode[], jobs: ImportedJob[], queue: ImportedQueuedJob[] = []): string {
  const out: string[] = [
    comment('', [
      `Imported by \`quotient import kubectl\` from ${source}.`,
      "Kubernetes does not say which jobs run within their quota's guarantee: with standings: derive,",
      "the policy's quota tree decides when the snapshot is loaded (docs/interop.md), and says which",
      'jobs it takes as borrowing or idle. Write standing: on a job to state it yourself.',
    ]),
    '',
    `apiVersion: ${scalar(API_VERSION)}`,
    'kind: Cluster',
    'metadata:',
    `  name: ${scalar(name)}`,
    'spec:',
    `  at: ${scalar(new Date(at).toISOString())}`,
    '  standings: derive',
    nodes.length === 0 ? '  nodes: []' : '  nodes:',
  ];
  for (const n of nodes) {
    out.push(comment('    ', [`Node ${n.name} at ${n.origin}: ${n.notes.join('; ')}`]));
    out.push(`    - name: ${scalar(n.name)}`, `      gpus: ${n.gpus}`);
    if (n.cpu !== undefined) out.push(`      cpu: ${scalar(formatCpu(n.cpu))}`);
    if (n.memory !== undefined) out.push(`      memory: ${scalar(formatMemory(n.memory))}`);
    out.push(`      pool: ${scalar(n.pool)}`);
    if (n.gpuModel) out.push(`      gpuModel: ${scalar(n.gpuModel)}`);
    // A JSON map is YAML, read back exactly whatever a label's key or value holds.
    if (n.labels) out.push(`      labels: ${JSON.stringify(n.labels)}`);
    if (n.unschedulable) out.push('      unschedulable: true');
  }
  out.push(jobs.length === 0 ? '  jobs: []' : '  jobs:');
  for (const j of jobs) {
    const late = j.startedAt !== undefined && j.startedAt > at;
    const lateNote = late ? [`started ${new Date(j.startedAt!).toISOString()}, after the snapshot's time (at): startedAt is left out`] : [];
    // Placements and resources read best on one line each.
    out.push(...gangLines(j, lateNote));
    if (j.startedAt !== undefined && !late) out.push(`      startedAt: ${scalar(new Date(j.startedAt).toISOString())}`);
    out.push(j.placement.length === 0 ? '      placement: []' : '      placement:');
    for (const p of j.placement) out.push(`        - {node: ${scalar(p.node)}, gpuCount: ${p.gpuCount}}`);
  }
  const late = submittedAfter(queue, at);
  const waiting = queue.filter((j) => j.submittedAt <= at);
  if (late.length) out.push(comment('  ', [`${late.length} waiting job(s) submitted after at are left out of the queue: ${late.map((j) => j.name).join(', ')}`]));
  if (waiting.length) out.push('  queue:');
  for (const j of waiting) {
    out.push(...gangLines(j, []), `      submittedAt: ${scalar(new Date(j.submittedAt).toISOString())}`);
  }
  return `${out.join('\n')}\n`;
}

/** A running or waiting job's comment and the fields both have, `resources:` on one line. */
function gangLines(j: ImportedGang, extraNotes: string[]): string[] {
  const res = [`gpu: ${j.resources.gpu}`];
  if (j.resources.cpu !== undefined) res.push(`cpu: ${scalar(formatCpu(j.resources.cpu))}`);
  if (j.resources.memory !== undefined) res.push(`memory: ${scalar(formatMemory(j.resources.memory))}`);
  return [
    comment('    ', [`${j.notes[0]} (first at ${j.origin})`, ...j.notes.slice(1), ...extraNotes]),
    `    - name: ${scalar(j.name)}`,
    `      workspace: ${scalar(j.workspace)}`,
    `      quota: ${scalar(j.quota)}`,
    `      module: ${scalar(j.module)}`,
    `      priority: ${j.priority}`,
    `      pods: ${j.pods}`,
    `      resources: {${res.join(', ')}}`,
  ];
}

/**
 * Comment lines at `indent`, one per line of text. Each is escaped as names are written
 * (imported-name.ts): a line break or a control character in a name or a path
 * can neither end the comment nor reach a terminal raw.
 */
function comment(indent: string, lines: string[]): string {
  return lines.map((l) => `${indent}# ${writableText(l)}`.trimEnd()).join('\n');
}

/**
 * A string as a YAML scalar: plain when every YAML reader (1.2 and 1.1: Kubernetes'
 * go-yaml, Python's safe_load) reads it as that string, else double-quoted with JSON's
 * escapes, which YAML reads the same. Plain is a name of letters, digits and `_ . / -`
 * starting with a letter, that no reader takes for a boolean or null, or a quantity
 * such as `127500m` or `128Gi`.
 */
function scalar(s: string): string {
  return (PLAIN_NAME.test(s) && !RESERVED.test(s)) || QUANTITY.test(s) ? s : JSON.stringify(s);
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const RESERVED = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N)$/;
const QUANTITY = /^[0-9]+(?:\.[0-9]+)?(?:m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E)$/;
