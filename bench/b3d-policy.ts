/**
 * B3d's inputs (BENCHMARKS.md "B3d distinct what-ifs"): a second generated snapshot shape
 * beside B3's, and the distinct WhatIfs asked of either.
 *
 * The flat shape (`flatPolicy`): one pool of N nodes × 8 GPUs, 98 % of the GPUs allocated, a
 * wide and shallow tree of many small quotas — root → 10 groups → 99 quotas each (1,001
 * quotas; a quota's min is ~72 GPUs at 10,000 nodes) — and ~4 one-pod jobs per node, one
 * flow-mapping line each, most of 1-2 GPUs: in quota on every leaf (70-100 % of its min),
 * borrowing on leaves whose selfPreemption lets priorities 7-8 borrow, idle jobs on all
 * but 2 % of the GPUs, which stay free as single-GPU holes spread over many nodes (so small
 * questions are admitted, larger ones preempt or wait).
 * A third of the leaves have selfPreemption, a quarter of the groups childPreemption.
 *
 * The WhatIfs (`distinctWhatIfs`): `count` submissions, no two alike, each drawn at random
 * (seeded) — a quota other than the root, priority 1-9, module DLC / DSW / EAS, 1-4 pods
 * of 1-8 GPUs, idleResources none / acceptable / only — as WhatIf documents, so the same
 * questions reach the engine in process (Session.answerJob) and through the CLI.
 */
import { clusterDocument } from './b3-policy.js';
import { seededRandom } from './synthetic-cluster.js';

const GPUS = 8;
const API = 'apiVersion: quotient.dev/v1';
const AT = '2026-11-20T12:00:00Z';
const AT_MS = Date.parse(AT);
const MODULES = ['DLC', 'DSW', 'EAS'] as const;
const IDLE = ['none', 'acceptable', 'only'] as const;

/** A quota a WhatIf may name, with the workspace that holds it. */
export interface AskableQuota {
  quota: string;
  workspace: string;
}

/** One distinct WhatIf: its name and what it submits. */
export interface DistinctWhatIf {
  name: string;
  quota: string;
  workspace: string;
  priority: number;
  module: (typeof MODULES)[number];
  pods: number;
  gpu: number;
  idle: (typeof IDLE)[number];
}

/** `count` WhatIfs over `quotas`, pairwise distinct in (quota, priority, module, pods, gpu, idle). Deterministic per seed. */
export function distinctWhatIfs(quotas: readonly AskableQuota[], count: number, seed = 22): DistinctWhatIf[] {
  const random = seededRandom(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const seen = new Set<string>();
  const out: DistinctWhatIf[] = [];
  while (out.length < count) {
    const q = quotas[Math.floor(random() * quotas.length)]!; // callers pass a non-empty list
    const w: DistinctWhatIf = {
      name: `d-${out.length}`,
      quota: q.quota,
      workspace: q.workspace,
      priority: int(1, 9),
      module: MODULES[int(0, 2)]!,
      pods: int(1, 4),
      gpu: int(1, 8),
      idle: IDLE[int(0, 2)]!,
    };
    const key = `${w.quota}|${w.priority}|${w.module}|${w.pods}|${w.gpu}|${w.idle}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w);
  }
  return out;
}

/** The WhatIfs as one YAML file's text. */
export function whatIfText(whatIfs: readonly DistinctWhatIf[]): string {
  return (
    whatIfs
      .map((w) =>
        [
          API,
          'kind: WhatIf',
          `metadata: { name: ${w.name} }`,
          'spec:',
          `  submit: { name: ${w.name}-job, workspace: ${w.workspace}, quota: ${w.quota}, module: ${w.module}, priority: ${w.priority}, pods: ${w.pods}, resources: { gpu: ${w.gpu} }, idleResources: ${w.idle} }`,
        ].join('\n'),
      )
      .join('\n---\n') + '\n'
  );
}

/** The askable quotas of B3's tree (bench/b3-policy.ts): every quota but the root, in the workspace of its division. */
export function b3Askable(quotasYaml: string): AskableQuota[] {
  const out: AskableQuota[] = [];
  for (const m of quotasYaml.matchAll(/- name: (div(\d+)[\w-]*)/g)) out.push({ quota: m[1]!, workspace: `ws-div${m[2]!}` });
  return out;
}

export interface FlatOptions {
  /** 8-GPU nodes (default 10,000). */
  nodes?: number;
  /** Groups under the root and quotas per group (default 10 × 99: 1,001 quotas with the root). */
  groups?: number;
  perGroup?: number;
  seed?: number;
}

export interface FlatPolicy {
  files: Array<{ path: string; text: string }>;
  askable: AskableQuota[];
  stats: { nodes: number; gpus: number; quotas: number; jobs: number; bytes: number };
}

interface Leaf {
  name: string;
  group: number;
  min: number;
  self: boolean;
  reclaim: 'any' | 'lower-priority' | 'never';
}

interface Job {
  leaf: Leaf;
  gpu: number;
  priority: number;
  module: string;
  standing: 'in-quota' | 'borrowing' | 'idle';
  idle?: 'only' | 'acceptable';
  startedMinAgo: number;
  node?: number;
  offset?: number;
}

/** Splits `total` into `n` parts at random weights (each a whole number). */
function split(total: number, n: number, random: () => number): number[] {
  const weights = Array.from({ length: n }, () => 0.5 + random());
  const sum = weights.reduce((s, w) => s + w, 0);
  const parts = weights.map((w) => Math.floor((w / sum) * total));
  let left = total - parts.reduce((s, p) => s + p, 0);
  for (let i = 0; left > 0; i = (i + 1) % n, left--) parts[i]!++;
  return parts;
}

/** Generates the flat shape. Deterministic for a given seed and options. */
export function flatPolicy(opts: FlatOptions = {}): FlatPolicy {
  const nodes = opts.nodes ?? 10_000;
  const groups = opts.groups ?? 10;
  const perGroup = opts.perGroup ?? 99;
  const random = seededRandom(opts.seed ?? 7);
  const total = nodes * GPUS;
  const groupMins = split(total, groups, random);
  const leaves: Leaf[] = [];
  const groupChild: boolean[] = [];
  groupMins.forEach((gmin, g) => {
    groupChild.push(random() < 0.25);
    for (const [p, min] of split(Math.floor(gmin * 0.9), perGroup, random).entries()) {
      leaves.push({ name: `g${g}-q${p}`, group: g, min, self: random() < 1 / 3, reclaim: (['any', 'any', 'lower-priority', 'never'] as const)[Math.floor(random() * 4)]! });
    }
  });

  const size = (budget: number): number => {
    const r = random();
    const s = r < 0.55 ? 1 : r < 0.85 ? 2 : r < 0.95 ? 4 : 8;
    return s <= budget ? s : budget >= 4 ? 4 : budget >= 2 ? 2 : 1;
  };
  const jobs: Job[] = [];
  const add = (leaf: Leaf, budget: number, standing: Job['standing'], lo: number, hi: number): number => {
    let used = 0;
    while (used < budget) {
      const gpu = size(budget - used);
      jobs.push({ leaf, gpu, priority: lo + Math.floor(random() * (hi - lo + 1)), module: MODULES[Math.floor(random() * 3)]!, standing, startedMinAgo: 1 + Math.floor(random() * 72 * 60) });
      used += gpu;
    }
    return used;
  };
  let allocated = 0;
  for (let g = 0; g < groups; g++) {
    const mine = leaves.filter((l) => l.group === g);
    let used = 0;
    for (const leaf of mine) used += add(leaf, Math.floor(leaf.min * (0.7 + 0.3 * random())), 'in-quota', 1, 8);
    let headroom = groupMins[g]! - used;
    for (const leaf of mine.filter((l) => l.self)) {
      if (headroom <= 0) break;
      const b = Math.min(headroom, Math.floor(leaf.min * 0.3 * random()));
      if (b > 0) headroom -= add(leaf, b, 'borrowing', 7, 8);
    }
    allocated += groupMins[g]! - headroom;
  }
  // Idle jobs fill the GPUs left but 2 %, which stay free as single-GPU holes spread over the nodes of 1-GPU jobs.
  const holes = Math.floor(total * 0.02);
  while (allocated < total - holes) {
    const leaf = leaves[Math.floor(random() * leaves.length)]!;
    const gpu = size(total - holes - allocated);
    jobs.push({
      leaf,
      gpu,
      priority: 1 + Math.floor(random() * 4),
      module: MODULES[Math.floor(random() * 3)]!,
      standing: 'idle',
      idle: random() < 0.5 ? 'only' : 'acceptable',
      startedMinAgo: 1 + Math.floor(random() * 72 * 60),
    });
    allocated += gpu;
  }
  // Placement: largest first, packed node by node (powers of two, so offsets stay aligned), on
  // shuffled nodes; the 1-GPU jobs and the holes (undefined) shuffled together.
  const order = Array.from({ length: nodes }, (_, i) => i);
  for (let i = nodes - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const big = jobs.filter((j) => j.gpu > 1).sort((a, b) => b.gpu - a.gpu);
  const ones: Array<Job | undefined> = [...jobs.filter((j) => j.gpu === 1), ...Array.from({ length: holes }, () => undefined)];
  for (let i = ones.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ones[i], ones[j]] = [ones[j], ones[i]];
  }
  let node = 0;
  let offset = 0;
  for (const job of [...big, ...ones]) {
    const gpu = job?.gpu ?? 1;
    if (offset + gpu > GPUS) {
      node++;
      offset = 0;
    }
    if (job) {
      job.node = order[node]!;
      job.offset = offset;
    }
    offset += gpu;
  }

  const rangeSelf = (l: Leaf) =>
    l.name.length % 2 ? 'selfPreemption: { highPriority: "7-9", lowPriority: "1-4", modules: [DLC, DSW] }' : 'selfPreemption: { highPriority: "6-9", lowPriority: "1-3", modules: [DLC, DSW, EAS] }';
  const quotaLines = ['    - name: root', `      min: { gpu: ${total} }`, '      children:'];
  groupMins.forEach((gmin, g) => {
    quotaLines.push(`        - name: g${g}`, `          min: { gpu: ${gmin} }`);
    if (groupChild[g]) quotaLines.push('          childPreemption: { preemptiblePriority: "1-2", modules: [DLC, DSW] }');
    quotaLines.push('          children:');
    for (const l of leaves.filter((x) => x.group === g)) {
      quotaLines.push(`            - { name: ${l.name}, min: { gpu: ${l.min} }, reclaim: ${l.reclaim}${l.self ? `, ${rangeSelf(l)}` : ''} }`);
    }
  });
  const quotasText =
    [
      '# B3d flat shape: generated by bench/b3d-policy.ts',
      API,
      'kind: QuotaTree',
      'metadata: { name: flat }',
      'spec:',
      '  pool: { name: gpu-pool }',
      '  quotas:',
      ...quotaLines,
      ...groupMins.flatMap((_, g) => [
        '---',
        API,
        'kind: Workspace',
        `metadata: { name: ws-g${g} }`,
        'spec:',
        `  quotas: [g${g}, ${leaves
          .filter((l) => l.group === g)
          .map((l) => l.name)
          .join(', ')}]`,
      ]),
    ].join('\n') + '\n';
  const iso = (minAgo: number): string => new Date(AT_MS - minAgo * 60_000).toISOString().replace('.000Z', 'Z');
  const jobLines = jobs.map((j, i) => {
    const idle = j.idle ? `, idleResources: ${j.idle}` : '';
    const standing = j.standing === 'in-quota' ? '' : `, standing: ${j.standing}`;
    const gpus = Array.from({ length: j.gpu }, (_, k) => j.offset! + k).join(', ');
    return `    - { name: j${i}, workspace: ws-g${j.leaf.group}, quota: ${j.leaf.name}, module: ${j.module}, priority: ${j.priority}, resources: { gpu: ${j.gpu} }${idle}${standing}, startedAt: ${iso(j.startedMinAgo)}, placement: [{ node: n-${j.node!}, gpus: [${gpus}] }] }`;
  });
  const clusterText = clusterDocument('# B3d flat shape: generated by bench/b3d-policy.ts; 98 % of the GPUs allocated', 'flat-full', nodes, jobLines);
  const files = [
    { path: 'flat/quotas.yaml', text: quotasText },
    { path: 'flat/cluster.yaml', text: clusterText },
  ];
  const askable: AskableQuota[] = [...groupMins.map((_, g) => ({ quota: `g${g}`, workspace: `ws-g${g}` })), ...leaves.map((l) => ({ quota: l.name, workspace: `ws-g${l.group}` }))];
  return {
    files,
    askable,
    stats: { nodes, gpus: total, quotas: 1 + groups + leaves.length, jobs: jobs.length, bytes: files.reduce((s, f) => s + Buffer.byteLength(f.text), 0) },
  };
}
