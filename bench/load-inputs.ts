/**
 * Inputs of a chosen size for bench/load.ts, seeded so every run reads the same bytes:
 *
 * - a policy: `quotas.yaml` (a QuotaTree of 10 teams and their Workspaces) and a Cluster
 *   of 8-GPU nodes, each running one in-quota job, written in one of four styles:
 *   scalars `quoted` ("…", the style that made `check` quadratic) or `plain`, collections
 *   `block` (a line per field, every list item on its own line) or `flow` (each node and
 *   job one `{ … }` line, as the shipped policies write clusters);
 * - a jobs trace (CSV, every cell quoted or none) and an openb pod list (CSV, likewise)
 *   for the simulator's readers.
 *
 * Sizes are in bytes (1 MB = 1,000,000): the generator writes entries until the text
 * reaches the size, so every style of one size holds about the same bytes (not the same
 * entries: quotes and line breaks cost bytes).
 */

/** How the policy's Cluster is written. */
export type PolicyStyle = 'plain-block' | 'quoted-block' | 'plain-flow' | 'quoted-flow';
export const POLICY_STYLES: readonly PolicyStyle[] = ['plain-block', 'quoted-block', 'plain-flow', 'quoted-flow'];

/**
 * Two shapes that are not how policies are written but must still read in linear time:
 * one mapping of as many keys as the size holds (`wide-map`: the yaml composer compared
 * each key with every earlier one), and the same with a tab in every value
 * (`wide-findings`: a finding per key, each located in that mapping).
 */
export type WideStyle = 'wide-map' | 'wide-findings';

/** One document holding one mapping of many keys (see WideStyle), about `bytes` long. */
export function wideInput(bytes: number, style: WideStyle): { text: string; entries: number } {
  const head = 'apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata:\n  name: wide\n  notes:\n';
  const lines = [head];
  let size = head.length;
  let n = 0;
  while (size < bytes || n === 0) {
    const line = style === 'wide-map' ? `    key-${n}: 'value of key ${n}'\n` : `    key-${n}: "value\\tof key ${n}"\n`;
    lines.push(line);
    size += line.length;
    n++;
  }
  return { text: lines.join(''), entries: n };
}

/** How a CSV's cells are written. */
export type CsvStyle = 'plain' | 'quoted';
export const CSV_STYLES: readonly CsvStyle[] = ['plain', 'quoted'];

const TEAMS = 10;
const AT = '2026-11-20T12:00:00Z';

/** The policy's two files: the tree (small) and the Cluster (the size asked). */
export function policyInput(bytes: number, style: PolicyStyle): { files: Array<{ path: string; text: string }>; entries: number } {
  const quoted = style.startsWith('quoted');
  const flow = style.endsWith('flow');
  const s = (v: string): string => (quoted ? `"${v}"` : v);
  const parts: string[] = [`apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata:\n  name: ${s('load')}\nspec:\n  at: ${s(AT)}\n  nodes:\n`];
  let size = parts[0]!.length;
  // Nodes and jobs in pairs: node i runs job i, so every count is consistent at any size.
  const nodes: string[] = [];
  const jobs: string[] = [];
  let n = 0;
  while (size < bytes || n === 0) {
    const node = `node-${String(n).padStart(6, '0')}`;
    const team = `team-${n % TEAMS}`;
    const nodeText = flow
      ? `    - { name: ${s(node)}, gpus: 8, cpu: ${s('96')}, memory: ${s('768Gi')}, pool: ${s('gpu-pool')}, gpuModel: ${s('A100')} }\n`
      : `    - name: ${s(node)}\n      gpus: 8\n      cpu: ${s('96')}\n      memory: ${s('768Gi')}\n      pool: ${s('gpu-pool')}\n      gpuModel: ${s('A100')}\n`;
    const gpus = [0, 1, 2, 3, 4, 5, 6, 7];
    const jobText = flow
      ? `    - { name: ${s(`job-${n}`)}, workspace: ${s(`ws-${n % TEAMS}`)}, quota: ${s(team)}, module: ${s('DLC')}, priority: ${1 + (n % 8)}, pods: 1, resources: { gpu: 8, cpu: ${s('16')}, memory: ${s('64Gi')} }, startedAt: ${s('2026-11-20T06:00:00Z')}, placement: [{ node: ${s(node)}, gpus: [${gpus.join(', ')}] }] }\n`
      : `    - name: ${s(`job-${n}`)}\n      workspace: ${s(`ws-${n % TEAMS}`)}\n      quota: ${s(team)}\n      module: ${s('DLC')}\n      priority: ${1 + (n % 8)}\n      pods: 1\n      resources:\n        gpu: 8\n        cpu: ${s('16')}\n        memory: ${s('64Gi')}\n      startedAt: ${s('2026-11-20T06:00:00Z')}\n      placement:\n        - node: ${s(node)}\n          gpus:\n${gpus.map((g) => `            - ${g}\n`).join('')}`;
    nodes.push(nodeText);
    jobs.push(jobText);
    size += nodeText.length + jobText.length;
    n++;
  }
  const cluster = `${parts[0]}${nodes.join('')}  jobs:\n${jobs.join('')}`;
  // Each team's guarantee is what its jobs run (every job is in quota); the root holds them all.
  const perTeam = Array.from({ length: TEAMS }, (_, t) => Math.ceil((n - t) / TEAMS) * 8);
  const total = perTeam.reduce((a, b) => a + b, 0);
  const tree = [
    'apiVersion: quotient.dev/v1',
    'kind: QuotaTree',
    'metadata:',
    '  name: load',
    'spec:',
    '  pool: { name: gpu-pool, type: general }',
    '  quotas:',
    `    - name: root`,
    `      min: { gpu: ${total} }`,
    '      children:',
    ...perTeam.map((min, t) => `        - { name: team-${t}, min: { gpu: ${min} } }`),
    ...Array.from({ length: TEAMS }, (_, t) => `---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata:\n  name: ws-${t}\nspec:\n  quotas: [team-${t}]\n  modules: [DLC, DSW, EAS]`),
  ].join('\n');
  return {
    files: [
      { path: 'quotas.yaml', text: `${tree}\n` },
      { path: 'cluster.yaml', text: cluster },
    ],
    entries: n,
  };
}

/** A jobs trace of about `bytes` (CSV, the columns bench B6's traces use). */
export function jobsCsv(bytes: number, style: CsvStyle): { text: string; rows: number } {
  const q = (v: string | number): string => (style === 'quoted' ? `"${v}"` : String(v));
  const header = ['name', 'submit', 'duration', 'workspace', 'quota', 'module', 'priority', 'pods', 'gpu'].map(q).join(',');
  const lines = [header];
  let size = header.length + 1;
  let n = 0;
  while (size < bytes) {
    const line = [`job-${n}`, n * 30, `${1 + (n % 12)}h`, `ws-${n % TEAMS}`, `team-${n % TEAMS}`, 'DLC', 1 + (n % 9), 1 + (n % 4), [1, 2, 4, 8][n % 4]!].map(q).join(',');
    lines.push(line);
    size += line.length + 1;
    n++;
  }
  return { text: `${lines.join('\n')}\n`, rows: n };
}

/** An openb pod list of about `bytes` (the trace's own columns). */
export function openbCsv(bytes: number, style: CsvStyle): { text: string; rows: number } {
  const q = (v: string | number): string => (style === 'quoted' ? `"${v}"` : String(v));
  const header = ['name', 'cpu_milli', 'memory_mib', 'num_gpu', 'gpu_milli', 'gpu_spec', 'qos', 'pod_phase', 'creation_time', 'deletion_time', 'scheduled_time'].map(q).join(',');
  const lines = [header];
  const qos = ['LS', 'BE', 'Burstable', 'Guaranteed'];
  let size = header.length + 1;
  let n = 0;
  while (size < bytes) {
    const created = n * 17;
    const line = [
      `openb-pod-${String(n).padStart(6, '0')}`,
      6000 + (n % 4) * 2000,
      12288,
      1 + (n % 2),
      n % 6 === 0 ? 460 : 1000, // a share only on a one-GPU pod (n even), as the trace has them
      '',
      qos[n % 4]!,
      'Running',
      created,
      created + 3600 + (n % 7) * 600,
      created,
    ]
      .map(q)
      .join(',');
    lines.push(line);
    size += line.length + 1;
    n++;
  }
  return { text: `${lines.join('\n')}\n`, rows: n };
}

/** The quota tree a trace is read against (the policy of `policyInput` at its smallest). */
export function treeOnly(): Array<{ path: string; text: string }> {
  return policyInput(1, 'plain-flow').files;
}
