/**
 * fast-check generators of consistent scenarios: a quota tree whose sums are valid, a
 * pool of 1-, 2-, 4- and 8-GPU nodes, preemption clauses, a Cluster snapshot whose
 * placements and usage respect the policy, and a submission. Exported for users as
 * `quotient/testing`, so they can test their own tools against the same model.
 *
 * Generation draws plain random choices and builds the scenario from them
 * deterministically, so fast-check shrinks the choices and the scenario stays valid
 * while it shrinks.
 */
import fc from 'fast-check';
import { ClusterFill, MODES, pick, POD_SHAPES, rawJobArbitrary, wishedStanding, type FilledJob, type JobWish, type RawJob } from '../verify/fill-cluster.js';
import { printable, type Doc, type Scenario } from './scenario.js';
import { mayBorrow, type BorrowingFields } from '../model/borrowing.js';
import type { PriorityRange } from '../model/priority.js';

const MODULES = ['DLC', 'DSW', 'EAS'] as const;
const API = 'quotient.dev/v1';

/** A filled job as a Cluster document's job entry. */
export function jobDoc(job: FilledJob): Doc {
  const doc: Doc = {
    name: job.name,
    workspace: job.workspace,
    quota: job.quota,
    module: job.module,
    priority: job.priority,
    pods: job.pods,
    resources: { gpu: job.gpu },
    startedAt: new Date(job.startedAt).toISOString(),
    placement: job.placement,
  };
  if (job.mode !== 'none') doc.idleResources = job.mode;
  if (job.standing === 'borrowing' || (job.standing === 'idle' && job.mode === 'acceptable')) doc.standing = job.standing;
  if (job.checkpointEveryMin > 0) doc.checkpoint = { every: `${job.checkpointEveryMin}m` };
  return doc;
}

/**
 * Flavours bias the choices towards the edges where scheduling bugs live:
 * - `plain`: anything;
 * - `single-node`: one node, so every gang competes for the same bitmap;
 * - `full`: many small jobs, so the cluster is (nearly) full and preemption is needed;
 * - `all-idle`: every running job idle, so only reclaim can make room;
 * - `extreme-priorities`: priorities 1 and 9 only, the bounds of every range;
 * - `big-gangs`: 8-GPU pods in gangs of 2-4 on 8-GPU nodes, whole-node victims;
 * - `empty-quota`: quotas with min 0 next to full ones;
 * - `idle-fills`: idle jobs fill every GPU the other jobs leave free, and the submission
 *   is cut to fit its quota's room where it can: a job the quota tree lets run that
 *   fits only once idle jobs are gone (invariant 6's case; reclaim must make room);
 * - `preemptible`: every quota lets priorities 6-9 preempt 1-5 (selfPreemption), the
 *   running jobs have 1-5 and run on quota, the cluster is full and the submission has
 *   6-9: victims that run on quota, chosen by self-level preemption and reclaim.
 */
export const FLAVOURS = ['plain', 'single-node', 'full', 'all-idle', 'extreme-priorities', 'big-gangs', 'empty-quota', 'idle-fills', 'preemptible'] as const;
export type Flavour = (typeof FLAVOURS)[number];

export interface ScenarioOptions {
  /** Deepest quota level, 1..4 (default 3). */
  maxDepth?: number;
  /** At most this many quotas (default 6). */
  maxQuotas?: number;
  /** At most this many nodes (default 8; the exact-optimum tests use up to 12). */
  maxNodes?: number;
  /** At most this many running jobs attempted (default 20). */
  maxJobs?: number;
  /** Restrict to these flavours (default all). */
  flavours?: readonly Flavour[];
}

interface RawQuota {
  parentPick: number;
  minPct: number;
  self: { high: [number, number]; lowSpan: number; modules: boolean[] } | null;
  child: { range: [number, number]; modules: boolean[] } | null;
  reclaim: number;
}

interface Raw {
  flavour: Flavour;
  quotas: RawQuota[];
  rootPct: number;
  nodes: number[];
  strategy: boolean;
  strict: boolean;
  jobs: RawJob[];
  submit: RawJob;
}

const rawRange = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as [number, number]);
const rawModules = fc.array(fc.boolean(), { minLength: 3, maxLength: 3 });

function rawScenario(o: Required<ScenarioOptions>): fc.Arbitrary<Raw> {
  return fc.record({
    flavour: fc.constantFrom(...o.flavours),
    quotas: fc.array(
      fc.record({
        parentPick: fc.nat(),
        minPct: fc.integer({ min: 0, max: 100 }),
        self: fc.option(fc.record({ high: rawRange, lowSpan: fc.integer({ min: 0, max: 8 }), modules: rawModules }), { freq: 2 }),
        child: fc.option(fc.record({ range: rawRange, modules: rawModules }), { freq: 2 }),
        reclaim: fc.nat({ max: 2 }),
      }),
      { minLength: 1, maxLength: o.maxQuotas },
    ),
    rootPct: fc.integer({ min: 50, max: 100 }),
    // Mostly 8-GPU nodes (the common server), with 1-, 2- and 4-GPU ones for fragmentation.
    nodes: fc.array(fc.constantFrom(8, 8, 8, 4, 2, 1), { minLength: 1, maxLength: o.maxNodes, size: 'medium' }),
    strategy: fc.boolean(),
    strict: fc.boolean(),
    jobs: fc.array(rawJobArbitrary(), { maxLength: o.maxJobs, size: 'medium' }),
    submit: rawJobArbitrary(),
  });
}

/** Consistent scenarios (policy + Cluster + one WhatIf), printable as YAML. */
export function scenarioArbitrary(options: ScenarioOptions = {}): fc.Arbitrary<Scenario> {
  const o: Required<ScenarioOptions> = {
    maxDepth: options.maxDepth ?? 3,
    maxQuotas: options.maxQuotas ?? 6,
    maxNodes: options.maxNodes ?? 8,
    maxJobs: options.maxJobs ?? 20,
    flavours: options.flavours ?? FLAVOURS,
  };
  return rawScenario(o).map((raw) => printable(buildScenario(raw, o)));
}

interface BuiltQuota {
  name: string;
  parent: number;
  depth: number;
  min: number;
  children: number[];
  doc: Doc;
  /** The fields that decide who may borrow here (model/borrowing.ts), as the doc writes them. */
  borrowing: BorrowingFields;
}

/** Turns raw choices into a valid scenario (exported for replaying a recorded seed's raw value). */
function buildScenario(raw: Raw, o: Required<ScenarioOptions>): Scenario {
  const f = raw.flavour;
  const nodeShapes: number[] = f === 'single-node' ? [pick(raw.nodes, 0)] : f === 'big-gangs' ? raw.nodes.map(() => 8) : raw.nodes;
  const capacity = nodeShapes.reduce((s, g) => s + g, 0);

  // Quota tree: quota 0 is the root; each later quota hangs under an earlier one that is not too deep.
  const quotas: BuiltQuota[] = [];
  raw.quotas.forEach((rq, i) => {
    let parent = -1;
    let depth = 0;
    if (i > 0) {
      // Indices below are into quotas, built in order: every parent precedes its children.
      const open = quotas.map((q, k) => k).filter((k) => quotas[k]!.depth < o.maxDepth - 1);
      parent = open.length ? pick(open, rq.parentPick) : 0;
      depth = quotas[parent]!.depth + 1;
    }
    const name = i === 0 ? 'Root' : `Q${i}`;
    let min: number;
    if (parent === -1) min = Math.floor((capacity * raw.rootPct) / 100);
    else {
      const p = quotas[parent]!;
      const used = p.children.reduce((s, c) => s + quotas[c]!.min, 0);
      // Children take a good share of what their parent has left, so jobs fit somewhere.
      const pct = f === 'empty-quota' && i % 2 === 1 ? 0 : 25 + Math.floor((rq.minPct * 75) / 100);
      min = Math.floor(((p.min - used) * pct) / 100);
    }
    const doc: Doc = { name, min: { gpu: min } };
    let highPriority: PriorityRange | undefined;
    if (f === 'preemptible') {
      highPriority = { lo: 6, hi: 9 };
      doc.selfPreemption = { highPriority: '6-9', lowPriority: '1-5', modules: pickModules(rq.self?.modules ?? [true, true, true]) };
    } else if (rq.self) {
      const [hlo, hhi] = rq.self.high;
      if (hlo > 1) {
        const lowHi = hlo - 1;
        const lowLo = Math.max(1, lowHi - rq.self.lowSpan);
        highPriority = { lo: hlo, hi: hhi };
        doc.selfPreemption = { highPriority: `${hlo}-${hhi}`, lowPriority: lowLo === lowHi ? lowLo : `${lowLo}-${lowHi}`, modules: pickModules(rq.self.modules) };
      }
    }
    if (rq.child) doc.childPreemption = { preemptiblePriority: `${rq.child.range[0]}-${rq.child.range[1]}`, modules: pickModules(rq.child.modules) };
    if (parent !== -1) doc.reclaim = (['any', 'lower-priority', 'never'] as const)[rq.reclaim];
    // In a third of the child quotas with a self-level clause, borrowing.priority widens who
    // borrows below highPriority (SEMANTICS 5.2), from the same raw choices: no new draws, so
    // recorded seeds replay. Built beside the doc field so the generator asks model/borrowing.ts.
    let widened: PriorityRange | undefined;
    if (parent !== -1 && highPriority && highPriority.lo > 1 && rq.minPct % 3 === 0) {
      widened = { lo: Math.max(1, highPriority.lo - 1 - (rq.self?.lowSpan ?? 0)), hi: highPriority.hi };
      doc.borrowing = { priority: `${widened.lo}-${widened.hi}` };
    }
    const borrowing: BorrowingFields = {
      parent: parent === -1 ? null : quotas[parent]!.name,
      selfPreemption: highPriority ? { highPriority } : undefined,
      borrowing: widened ? { priority: widened } : undefined,
    };
    quotas.push({ name, parent, depth, min, children: [], doc, borrowing });
    if (parent !== -1) quotas[parent]!.children.push(i);
  });
  const toTree = (i: number): Doc => {
    const q = quotas[i]!;
    return q.children.length ? { ...q.doc, children: q.children.map(toTree) } : q.doc;
  };

  const tree: Doc = {
    apiVersion: API,
    kind: 'QuotaTree',
    metadata: { name: 'generated' },
    spec: {
      pool: { name: 'pool' },
      placement: { strategy: raw.strategy ? 'binpack' : 'spread', topology: raw.strict ? 'strict' : 'prefer' },
      quotas: [toTree(0)],
    },
  };
  const workspace: Doc = { apiVersion: API, kind: 'Workspace', metadata: { name: 'ws' }, spec: { quotas: quotas.map((q) => q.name) } };

  // Snapshot: add jobs one by one; keep those that fit the quotas and the bitmaps.
  const at = Date.parse('2026-11-20T12:00:00Z');
  const fill = new ClusterFill(
    // Only a job the quota's borrowing rule admits can have come to borrow (SEMANTICS 5.2).
    quotas.map((q) => ({ name: q.name, parent: q.parent, min: q.min, pool: 'pool', mayBorrow: (priority: number) => mayBorrow(q.borrowing, priority) })),
    nodeShapes.map((g, i) => ({ name: `n-${i}`, gpus: g, pool: 'pool', used: 0 })),
  );
  const jobs: Doc[] = [];
  const rawJobs = f === 'full' || f === 'preemptible' ? [...raw.jobs, ...raw.jobs.map((j) => ({ ...j, shape: 0, pods: 1 }))] : raw.jobs;
  rawJobs.forEach((rj, i) => {
    const drawn = pick(MODES, rj.mode);
    const mode = f === 'all-idle' ? 'only' : f === 'preemptible' && drawn === 'only' ? 'none' : drawn;
    const wish: JobWish = {
      name: `job-${i}`,
      workspace: 'ws',
      quota: rj.quotaPick % quotas.length,
      module: pick(MODULES, rj.module),
      priority: f === 'extreme-priorities' ? (rj.priority % 2 ? 9 : 1) : f === 'preemptible' ? 1 + ((rj.priority - 1) % 5) : rj.priority,
      pods: f === 'big-gangs' ? 2 + (rj.pods % 3) : rj.pods,
      gpu: Math.min(pick(POD_SHAPES, f === 'big-gangs' ? 5 : rj.shape), Math.max(...nodeShapes)),
      mode,
      standing: wishedStanding(rj, mode),
      startedAt: at - rj.ageMin * 60_000,
      checkpointEveryMin: rj.checkpointMin,
    };
    const job = fill.tryAdd(wish);
    if (job) jobs.push(jobDoc(job));
  });
  if (f === 'idle-fills') jobs.push(...fillWithIdle(fill, rawJobs.length ? rawJobs : [raw.submit], rawJobs.length, quotas.length, at).map(jobDoc));
  const cluster: Doc = {
    apiVersion: API,
    kind: 'Cluster',
    metadata: { name: 'snapshot' },
    spec: { at: new Date(at).toISOString(), nodes: nodeShapes.map((g, i) => ({ name: `n-${i}`, gpus: g, pool: 'pool' })), jobs },
  };

  const s = raw.submit;
  const drawnMode = pick(MODES, s.mode);
  const submitMode = f === 'preemptible' && drawnMode === 'only' ? 'none' : drawnMode;
  let pods = f === 'big-gangs' ? 2 + (s.pods % 3) : s.pods;
  let gpu = Math.min(pick(POD_SHAPES, f === 'big-gangs' ? 5 : s.shape), Math.max(...nodeShapes));
  if (f === 'idle-fills') {
    // Cut the gang to its quota's room (in quota), where one pod of some shape fits there.
    const room = fill.room(s.quotaPick % quotas.length);
    while (gpu > 1 && gpu > room) gpu = gpu / 2;
    if (gpu <= room) pods = Math.min(pods, Math.floor(room / gpu));
  }
  const submit: Doc = {
    name: 'submitted',
    workspace: 'ws',
    quota: pick(quotas, s.quotaPick).name,
    module: pick(MODULES, s.module),
    priority: f === 'extreme-priorities' ? (s.priority % 2 ? 9 : 1) : f === 'preemptible' ? 6 + (s.priority % 4) : s.priority,
    pods,
    resources: { gpu },
  };
  if (submitMode !== 'none') submit.idleResources = submitMode;
  const whatIf: Doc = { apiVersion: API, kind: 'WhatIf', metadata: { name: 'q' }, spec: { submit } };
  return { docs: [tree, workspace, cluster, whatIf], query: 'q' };
}

/**
 * Idle jobs (`only`, or `acceptable` running idle) on every GPU the fill left free,
 * largest aligned blocks first, each job's other choices taken in turn from `raws`.
 * Idle jobs count in no quota, so the fill's quota usage is unchanged.
 */
function fillWithIdle(fill: ClusterFill, raws: readonly RawJob[], first: number, quotaCount: number, at: number): FilledJob[] {
  const out: FilledJob[] = [];
  for (const gpu of [8, 4, 2, 1]) {
    for (;;) {
      const rj = pick(raws, out.length);
      const mode = pick(MODES, rj.mode) === 'acceptable' ? 'acceptable' : 'only';
      const job = fill.tryAdd({
        name: `job-${first + out.length}`,
        workspace: 'ws',
        quota: (rj.quotaPick + out.length) % quotaCount,
        module: pick(MODULES, rj.module),
        priority: rj.priority,
        pods: 1,
        gpu,
        mode,
        standing: 'idle',
        startedAt: at - rj.ageMin * 60_000,
        checkpointEveryMin: rj.checkpointMin,
      });
      if (!job) break;
      out.push(job);
    }
  }
  return out;
}

function pickModules(flags: boolean[]): string[] {
  const m = MODULES.filter((_, i) => flags[i]);
  return m.length ? m : ['DLC'];
}
