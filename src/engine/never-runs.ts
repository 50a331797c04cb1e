/**
 * SEMANTICS 3, Decisions: `reject` exactly when the job could never run under the
 * policy, even on an empty pool. Three things make it so; everything else that cannot
 * run now is `wait`:
 *
 *   1. a workspace rule forbids it: access, a module setting, or a cap the job alone
 *      exceeds (admission.ts, checked before this);
 *   2. it fits no node of the pool: the gang does not fit the pool with every node
 *      empty (GPUs per node, and cpu and memory where nodes state them), counting only
 *      the nodes of the GPU models it asks for (`gpuModels`);
 *   3. no quota standing would ever take it: in quota it asks more than some quota on
 *      its path guarantees at all, it may not borrow (SEMANTICS 5.2) or borrowing asks
 *      more than an ancestor guarantees at all — or it alone asks more than some quota's
 *      `max` on its path (SEMANTICS 3: a ceiling binds both standings) — and
 *      `idleResources: none` keeps it off idle capacity.
 */
import type { GangRequest } from '../kernel/types.js';
import { modelAllowed } from '../kernel/reference-placement.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import type { Snapshot } from './snapshot.js';
import type { AnswerContext } from './answer-context.js';
import { because, type Reason } from './reason-codes.js';
import { describeNeverFits } from './reasons.js';

/** The reject reasons of 2 and 3, or undefined when some state of the cluster could run the job. */
export function neverRuns(ctx: AnswerContext): Reason[] | undefined {
  const { job, pool } = ctx;
  const poolTooSmall = neverFitsPool(ctx);
  if (poolTooSmall)
    return [because('placement/never-fits-pool', `no placement of ${job.pods} pod(s) × ${job.resources.gpu} GPU could ever fit pool "${pool.name}", even with every node empty: ${poolTooSmall}`)];
  if (job.idleResources !== 'none' || ctx.inQuota.never.length === 0) return undefined;
  if (ctx.borrowing && ctx.borrowing.never.length === 0) return undefined;
  // A ceiling the job alone exceeds closes both standings: it is the reason, whatever the guarantees say.
  const ceilings = ctx.inQuota.never.filter((o) => o.kind === 'max');
  if (ceilings.length > 0) return ceilings.map((o) => because('quota/never-fits-max', `${describeNeverFits(ctx.snapshot, o)}; and the job may not run idle`));
  return ctx.inQuota.never.map((o) => because('quota/never-fits', `${describeNeverFits(ctx.snapshot, o)}; and the job may neither borrow nor run idle`));
}

/**
 * Why the gang could not fit the pool even with every node empty — counted per
 * resource, so the sentence names the one that binds (GPUs, cpu or memory) — or
 * undefined when it could.
 */
function neverFitsPool(ctx: AnswerContext): string | undefined {
  const { req } = ctx;
  const { total, byGpu, maxCpu, maxMem } = emptyPoolFit(ctx.snapshot, req);
  if (total >= req.pods) return undefined;
  if (byGpu.pods < req.pods)
    return `its ${byGpu.nodes} node(s)${ctx.job.gpuModels ? ` of ${ctx.job.gpuModels.join(' or ')}` : ''} have ${byGpu.gpus} GPUs and room for only ${byGpu.pods} pod(s) of ${req.milli ? `${req.milli}m of a GPU` : `${req.gpu} GPU${req.gpu === 1 ? '' : 's'}`}`;
  if (req.cpu > maxCpu) return `each pod asks for ${formatCpu(req.cpu)} cpu and no node has more than ${formatCpu(maxCpu)}`;
  if (req.mem > maxMem) return `each pod asks for ${formatMemory(req.mem)} of memory and no node has more than ${formatMemory(maxMem)}`;
  return `with their cpu and memory, the nodes have room for only ${total} of the ${req.pods} pods (GPUs alone would allow ${byGpu.pods})`;
}

export interface EmptyPoolFit {
  total: number;
  byGpu: { pods: number; nodes: number; gpus: number };
  maxCpu: number;
  maxMem: number;
}

/**
 * Per snapshot (keyed by its kernel node list, made once by Snapshot.build), the
 * empty-pool fits already counted, by pod shape. The count reads only the nodes'
 * capacities and pools, which no start or end changes (a simulation keeps one snapshot
 * for its whole run), so it outlives every change of the running jobs.
 */
const emptyFits = new WeakMap<readonly unknown[], Map<string, EmptyPoolFit>>();

/** Nodes of one capacity and GPU model in one pool, and how many there are. */
interface NodeKind {
  gpus: number;
  /** The kernel's model index (gpu-models.ts; 0 = no model). */
  model: number;
  cpu: number | undefined;
  memory: number | undefined;
  count: number;
}

/** Per snapshot node list: each pool's kinds of node (a cluster of 10,000 nodes has a handful), in first-seen order. */
const kindsOf = new WeakMap<readonly unknown[], Map<number, NodeKind[]>>();

function nodeKinds(snap: Snapshot): Map<number, NodeKind[]> {
  let byPool = kindsOf.get(snap.state.nodes);
  if (byPool) return byPool;
  byPool = new Map();
  const seen = new Map<string, NodeKind>();
  snap.cluster.nodes.forEach((node, i) => {
    const { pool, model = 0 } = snap.state.nodes[i]!;
    const key = `${pool}:${model}:${node.gpus}:${node.cpu}:${node.memory}`;
    const kind = seen.get(key);
    if (kind) {
      kind.count++;
      return;
    }
    const made: NodeKind = { gpus: node.gpus, model, cpu: node.cpu, memory: node.memory, count: 1 };
    seen.set(key, made);
    const list = byPool.get(pool);
    if (list) list.push(made);
    else byPool.set(pool, [made]);
  });
  kindsOf.set(snap.state.nodes, byPool);
  return byPool;
}

/** How many pods of the request's shape the pool's nodes hold when all are empty, in all and by GPUs alone. */
export function emptyPoolFit(snap: Snapshot, req: GangRequest): EmptyPoolFit {
  let byShape = emptyFits.get(snap.state.nodes);
  if (!byShape) emptyFits.set(snap.state.nodes, (byShape = new Map<string, EmptyPoolFit>()));
  const key = `${req.pool}:${req.models ?? 0}:${req.gpu}:${req.milli ?? 0}:${req.cpu}:${req.mem}`;
  const known = byShape.get(key);
  if (known) return known;
  let total = 0;
  const byGpu = { pods: 0, nodes: 0, gpus: 0 };
  let maxCpu = 0;
  let maxMem = 0;
  // Over the pool's kinds of node, each counted as often as it occurs: a per-node sum
  // (integers) and maximum, so the same figures as a walk of every node.
  for (const kind of nodeKinds(snap).get(req.pool) ?? []) {
    const { gpus, cpu, memory, count } = kind;
    // The placement's own model test: nodes of a model the job does not ask for never take its pods.
    if (!modelAllowed(kind, req)) continue;
    // On an empty node every aligned block is free, so strict topology changes nothing here.
    // A share of one GPU fits ⌊1000 / milli⌋ times on each empty GPU.
    const gpuFits = req.milli ? gpus * Math.floor(1000 / req.milli) : Math.floor(gpus / req.gpu);
    const cpuFits = req.cpu > 0 && cpu !== undefined ? Math.floor(cpu / req.cpu) : Infinity;
    const memFits = req.mem > 0 && memory !== undefined ? Math.floor(memory / req.mem) : Infinity;
    total += count * Math.min(gpuFits, cpuFits, memFits);
    byGpu.pods += count * gpuFits;
    byGpu.nodes += count;
    byGpu.gpus += count * gpus;
    maxCpu = Math.max(maxCpu, cpu ?? Infinity);
    maxMem = Math.max(maxMem, memory ?? Infinity);
  }
  const fit = { total, byGpu, maxCpu, maxMem };
  byShape.set(key, fit);
  return fit;
}
