/**
 * The quota tree as a listing (`GET /v1/quotas`, the web app's bars): each quota's
 * guarantee and what uses it, in GPUs. Only numbers and the policy's own names: the same
 * for every caller (anonymous usage, SEMANTICS 10).
 *
 * Per quota, over the running jobs of its subtree:
 * - `used`: usage(Q), what admission checks against `min` (SEMANTICS 3, model/usage-rule.ts);
 * - `inQuota`, `borrowing`, `idle`: the GPUs of the subtree's jobs of each standing;
 * - `max`: the ceiling, per resource it names (null: none);
 * - `free`: max(0, min − used);
 * - `lent`: the part of `free` borrowers on same-level quotas are using, which the quota
 *   may take back under its `reclaim` setting: min(free, GPUs of borrowing jobs on its
 *   siblings). A borrower's lender is whichever sibling reclaims first (SEMANTICS 5.2),
 *   so siblings' `lent` may together exceed what is borrowed.
 */
import type { Ceiling, Policy, Quota, RunningJob, Standing } from '../../model/policy.js';
import type { Resources } from '../../model/resources.js';
import { formatRange } from '../../model/priority.js';
import type { QuotaTree } from '../../model/quota-tree.js';
import { addGpu } from '../../model/resources.js';
import { sourceText } from '../../model/source.js';
import type { UsageTable } from '../usage.js';
import { shareJson, type QuotaFairShare } from '../quota-fair-shares.js';

/** One pool's nodes and GPUs. */
export interface PoolEntry {
  name: string;
  type: string;
  nodes: number;
  gpus: number;
  /** Nodes cordoned (their pods count; nothing new lands there). */
  cordonedNodes: number;
}

/** One quota of the tree with its numbers. */
export interface QuotaEntry {
  name: string;
  parent: string | null;
  children: string[];
  depth: number;
  pool: string;
  /** The workspaces associated with it. */
  workspaces: string[];
  min: Resources;
  /** The quota's ceiling (SEMANTICS 3): per resource it names, what its in-quota and borrowing jobs together never exceed; null when it has none. */
  max: Ceiling | null;
  used: number;
  inQuota: number;
  borrowing: number;
  lent: number;
  idle: number;
  free: number;
  /** Running jobs of the subtree. */
  jobs: number;
  reclaim: string;
  selfPreemption?: { highPriority: string; lowPriority: string; modules: string[]; source: string };
  childPreemption?: { preemptiblePriority: string; modules: string[]; source: string };
  /**
   * SEMANTICS 13: the quota's weighted share (Kueue's status.fairSharing.weightedShare) and
   * weight, or null when its tree follows Kueue's rules without fair sharing; absent under
   * PAI's rules. "infinite" for a borrowing quota of weight 0 (JSON has no Infinity).
   */
  fairShare?: { weightedShare: number | 'infinite'; weight: number } | null;
  source: string;
}

/** The body of a QuotaView. */
export interface QuotaView {
  pools: PoolEntry[];
  quotas: QuotaEntry[];
}

/** What the view reads: the policy, its tree, the running jobs (placements complete) and their usage. */
export interface QuotaViewInput {
  policy: Policy;
  tree: QuotaTree;
  jobs: readonly RunningJob[];
  usage: UsageTable;
  /** Each quota's share where its tree has fair sharing (engine/quota-fair-shares.ts); absent = none has. */
  fairShares?: ReadonlyMap<string, QuotaFairShare>;
}

/** The quota tree with its usage. */
export function quotaView({ policy, tree, jobs, usage, fairShares }: QuotaViewInput): QuotaView {
  const n = tree.quotas.length;
  // GPUs per standing on each quota's own jobs, then summed up the tree.
  const own: Record<Standing | 'jobs', Float64Array> = { 'in-quota': new Float64Array(n), borrowing: new Float64Array(n), idle: new Float64Array(n), jobs: new Float64Array(n) };
  for (const j of jobs) {
    const q = tree.indexOf(j.quota);
    if (q < 0) continue;
    own[j.standing][q] = addGpu(own[j.standing][q]!, j.pods * j.resources.gpu);
    own.jobs[q]! += 1;
  }
  const subtree = (row: Float64Array): Float64Array => {
    const out = Float64Array.from(row);
    // Quotas are listed parents before children: adding each into its parent from the end sums subtrees.
    for (let i = n - 1; i >= 0; i--) {
      const p = tree.parentOf(i);
      if (p >= 0) out[p] = addGpu(out[p]!, out[i]!);
    }
    return out;
  };
  const inQuota = subtree(own['in-quota']);
  const borrowing = subtree(own.borrowing);
  const idle = subtree(own.idle);
  const count = subtree(own.jobs);
  const workspaces = new Map<string, string[]>();
  for (const w of policy.workspaces) for (const q of w.quotas) workspaces.set(q, [...(workspaces.get(q) ?? []), w.name]);
  const used = (i: number): number => usage[i]![0]!; // GPU is resource 0 of every usage row
  const free = (i: number): number => Math.max(0, addGpu(tree.at(i).min.gpu, -used(i)));
  const quotas = tree.quotas.map((q: Quota, i): QuotaEntry => {
    const parent = tree.parentOf(i);
    // Borrowers on the siblings: the jobs of standing borrowing whose own quota is a sibling (they borrow through the parent).
    let siblingsBorrow = 0;
    if (parent >= 0) for (const s of tree.at(parent).children) if (s !== q.name) siblingsBorrow = addGpu(siblingsBorrow, own.borrowing[tree.indexOf(s)] ?? 0);
    return {
      name: q.name,
      parent: q.parent,
      children: [...q.children],
      depth: tree.depth[i]!,
      pool: q.pool,
      workspaces: workspaces.get(q.name) ?? [],
      min: { ...q.min },
      max: q.max ? { ...q.max } : null,
      used: used(i),
      inQuota: inQuota[i]!,
      borrowing: borrowing[i]!,
      lent: Math.min(free(i), siblingsBorrow),
      idle: idle[i]!,
      free: free(i),
      jobs: count[i]!,
      reclaim: q.reclaim,
      ...(q.selfPreemption
        ? {
            selfPreemption: {
              highPriority: formatRange(q.selfPreemption.highPriority),
              lowPriority: formatRange(q.selfPreemption.lowPriority),
              modules: [...q.selfPreemption.modules],
              source: sourceText(q.selfPreemption.src),
            },
          }
        : {}),
      ...(q.childPreemption
        ? { childPreemption: { preemptiblePriority: formatRange(q.childPreemption.preemptiblePriority), modules: [...q.childPreemption.modules], source: sourceText(q.childPreemption.src) } }
        : {}),
      ...(q.kueue ? { fairShare: fairShareOf(fairShares?.get(q.name)) } : {}),
      source: sourceText(q.src),
    };
  });
  const nodes = policy.cluster?.nodes ?? [];
  const pools = policy.pools.map((p): PoolEntry => {
    const mine = nodes.filter((nd) => nd.pool === p.name);
    return { name: p.name, type: p.type, nodes: mine.length, gpus: mine.reduce((s, nd) => s + nd.gpus, 0), cordonedNodes: mine.filter((nd) => nd.unschedulable).length };
  });
  return { pools, quotas };
}

/** A quota's share as the view writes it: null when its tree has no fair sharing. */
function fairShareOf(s: QuotaFairShare | undefined): QuotaEntry['fairShare'] {
  if (s === undefined) return null;
  return { weightedShare: shareJson(s.weightedShare), weight: s.weight };
}
