/**
 * Cluster states and submissions for checking one promise against one policy. The
 * policy's own nodes and running jobs (its Cluster, if any) are kept in every state;
 * random jobs are added as the policy allows (workspaces' quotas and modules, quota
 * room, free GPUs). Without a Cluster, each pool gets enough 8-GPU nodes for its roots'
 * guarantees.
 *
 * Generation leans toward the boundaries where promises break (issue 7: uniform states
 * mostly repeated a nearly full cluster, and a promise held over 6,000 runs that a
 * three-job state broke):
 *
 *   - few jobs as often as many (a third of states have at most 3 added jobs);
 *   - a quarter of jobs fill their quota exactly to its guarantee (room left: 0), and
 *     in a quarter of states every job does (saturated quotas);
 *   - half of the priorities (of jobs and of the submission) are rule edges: each
 *     preemption clause's range ends and their neighbours (edgePriorities); in a
 *     quarter of states every job shares one edge priority;
 *   - a third of jobs are scattered across nodes instead of packed (fragmentation);
 *   - in a quarter of states the submission (unless its template fixes pods) asks for
 *     one pod more than the free GPUs of its pool hold, so it cannot start without
 *     preempting or waiting: the boundary where victims are chosen;
 *   - a quarter of jobs are of the kind the promise protects (its neverPreempts or
 *     maxLostGpuHours selector: module, priority, workspace, standing), since only a
 *     state that runs such a job can break the promise;
 *   - idle-resources jobs and borrowers come from the filler's modes, as before.
 */
import fc from 'fast-check';
import type { Cluster, JobSpec, Module, Policy, RunningJob } from '../model/policy.js';
import type { PolicyPromise } from '../model/promise.js';
import { popcount } from '../kernel/gpu-mask.js';
import { inRange } from '../model/priority.js';
import { mayBorrow } from '../model/borrowing.js';
import type { Source } from '../model/source.js';
import { ClusterFill, MODES, pick, POD_SHAPES, rawJobArbitrary, wishedStanding, type FilledJob, type JobWish, type RawJob } from './fill-cluster.js';

/** Snapshot time of generated states when the policy gives none. */
const DEFAULT_AT = Date.parse('2026-11-20T12:00:00Z');
const GENERATED: Source = { file: '(generated)', line: 1, column: 1, path: '' };

/** One generated state: the snapshot and the submission to ask about. */
export interface PromiseState {
  cluster: Cluster;
  submit: JobSpec;
  /** The random jobs added (the rest are the policy's own), for counterexamples. */
  added: FilledJob[];
}

/** The arbitrary of states for `promise` over `policy` (whose Cluster jobs are already placed). */
export function promiseStates(policy: Policy, placedJobs: RunningJob[], promise: PolicyPromise): fc.Arbitrary<PromiseState> {
  const all = promise.cluster.jobs;
  const few = all.filter((n) => n <= 3);
  const counts = few.length && few.length < all.length ? fc.oneof({ arbitrary: fc.constantFrom(...few), weight: 1 }, { arbitrary: fc.constantFrom(...all), weight: 2 }) : fc.constantFrom(...all);
  const submitArb = submitArbitrary(policy, promise);
  const theme = fc
    .record({ full: fc.nat({ max: 3 }), same: fc.nat({ max: 3 }), samePick: fc.nat(), over: fc.nat({ max: 3 }) })
    .map((t): StateTheme => ({ full: t.full === 0, samePriority: t.same === 0 ? t.samePick : undefined, overflow: t.over === 0 }));
  return fc
    .tuple(counts, fc.array(biasedJobArbitrary(), { maxLength: Math.max(...all), size: 'max' }), submitArb, theme)
    .map(([n, wishes, submit, t]) => buildState(policy, promise.cluster.keepSnapshotJobs ? placedJobs : [], wishes.slice(0, n), submit, promise, t));
}

/**
 * Choices that hold for a whole state, so its jobs meet a boundary together: `full`
 * (a quarter of states) makes every job fill its quota to the guarantee, so quotas are
 * saturated; `samePriority` (a quarter) gives every job one edge priority, so a
 * clause's whole reach — or everything just outside it — is what runs.
 */
interface StateTheme {
  full: boolean;
  samePriority?: number;
  /** The submission asks for one pod more than its pool's free GPUs hold. */
  overflow?: boolean;
}

/** One random job's choices plus the boundary biases (see the file comment). */
interface BiasedJob extends RawJob {
  edge: boolean;
  fill: boolean;
  scatter: number;
  protected: boolean;
}

function biasedJobArbitrary(): fc.Arbitrary<BiasedJob> {
  return fc
    .tuple(rawJobArbitrary(), fc.boolean(), fc.nat({ max: 3 }), fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.integer({ min: 1, max: 1023 }), weight: 1 }), fc.nat({ max: 3 }))
    .map(([raw, edge, fill, scatter, prot]) => ({ ...raw, edge, fill: fill === 0, scatter, protected: prot === 0 }));
}

/**
 * The priorities where a preemption clause's reach begins or ends, and their
 * neighbours: each selfPreemption's highPriority and lowPriority ends and each
 * childPreemption's preemptiblePriority ends, ±1, within 1..9 and the allowed list.
 */
export function edgePriorities(policy: Policy, allowed: readonly number[]): number[] {
  const ends = policy.quotas.flatMap((q) =>
    [q.selfPreemption?.highPriority, q.selfPreemption?.lowPriority, q.childPreemption?.preemptiblePriority].flatMap((r) => (r ? [r.lo - 1, r.lo, r.hi, r.hi + 1] : [])),
  );
  return [...new Set(ends)].filter((p) => allowed.includes(p)).sort((a, b) => a - b);
}

function baseNodes(policy: Policy) {
  if (policy.cluster) return policy.cluster.nodes;
  return policy.pools.flatMap((pool) => {
    const guaranteed = policy.quotas.filter((q) => q.parent === null && q.pool === pool.name).reduce((s, q) => s + q.min.gpu, 0);
    const count = Math.max(1, Math.ceil(guaranteed / 8));
    return Array.from({ length: count }, (_, i) => ({ name: `${pool.name}-node-${i}`, gpus: 8, pool: pool.name, src: GENERATED }));
  });
}

function buildState(policy: Policy, placedJobs: RunningJob[], wishes: BiasedJob[], submit: JobSpec, promise: PolicyPromise, theme: StateTheme = { full: false }): PromiseState {
  const at = policy.cluster?.at ?? DEFAULT_AT;
  const nodes = baseNodes(policy);
  const quotaIdx = new Map(policy.quotas.map((q, i) => [q.name, i]));
  const fill = new ClusterFill(
    policy.quotas.map((q) => ({
      name: q.name,
      parent: q.parent === null ? -1 : quotaIdx.get(q.parent)!,
      min: q.min.gpu,
      pool: q.pool,
      // Only a job the quota's borrowing rule admits can have come to borrow (SEMANTICS 5.2).
      mayBorrow: (priority: number) => mayBorrow(q, priority),
    })),
    nodes.map((n) => ({ name: n.name, gpus: n.gpus, pool: n.pool, used: 0 })),
  );
  const nodeIdx = new Map(nodes.map((n, i) => [n.name, i]));
  for (const j of placedJobs) {
    fill.count(quotaIdx.get(j.quota)!, j.standing, j.pods * j.resources.gpu);
    for (const p of j.placement) for (const g of p.gpus) fill.nodes[nodeIdx.get(p.node)!]!.used |= 2 ** g;
  }
  const usable = policy.workspaces.filter((w) => w.quotas.length > 0 && w.modules.length > 0 && (!promise.cluster.workspaces || promise.cluster.workspaces.includes(w.name)));
  const priorities = promise.cluster.priority;
  const edges = edgePriorities(policy, priorities);
  const maxGpu = Math.max(...nodes.map((n) => n.gpus));
  const guarded = promise.expect.neverPreempts ?? promise.expect.maxLostGpuHours?.of;
  const added: FilledJob[] = [];
  wishes.forEach((w, i) => {
    if (usable.length === 0) return;
    const aim = w.protected ? guarded : undefined;
    const aimedWs = aim?.workspace ? usable.filter((u) => u.name === aim.workspace) : [];
    const ws = pick(aimedWs.length ? aimedWs : usable, w.wsPick);
    const mode = pick(MODES, w.mode);
    const quota = quotaIdx.get(pick(ws.quotas, w.quotaPick))!;
    // Only modules both the workspace and the quota allow: the state must pass `check`.
    const allowed = policy.quotas[quota]!.allowedModules;
    const permitted = ws.modules.filter((m) => !allowed || allowed.values.includes(m));
    const aimedModules = aim?.module ? permitted.filter((m) => aim.module!.includes(m)) : [];
    const modules = aimedModules.length ? aimedModules : permitted;
    if (modules.length === 0) return;
    const aimedPriorities = aim?.priority ? priorities.filter((p) => inRange(aim.priority!, p)) : [];
    const standing = wishedStanding(w, mode);
    // Filling to the guarantee: the whole room left on the quota's path, in the largest pods that divide it.
    const room = w.fill || theme.full ? fill.room(quota) : 0;
    const fillShape = [8, 4, 2, 1].find((g) => g <= maxGpu && room > 0 && room % g === 0 && room / g <= 16);
    const wish: JobWish = {
      name: `gen-${i}`,
      workspace: ws.name,
      quota,
      module: pick(modules, w.module),
      priority: aimedPriorities.length
        ? pick(aimedPriorities, w.priority)
        : theme.samePriority !== undefined && edges.length
          ? pick(edges, theme.samePriority)
          : w.edge && edges.length
            ? pick(edges, w.priority)
            : pick(priorities, w.priority),
      pods: fillShape ? room / fillShape : w.pods,
      gpu: fillShape ?? Math.min(pick(POD_SHAPES, w.shape), maxGpu),
      mode,
      // The protected standing when the promise names one the job's mode can have (idle needs an idle mode).
      standing: aim?.standing && !aim.standing.includes(standing) && aim.standing.some((s) => s !== 'idle') ? aim.standing.find((s) => s !== 'idle')! : standing,
      startedAt: at - w.ageMin * 60_000,
      checkpointEveryMin: w.checkpointMin,
      scatter: w.scatter,
    };
    const job = fill.tryAdd(wish);
    if (job) added.push(job);
  });
  const generated: RunningJob[] = added.map((j) => ({
    name: j.name,
    workspace: j.workspace,
    quota: j.quota,
    module: j.module as Module,
    priority: j.priority,
    pods: j.pods,
    resources: { gpu: j.gpu },
    idleResources: j.mode,
    checkpoint: j.checkpointEveryMin > 0 ? { every: j.checkpointEveryMin * 60_000 } : undefined,
    standing: j.standing,
    startedAt: j.startedAt,
    placement: j.placement,
    placedByEngine: false,
    src: GENERATED,
  }));
  const cluster: Cluster = { name: policy.cluster?.name ?? 'generated', at, nodes, jobs: [...placedJobs, ...generated], src: policy.cluster?.src ?? GENERATED };
  return { cluster, submit: theme.overflow && !promise.submit.pods ? overflowing(policy, fill, submit) : submit, added };
}

/** `submit` with one pod more than the free GPUs of its quota's pool hold (at most 16 pods). */
function overflowing(policy: Policy, fill: ClusterFill, submit: JobSpec): JobSpec {
  const pool = policy.quotas.find((q) => q.name === submit.quota)?.pool;
  const free = fill.nodes.filter((n) => n.pool === pool).reduce((s, n) => s + n.gpus - popcount(n.used), 0);
  const pods = Math.min(16, Math.floor(free / submit.resources.gpu) + 1);
  return { ...submit, pods };
}

/** Submissions drawn from the promise's template; unset fields from what the policy allows. */
function submitArbitrary(policy: Policy, promise: PolicyPromise): fc.Arbitrary<JobSpec> {
  const t = promise.submit;
  // Unless the template names quotas, only quotas some allowed workspace may submit to:
  // a submission to a quota no workspace is associated with is refused before any rule
  // runs (SEMANTICS 3), and a third of the runs would test nothing (a parent quota).
  const allowedWs = policy.workspaces.filter((w) => !t.workspace || t.workspace.includes(w.name));
  const reachable = policy.quotas.map((q) => q.name).filter((q) => allowedWs.some((w) => w.quotas.includes(q)));
  const quotas = t.quota ?? (reachable.length ? reachable : policy.quotas.map((q) => q.name));
  const priorities = t.priority ?? [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const edges = edgePriorities(policy, priorities);
  return fc
    .record({
      quota: fc.constantFrom(...quotas),
      wsPick: fc.nat(),
      modPick: fc.nat(),
      // Half the submissions at a rule's edge priority (when the template leaves room for one).
      priority: edges.length ? fc.oneof(fc.constantFrom(...edges), fc.constantFrom(...priorities)) : fc.constantFrom(...priorities),
      pods: fc.constantFrom(...(t.pods ?? [1, 2, 3, 4])),
      gpu: fc.constantFrom(...(t.gpu ?? [1, 2, 4, 8])),
      // Unset idleResources is the field's default, none: a promise about jobs means plain jobs.
      idle: fc.constantFrom(...(t.idleResources ?? (['none'] as const))),
    })
    .map((r) => {
      // A workspace the template allows, preferring one associated with the chosen quota.
      const withQuota = allowedWs.filter((w) => w.quotas.includes(r.quota));
      const pool = withQuota.length ? withQuota : allowedWs;
      const ws = pool[r.wsPick % pool.length];
      const modules = t.module ?? ws?.modules ?? ['DLC'];
      return {
        name: 'submitted',
        workspace: ws?.name ?? '',
        quota: r.quota,
        // Workspaces list at least one module after validation, so the pick is defined.
        module: modules[r.modPick % modules.length]!,
        priority: r.priority,
        pods: r.pods,
        resources: { gpu: r.gpu },
        idleResources: r.idle,
        src: promise.src,
      };
    });
}
