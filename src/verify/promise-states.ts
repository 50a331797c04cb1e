/**
 * Cluster states and submissions for checking one promise against one policy. The
 * policy's own nodes and running jobs (its Cluster, if any) are kept in every state;
 * random jobs are added as the policy allows (workspaces' quotas and modules, quota
 * room, free GPUs). Without a Cluster, each pool gets enough 8-GPU nodes for its roots'
 * guarantees.
 */
import fc from 'fast-check';
import type { Cluster, JobSpec, Module, Policy, RunningJob } from '../model/policy.js';
import type { PolicyPromise } from '../model/promise.js';
import type { Source } from '../model/source.js';
import { ClusterFill, MODES, pick, POD_SHAPES, rawJobArbitrary, wishedStanding, type FilledJob, type JobWish, type RawJob } from '../testing/fill-cluster.js';

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
  const counts = fc.constantFrom(...promise.cluster.jobs);
  const submitArb = submitArbitrary(policy, promise);
  return fc
    .tuple(counts, fc.array(rawJobArbitrary(), { maxLength: Math.max(...promise.cluster.jobs), size: 'max' }), submitArb)
    .map(([n, wishes, submit]) => buildState(policy, promise.cluster.keepSnapshotJobs ? placedJobs : [], wishes.slice(0, n), submit, promise));
}

function baseNodes(policy: Policy) {
  if (policy.cluster) return policy.cluster.nodes;
  return policy.pools.flatMap((pool) => {
    const guaranteed = policy.quotas.filter((q) => q.parent === null && q.pool === pool.name).reduce((s, q) => s + q.min.gpu, 0);
    const count = Math.max(1, Math.ceil(guaranteed / 8));
    return Array.from({ length: count }, (_, i) => ({ name: `${pool.name}-node-${i}`, gpus: 8, pool: pool.name, src: GENERATED }));
  });
}

function buildState(policy: Policy, placedJobs: RunningJob[], wishes: RawJob[], submit: JobSpec, promise: PolicyPromise): PromiseState {
  const at = policy.cluster?.at ?? DEFAULT_AT;
  const nodes = baseNodes(policy);
  const quotaIdx = new Map(policy.quotas.map((q, i) => [q.name, i]));
  const fill = new ClusterFill(
    policy.quotas.map((q) => ({
      name: q.name,
      parent: q.parent === null ? -1 : quotaIdx.get(q.parent)!,
      min: q.min.gpu,
      pool: q.pool,
      // A job can have come to borrow only through its quota's self-level preemption (SEMANTICS 5.2).
      borrows: q.selfPreemption ? q.selfPreemption.highPriority : undefined,
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
  const maxGpu = Math.max(...nodes.map((n) => n.gpus));
  const added: FilledJob[] = [];
  wishes.forEach((w, i) => {
    if (usable.length === 0) return;
    const ws = pick(usable, w.wsPick);
    const mode = pick(MODES, w.mode);
    const quota = quotaIdx.get(pick(ws.quotas, w.quotaPick))!;
    // Only modules both the workspace and the quota allow: the state must pass `check`.
    const allowed = policy.quotas[quota]!.allowedModules;
    const modules = ws.modules.filter((m) => !allowed || allowed.values.includes(m));
    if (modules.length === 0) return;
    const wish: JobWish = {
      name: `gen-${i}`,
      workspace: ws.name,
      quota,
      module: pick(modules, w.module),
      priority: pick(priorities, w.priority),
      pods: w.pods,
      gpu: Math.min(pick(POD_SHAPES, w.shape), maxGpu),
      mode,
      standing: wishedStanding(w, mode),
      startedAt: at - w.ageMin * 60_000,
      checkpointEveryMin: w.checkpointMin,
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
  return { cluster, submit, added };
}

/** Submissions drawn from the promise's template; unset fields from what the policy allows. */
function submitArbitrary(policy: Policy, promise: PolicyPromise): fc.Arbitrary<JobSpec> {
  const t = promise.submit;
  const quotas = t.quota ?? policy.quotas.map((q) => q.name);
  return fc
    .record({
      quota: fc.constantFrom(...quotas),
      wsPick: fc.nat(),
      modPick: fc.nat(),
      priority: fc.constantFrom(...(t.priority ?? [1, 2, 3, 4, 5, 6, 7, 8, 9])),
      pods: fc.constantFrom(...(t.pods ?? [1, 2, 3, 4])),
      gpu: fc.constantFrom(...(t.gpu ?? [1, 2, 4, 8])),
      // Unset idleResources is the field's default, none: a promise about jobs means plain jobs.
      idle: fc.constantFrom(...(t.idleResources ?? (['none'] as const))),
    })
    .map((r) => {
      // A workspace the template allows, preferring one associated with the chosen quota.
      const allowed = policy.workspaces.filter((w) => !t.workspace || t.workspace.includes(w.name));
      const withQuota = allowed.filter((w) => w.quotas.includes(r.quota));
      const pool = withQuota.length ? withQuota : allowed;
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
