/**
 * Every node with its GPUs and the jobs on it as far as the caller may see them
 * (`GET /v1/nodes`, the web app's heat map). A GPU holding shares of pods (GPU sharing)
 * counts its shares in `used` (0.5 of a GPU), and is not `free`.
 */
import type { ClusterNode, RunningJob, Standing } from '../../model/policy.js';
import { addGpu, MILLI_PER_GPU, shareMilli } from '../../model/resources.js';
import { hiddenLabel, priorityBand, type Viewer } from '../visibility.js';
import { seesJob } from './job-entry.js';

/** One job's pods on one node. */
export interface NodeJobEntry {
  /** The job's name, or `(hidden: WORKSPACE)`. */
  job: string;
  hidden?: true;
  workspace: string;
  quota: string;
  standing: Standing;
  priorityBand: string;
  /** Only for a job the caller may see. */
  priority?: number;
  module?: string;
  /** Its pods on this node, and the GPUs they hold here. */
  pods: number;
  gpus: number;
  /** The GPU indices its pods hold here, ascending. */
  indices: number[];
}

/** One node. */
export interface NodeEntry {
  name: string;
  pool: string;
  gpuModel?: string;
  instanceType?: string;
  gpus: number;
  /** GPUs held, a shared GPU counting its shares. */
  used: number;
  /** GPUs nothing holds. */
  free: number;
  /** GPUs holding shares of pods. */
  shared: number;
  cordoned: boolean;
  /** GPUs held by the jobs of each standing. */
  standing: Record<'in-quota' | 'borrowing' | 'idle', number>;
  jobs: NodeJobEntry[];
}

/** The body of a NodeView. */
export interface NodeView {
  nodes: NodeEntry[];
}

/** The options of `nodeView`. */
export interface NodeViewOptions {
  /** Only the nodes of this pool. */
  pool?: string;
}

/** Every node (of `options.pool`) with its jobs, for `viewer` (undefined: everything). */
export function nodeView(nodes: readonly ClusterNode[], jobs: readonly RunningJob[], viewer: Viewer | undefined, options: NodeViewOptions = {}): NodeView {
  const byNode = new Map<string, Array<{ job: RunningJob; indices: number[]; pods: number }>>();
  for (const job of jobs) {
    const here = new Map<string, { job: RunningJob; indices: number[]; pods: number }>();
    for (const p of job.placement) {
      let e = here.get(p.node);
      if (!e) {
        e = { job, indices: [], pods: 0 };
        here.set(p.node, e);
      }
      e.pods += 1;
      e.indices.push(...p.gpus);
    }
    for (const [node, e] of here) {
      let list = byNode.get(node);
      if (!list) byNode.set(node, (list = []));
      list.push(e);
    }
  }
  const out: NodeEntry[] = [];
  for (const n of nodes) {
    if (options.pool !== undefined && n.pool !== options.pool) continue;
    const whole = new Set<number>();
    const shares = new Map<number, number>();
    const standing = { 'in-quota': 0, borrowing: 0, idle: 0 };
    const entries: NodeJobEntry[] = [];
    for (const { job, indices, pods } of byNode.get(n.name) ?? []) {
      const milli = shareMilli(job.resources.gpu);
      if (milli) for (const g of indices) shares.set(g, (shares.get(g) ?? 0) + milli);
      else for (const g of indices) whole.add(g);
      const gpus = addGpu(0, pods * job.resources.gpu);
      standing[job.standing] = addGpu(standing[job.standing], gpus);
      const seen = seesJob(viewer, job);
      entries.push({
        job: seen ? job.name : hiddenLabel(job),
        ...(seen ? {} : { hidden: true as const }),
        workspace: job.workspace,
        quota: job.quota,
        standing: job.standing,
        priorityBand: priorityBand(job.priority),
        ...(seen ? { priority: job.priority, module: job.module } : {}),
        pods,
        gpus,
        indices: [...new Set(indices)].sort((a, b) => a - b),
      });
    }
    let sharedMilli = 0;
    for (const [g, m] of shares) if (!whole.has(g)) sharedMilli += m;
    const held = new Set([...whole, ...shares.keys()]);
    out.push({
      name: n.name,
      pool: n.pool,
      ...(n.gpuModel !== undefined ? { gpuModel: n.gpuModel } : {}),
      ...(n.instanceType !== undefined ? { instanceType: n.instanceType } : {}),
      gpus: n.gpus,
      used: addGpu(whole.size, sharedMilli / MILLI_PER_GPU),
      free: n.gpus - held.size,
      shared: [...shares.keys()].filter((g) => !whole.has(g)).length,
      cordoned: n.unschedulable === true,
      standing,
      jobs: entries,
    });
  }
  return { nodes: out };
}
