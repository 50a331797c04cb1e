/**
 * The B3 policy, generated as YAML text (seeded: every run reads the same bytes), so the
 * benchmark measures the whole pipeline a user runs, from text to answer:
 *
 * - one pool of N nodes × 8 GPUs (default 10,000), every GPU allocated;
 * - a 3-level quota tree under one root: root (min = all GPUs) → 10 divisions (mins
 *   summing to the root's) → 10 teams each (summing to their division's) → 9 projects
 *   each (summing to 90% of their team's, leaving the team 10% to lend): 1,011 quotas;
 *   a third of the projects and teams have selfPreemption (7-9 over 1-4, or 6-9 over
 *   1-3), a quarter of divisions and teams childPreemption (priority 1-2 or 1-3);
 * - running jobs with explicit placements: in quota on every project (60-100% of its
 *   min), borrowing where valid (a project whose selfPreemption covers the job's
 *   priority, within its team's headroom), and idle jobs filling what is left. Shapes
 *   lean to 1-2 GPU pods with a tail of 8-GPU pods and 2x8 / 4x8 gangs; modules DLC,
 *   DSW, EAS; priorities 1-8;
 * - priority-9 WhatIf queries needing 1x8, 4x8 and 16x8 GPUs on projects, teams and
 *   divisions (16x8 = 128 GPUs is more than a project's min: those go to teams and
 *   divisions, and to projects whose selfPreemption lets priority 9 borrow).
 *
 * Workspaces: one per division, holding every quota of its subtree, all modules.
 */
import { seededRandom } from './synthetic-cluster.js';

/** Options of `b3Policy`. */
export interface B3Options {
  /** 8-GPU nodes (default 10,000). */
  nodes?: number;
  /** Divisions / teams per division / projects per team (default 10 / 10 / 9). */
  fanout?: [number, number, number];
  /** Queries per shape (default 20). */
  queriesPerShape?: number;
  /**
   * Running jobs to make, at least (issue 22 item 5: 100,000 nodes and 400,000 jobs): when
   * the budgets above make fewer, idle jobs of more than one GPU are split, in job order,
   * into 1-GPU jobs on the same GPUs until there are this many (every GPU stays
   * allocated; the rest of the policy, drawn first, is unchanged). Default: no split.
   */
  jobs?: number;
  seed?: number;
}

/** One generated query: the WhatIf's name and what it asks. */
export interface B3Query {
  name: string;
  quota: string;
  level: 'division' | 'team' | 'project';
  pods: number;
  gpu: number;
}

export interface B3Policy {
  files: Array<{ path: string; text: string }>;
  queries: B3Query[];
  stats: { nodes: number; gpus: number; quotas: number; jobs: number; pods: number; inQuotaGpus: number; borrowingGpus: number; idleGpus: number; bytes: number };
}

const GPUS = 8;
const API = 'apiVersion: quotient.dev/v1';
const AT = '2026-11-20T12:00:00Z';
const AT_MS = Date.parse(AT);
const MODULES = ['DLC', 'DLC', 'DLC', 'DSW', 'EAS'] as const;

interface QuotaGen {
  name: string;
  level: 0 | 1 | 2 | 3;
  min: number;
  children: QuotaGen[];
  self?: { high: [number, number]; low: [number, number]; modules: string[] };
  child?: { range: [number, number]; modules: string[] };
  reclaim?: 'any' | 'lower-priority' | 'never';
  division: number;
}

interface JobGen {
  name: string;
  quota: QuotaGen;
  priority: number;
  module: string;
  standing: 'in-quota' | 'borrowing' | 'idle';
  pods: number;
  gpu: number;
  startedMinAgo: number;
  checkpointMin: number;
  placement: Array<{ node: number; gpus: number[] }>;
}

/** Splits `total` (a multiple of `unit`) into `n` parts, each a multiple of `unit`, at random weights. */
function split(total: number, n: number, unit: number, random: () => number): number[] {
  const units = Math.floor(total / unit);
  const weights = Array.from({ length: n }, () => 0.5 + random());
  const sum = weights.reduce((s, w) => s + w, 0);
  const parts = weights.map((w) => Math.floor((w / sum) * units));
  let left = units - parts.reduce((s, p) => s + p, 0);
  for (let i = 0; left > 0; i = (i + 1) % n, left--) parts[i]!++;
  return parts.map((p) => p * unit);
}

/** A Cluster document at B3's instant: one node group of `nodes` × 8 GPUs in gpu-pool, and the given job lines. */
export function clusterDocument(comment: string, name: string, nodes: number, jobLines: string[]): string {
  return (
    [
      comment,
      API,
      'kind: Cluster',
      `metadata: { name: ${name} }`,
      'spec:',
      `  at: ${AT}`,
      '  nodeGroups:',
      `    - { prefix: n-, count: ${nodes}, gpus: ${GPUS}, pool: gpu-pool }`,
      '  jobs:',
      ...jobLines,
    ].join('\n') + '\n'
  );
}

/**
 * Splits idle multi-GPU jobs, in job order, into 1-GPU jobs on the same node and GPUs (the
 * last piece keeps what is left) until there are `target` jobs; draws no random numbers.
 */
function splitIdleJobs(jobs: JobGen[], target: number): void {
  const count = jobs.length;
  for (let i = 0; i < count && jobs.length < target; i++) {
    const job = jobs[i]!;
    if (job.standing !== 'idle' || job.gpu < 2) continue;
    const { node, gpus } = job.placement[0]!; // idle jobs are one placed pod
    const pieces = Math.min(job.gpu, 1 + target - jobs.length);
    for (let k = 1; k < pieces; k++) {
      jobs.push({ ...job, name: `j${jobs.length}`, gpu: 1, placement: [{ node, gpus: [gpus[gpus.length - k]!] }] });
    }
    job.gpu -= pieces - 1;
    job.placement = [{ node, gpus: gpus.slice(0, job.gpu) }];
  }
  if (jobs.length < target) throw new Error(`b3Policy: only ${jobs.length} jobs with every idle job split, fewer than the ${target} asked`);
}

/** Generates the B3 policy. Deterministic for a given seed and options. */
export function b3Policy(opts: B3Options = {}): B3Policy {
  const nodes = opts.nodes ?? 10_000;
  const [nDiv, nTeam, nProj] = opts.fanout ?? [10, 10, 9];
  const random = seededRandom(opts.seed ?? 3);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!; // callers pass non-empty lists
  const chance = (p: number): boolean => random() < p;
  const total = nodes * GPUS;

  // Quota tree.
  const root: QuotaGen = { name: 'root', level: 0, min: total, children: [], division: -1 };
  const all: QuotaGen[] = [root];
  const selfClause = (): QuotaGen['self'] => (chance(0.5) ? { high: [7, 9], low: [1, 4], modules: ['DLC', 'DSW'] } : { high: [6, 9], low: [1, 3], modules: ['DLC', 'DSW', 'EAS'] });
  const childClause = (): QuotaGen['child'] => (chance(0.5) ? { range: [1, 2], modules: ['DLC', 'DSW'] } : { range: [1, 3], modules: ['DLC'] });
  split(total, nDiv, GPUS, random).forEach((dmin, d) => {
    const div: QuotaGen = { name: `div${d}`, level: 1, min: dmin, children: [], division: d, child: chance(0.25) ? childClause() : undefined };
    root.children.push(div);
    all.push(div);
    split(dmin, nTeam, GPUS, random).forEach((tmin, t) => {
      const team: QuotaGen = {
        name: `div${d}-team${t}`,
        level: 2,
        min: tmin,
        children: [],
        division: d,
        self: chance(1 / 3) ? selfClause() : undefined,
        child: chance(0.25) ? childClause() : undefined,
        reclaim: pick(['any', 'any', 'lower-priority'] as const),
      };
      div.children.push(team);
      all.push(team);
      split(Math.floor((tmin * 0.9) / GPUS) * GPUS, nProj, GPUS, random).forEach((pmin, p) => {
        const proj: QuotaGen = {
          name: `div${d}-team${t}-proj${p}`,
          level: 3,
          min: pmin,
          children: [],
          division: d,
          self: chance(1 / 3) ? selfClause() : undefined,
          reclaim: pick(['any', 'any', 'lower-priority', 'never'] as const),
        };
        team.children.push(proj);
        all.push(proj);
      });
    });
  });

  // Jobs, by GPU budget: in quota per project, borrowing within each team's headroom, idle for the rest.
  const jobs: JobGen[] = [];
  const shape = (budget: number): [pods: number, gpu: number] => {
    const shapes: Array<[number, number, number]> = [
      [1, 1, 0.66],
      [1, 2, 0.22],
      [1, 4, 0.07],
      [1, 8, 0.035],
      [2, 8, 0.01],
      [4, 8, 0.005],
    ];
    for (let tries = 0; tries < 8; tries++) {
      let r = random();
      for (const [pods, gpu, w] of shapes) {
        if ((r -= w) <= 0) {
          if (pods * gpu <= budget) return [pods, gpu];
          break;
        }
      }
    }
    return [1, 1];
  };
  const addJobs = (quota: QuotaGen, budget: number, standing: JobGen['standing'], priorities: [number, number]): number => {
    let used = 0;
    while (used < budget) {
      const [pods, gpu] = shape(budget - used);
      jobs.push({
        name: `j${jobs.length}`,
        quota,
        priority: priorities[0] + Math.floor(random() * (priorities[1] - priorities[0] + 1)),
        module: pick(MODULES),
        standing,
        pods,
        gpu,
        startedMinAgo: 1 + Math.floor(random() * 72 * 60),
        checkpointMin: chance(0.3) ? pick([30, 60, 120]) : 0,
        placement: [],
      });
      used += pods * gpu;
    }
    return used;
  };
  let inQuotaGpus = 0;
  let borrowingGpus = 0;
  for (const div of root.children) {
    for (const team of div.children) {
      let teamUsed = 0;
      for (const proj of team.children) {
        const budget = Math.floor(proj.min * (0.8 + 0.2 * random()));
        teamUsed += addJobs(proj, budget, 'in-quota', [1, 8]);
      }
      // Borrowing: projects whose selfPreemption lets priorities 7-8 borrow, within the team's headroom.
      const lenders = team.children.filter((p) => p.self && p.self.high[0] <= 8);
      let headroom = team.min - teamUsed;
      for (const proj of lenders) {
        if (headroom <= 0) break;
        const budget = Math.min(headroom, Math.floor(proj.min * 0.3 * random()));
        if (budget <= 0) continue;
        const used = addJobs(proj, budget, 'borrowing', [Math.max(7, proj.self!.high[0]), 8]);
        headroom -= used;
        borrowingGpus += used;
      }
      inQuotaGpus += teamUsed;
    }
  }

  // Placement: whole-node pods first on shuffled nodes, then nodes filled with 4/2/1-GPU pods,
  // then idle 1-GPU jobs on every GPU left, so every GPU is allocated.
  const order = Array.from({ length: nodes }, (_, i) => i);
  for (let i = nodes - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let next = 0;
  const pods8: Array<{ job: JobGen }> = [];
  const small: Array<Array<{ job: JobGen }>> = [[], [], []]; // 1, 2, 4 GPUs
  for (const job of jobs) {
    for (let p = 0; p < job.pods; p++) {
      if (job.gpu === 8) pods8.push({ job });
      else small[Math.log2(job.gpu)]!.push({ job }); // gpu is 1, 2 or 4 here
    }
  }
  const full8 = Array.from({ length: GPUS }, (_, g) => g);
  for (const { job } of pods8) {
    if (next >= nodes) break;
    job.placement.push({ node: order[next++]!, gpus: full8 });
  }
  for (const list of small) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
  }
  const idleQuotas = all.filter((q) => q.level === 3);
  for (; next < nodes; next++) {
    const node = order[next]!;
    // Pick pods at random (weighted by GPUs left per size) until the node is full, then lay
    // them out largest first: offsets stay aligned to each pod's size.
    const chosen: Array<{ job: JobGen; size: number }> = [];
    for (let room = GPUS; room > 0; room -= chosen[chosen.length - 1]!.size) {
      const options = [0, 1, 2].filter((k) => small[k]!.length > 0 && 1 << k <= room);
      if (options.length === 0) break;
      const weights = options.map((k) => small[k]!.length * (1 << k));
      let r = random() * weights.reduce((s, w) => s + w, 0);
      let k = options[0]!;
      for (let i = 0; i < options.length; i++)
        if ((r -= weights[i]!) <= 0) {
          k = options[i]!;
          break;
        }
      chosen.push({ job: small[k]!.pop()!.job, size: 1 << k });
    }
    chosen.sort((a, b) => b.size - a.size);
    let offset = 0;
    for (const { job, size } of chosen) {
      job.placement.push({ node, gpus: Array.from({ length: size }, (_, g) => offset + g) });
      offset += size;
    }
    // Idle jobs on what is left, in aligned blocks as large as fit (8 - offset = 4 + 2 + ...).
    while (offset < GPUS) {
      let size = 1;
      while (offset % (size * 2) === 0 && offset + size * 2 <= GPUS) size *= 2;
      const quota = pick(idleQuotas);
      const job: JobGen = {
        name: `j${jobs.length}`,
        quota,
        priority: 1 + Math.floor(random() * 4),
        module: pick(MODULES),
        standing: 'idle',
        pods: 1,
        gpu: size,
        startedMinAgo: 1 + Math.floor(random() * 72 * 60),
        checkpointMin: 0,
        placement: [{ node, gpus: Array.from({ length: size }, (_, g) => offset + g) }],
      };
      jobs.push(job);
      offset += size;
    }
  }
  if (opts.jobs !== undefined) splitIdleJobs(jobs, opts.jobs);
  // Quota budgets stay below the cluster's GPUs, so every pod has found a place.
  const unplaced = jobs.filter((j) => j.placement.length !== j.pods);
  if (unplaced.length > 0) throw new Error(`b3Policy: ${unplaced.length} job(s) left unplaced; lower the quota budgets`);
  const kept = jobs;
  inQuotaGpus = kept.filter((j) => j.standing === 'in-quota').reduce((s, j) => s + j.pods * j.gpu, 0);
  borrowingGpus = kept.filter((j) => j.standing === 'borrowing').reduce((s, j) => s + j.pods * j.gpu, 0);

  // Queries: priority 9, DLC, on a spread of quotas.
  const perShape = opts.queriesPerShape ?? 20;
  const projects = all.filter((q) => q.level === 3);
  const teams = all.filter((q) => q.level === 2);
  const divisions = all.filter((q) => q.level === 1);
  const borrowers9 = projects.filter((p) => p.self);
  const queries: B3Query[] = [];
  const levelOf = (q: QuotaGen): B3Query['level'] => (q.level === 1 ? 'division' : q.level === 2 ? 'team' : 'project');
  for (const [pods, gpu] of [
    [1, 8],
    [4, 8],
    [16, 8],
  ] as const) {
    for (let i = 0; i < perShape; i++) {
      const r = random();
      const q = pods * gpu > 64 ? (r < 0.4 ? pick(borrowers9) : r < 0.8 ? pick(teams) : pick(divisions)) : r < 0.7 ? pick(projects) : r < 0.9 ? pick(teams) : pick(divisions);
      queries.push({ name: `q-${pods}x${gpu}-${i}`, quota: q.name, level: levelOf(q), pods, gpu });
    }
  }

  // YAML text.
  const range = (r: [number, number]): string => (r[0] === r[1] ? `${r[0]}` : `"${r[0]}-${r[1]}"`);
  const quotaYaml = (q: QuotaGen, indent: string): string[] => {
    const out = [`${indent}- name: ${q.name}`, `${indent}  min: { gpu: ${q.min} }`];
    if (q.reclaim) out.push(`${indent}  reclaim: ${q.reclaim}`);
    if (q.self) out.push(`${indent}  selfPreemption: { highPriority: ${range(q.self.high)}, lowPriority: ${range(q.self.low)}, modules: [${q.self.modules.join(', ')}] }`);
    if (q.child) out.push(`${indent}  childPreemption: { preemptiblePriority: ${range(q.child.range)}, modules: [${q.child.modules.join(', ')}] }`);
    if (q.children.length) {
      out.push(`${indent}  children:`);
      for (const ch of q.children) out.push(...quotaYaml(ch, `${indent}    `));
    }
    return out;
  };
  const quotasText =
    [
      '# B3: generated by bench/b3-policy.ts',
      API,
      'kind: QuotaTree',
      'metadata: { name: b3 }',
      'spec:',
      '  pool: { name: gpu-pool }',
      '  quotas:',
      ...quotaYaml(root, '    '),
      ...divisions.flatMap((d) => {
        const names = [d, ...d.children, ...d.children.flatMap((t) => t.children)].map((q) => q.name);
        return ['---', API, 'kind: Workspace', `metadata: { name: ws-${d.name} }`, 'spec:', `  quotas: [${names.join(', ')}]`];
      }),
    ].join('\n') + '\n';
  const wsOf = (q: QuotaGen): string => `ws-div${q.division < 0 ? 0 : q.division}`;
  const iso = (minAgo: number): string => new Date(AT_MS - minAgo * 60_000).toISOString().replace('.000Z', 'Z');
  const jobLines = kept.map((j) => {
    const idle = j.standing === 'idle' ? `, idleResources: ${j.priority % 2 ? 'only' : 'acceptable'}` : '';
    const standing = j.standing === 'in-quota' ? '' : `, standing: ${j.standing}`;
    const cp = j.checkpointMin ? `, checkpoint: { every: ${j.checkpointMin}m }` : '';
    const placement = j.placement.map((p) => `{ node: n-${p.node}, gpus: [${p.gpus.join(', ')}] }`).join(', ');
    return `    - { name: ${j.name}, workspace: ${wsOf(j.quota)}, quota: ${j.quota.name}, module: ${j.module}, priority: ${j.priority}, pods: ${j.pods}, resources: { gpu: ${j.gpu} }${idle}${standing}${cp}, startedAt: ${iso(j.startedMinAgo)}, placement: [${placement}] }`;
  });
  const clusterText = clusterDocument('# B3: generated by bench/b3-policy.ts; every GPU allocated', 'b3-full', nodes, jobLines);
  const byName = new Map(all.map((q) => [q.name, q]));
  const whatifText =
    queries
      .map((q) =>
        [
          API,
          'kind: WhatIf',
          `metadata: { name: ${q.name} }`,
          'spec:',
          `  submit: { name: ${q.name}-job, workspace: ${wsOf(byName.get(q.quota)!)}, quota: ${q.quota}, module: DLC, priority: 9, pods: ${q.pods}, resources: { gpu: ${q.gpu} } }`,
        ].join('\n'),
      )
      .join('\n---\n') + '\n';
  const files = [
    { path: 'b3/quotas.yaml', text: quotasText },
    { path: 'b3/cluster.yaml', text: clusterText },
    { path: 'b3/whatif.yaml', text: whatifText },
  ];
  return {
    files,
    queries,
    stats: {
      nodes,
      gpus: total,
      quotas: all.length,
      jobs: kept.length,
      pods: kept.reduce((s, j) => s + j.pods, 0),
      inQuotaGpus,
      borrowingGpus,
      idleGpus: kept.filter((j) => j.standing === 'idle').reduce((s, j) => s + j.pods * j.gpu, 0),
      bytes: files.reduce((s, f) => s + Buffer.byteLength(f.text), 0),
    },
  };
}
