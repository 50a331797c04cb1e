/**
 * Builders of policy YAML for tests, instead of walls of inline YAML repeated from file
 * to file. Each returns one document's text (ending in a newline) laid out the way the
 * tests wrote it by hand, so line and column positions in findings stay put; `policy`
 * joins documents with `---`. The parts a test is about (quota entries, nodes, jobs) are
 * given as YAML lines, so a test still shows them and can mark or replace them.
 *
 *   policyText(quotaTreeDoc(rootQuotaEntry(16, quotaEntry('A', 8) + quotaEntry('B', 8))), workspaceDoc(['A', 'B']), clusterDoc(nodeGroupLine(2)))
 */

const API = 'apiVersion: quotient.dev/v1';

/** The time every test snapshot is taken at (helpers/session.ts answers at the same instant). */
export const SNAPSHOT_AT = '2026-11-20T12:00:00Z';

/** Documents as one multi-document YAML text. */
export function policyText(...docs: string[]): string {
  return docs.join('---\n');
}

/** A document's head: apiVersion, kind and metadata name. */
function head(kind: string, name: string): string {
  return `${API}\nkind: ${kind}\nmetadata: { name: ${name} }\n`;
}

/** A document of `kind` whose spec is the block `specLines` (each line indented by two). */
export function policyDoc(kind: string, name: string, specLines: string): string {
  return `${head(kind, name)}spec:\n${specLines}`;
}

/** A QuotaTree on pool `p` (by default) whose `quotas:` list holds `quotas` (entries indented by four). */
export function quotaTreeDoc(quotas: string, o: { name?: string; pool?: string } = {}): string {
  return policyDoc('QuotaTree', o.name ?? 't', `  pool: { name: ${o.pool ?? 'p'} }\n  quotas:\n${quotas}`);
}

/** A root quota entry (`- name: Root`, `min: { gpu }`), with child entries (indented by eight) when given. */
export function rootQuotaEntry(gpu: number, children?: string, name = 'Root'): string {
  return `    - name: ${name}\n      min: { gpu: ${gpu} }\n${children === undefined ? '' : `      children:\n${children}`}`;
}

/** A one-line quota entry `{ name, min: { gpu }, ...more }` at the indentation of a child (8) or a root (4). */
export function quotaEntry(name: string, gpu: number, o: { more?: string; root?: boolean } = {}): string {
  return `${o.root ? '    ' : '        '}- { name: ${name}, min: { gpu: ${gpu} }${o.more ? `, ${o.more}` : ''} }\n`;
}

/**
 * A Workspace holding `quotas`: on one line (`spec: { quotas: [A, B] }`), or, with `more`
 * (spec lines indented by two: modules, members, admission ...), as a block after `quotas:`.
 */
export function workspaceDoc(quotas: string[], o: { name?: string; more?: string } = {}): string {
  const name = o.name ?? 'ws';
  if (o.more === undefined) return `${head('Workspace', name)}spec: { quotas: [${quotas.join(', ')}] }\n`;
  return policyDoc('Workspace', name, `  quotas: [${quotas.join(', ')}]\n${o.more}`);
}

/** A Cluster snapshot at SNAPSHOT_AT whose spec continues with `body` (nodes, jobs: lines indented by two). */
export function clusterDoc(body = '', o: { name?: string; at?: string } = {}): string {
  return policyDoc('Cluster', o.name ?? 'c', `  at: ${o.at ?? SNAPSHOT_AT}\n${body}`);
}

/** A `nodeGroups:` line of `count` nodes `n-0`, `n-1`, ... of `gpus` GPUs in pool `p`. */
export function nodeGroupLine(count: number, gpus = 8, pool = 'p'): string {
  return `  nodeGroups: [ { prefix: n-, count: ${count}, gpus: ${gpus}, pool: ${pool} } ]\n`;
}

/** A `jobs:` list of the given one-line job entries (each without its `- `). */
export function jobsBlock(...entries: string[]): string {
  return `  jobs:\n${entries.map((e) => `    - ${e}\n`).join('')}`;
}

/** A one-line running job `{ name, workspace: ws, quota, module: DLC, priority, pods: 1, resources: { gpu }, ...more }`. */
export function jobEntry(name: string, quota: string, priority: number, gpu: number, more?: string): string {
  return `{ name: ${name}, workspace: ws, quota: ${quota}, module: DLC, priority: ${priority}, pods: 1, resources: { gpu: ${gpu} }${more ? `, ${more}` : ''} }`;
}

/** A WhatIf named `name` submitting the job given as YAML lines under `submit:` (indented by four). */
export function whatIfDoc(name: string, submit: string): string {
  return policyDoc('WhatIf', name, `  submit:\n${submit}`);
}
