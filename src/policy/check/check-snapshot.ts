/**
 * Whole-snapshot checks, after every job is built: roots within their pool's capacity
 * (SEMANTICS 1), quota usage within `min` (invariant 2) and within `max` (invariant 10),
 * and node cpu/memory (invariant 1).
 */
import type { Cluster, Pool, Quota } from '../../model/policy.js';
import { QuotaTree } from '../../model/quota-tree.js';
import { countsAt, countsAtCeiling, totalRequest } from '../../model/usage-rule.js';
import { formatAmount } from '../../model/resources.js';
import { addGpu, isGpuShare } from '../../model/resources.js';
import type { Collector } from '../collector.js';
import type { JobOrigins } from '../build/build-cluster.js';
import type { QuotaBuild } from '../build/build-quotas.js';

/** The resources a node may cap besides GPUs, in the order their findings come. */
const TRACKED = ['cpu', 'memory'] as const;
/** Every resource, in the order usage is checked. */
const RESOURCES = ['gpu', 'cpu', 'memory'] as const;

/** Runs every snapshot check. */
export function checkSnapshot(c: Collector, cluster: Cluster, pools: Pool[], qb: QuotaBuild, origins: JobOrigins): void {
  checkRootsFitPools(c, cluster, pools, qb);
  checkQuotaUsage(c, cluster, qb.quotas, origins);
  checkQuotaCeilings(c, cluster, qb.quotas, origins);
  checkNodeCapacity(c, cluster, origins);
}

function checkRootsFitPools(c: Collector, cluster: Cluster, pools: Pool[], qb: QuotaBuild): void {
  for (const pool of pools) {
    // Kueue does not bound nominal quota by the nodes (SEMANTICS 12: quota alone decides admission).
    if (pool.rules === 'kueue') continue;
    const capacity = cluster.nodes.filter((n) => n.pool === pool.name).reduce((s, n) => s + n.gpus, 0);
    const roots = qb.quotas.filter((q) => q.parent === null && q.pool === pool.name);
    const total = roots.reduce((s, q) => s + q.min.gpu, 0);
    if (roots.length === 0 || total <= capacity) continue;
    // Located at the largest root (the first of equals): lowering it is the one change
    // most likely to fit, and the hint says by how much.
    const q = roots.reduce((a, b) => (b.min.gpu > a.min.gpu ? b : a));
    const over = total - capacity;
    const at = qb.quotaDocs.get(q.name)!;
    const noNodes = `the Cluster has no nodes in pool "${pool.name}"; add them`;
    c.error(
      at.sd,
      [...at.path, 'min', 'gpu'],
      'policy/root-exceeds-pool',
      roots.length > 1
        ? `root quotas ${roots.map((r) => `"${r.name}" (${r.min.gpu})`).join(' + ')} guarantee ${total} GPUs but pool "${pool.name}" has ${capacity} in the snapshot`
        : `root quota "${q.name}" guarantees ${total} GPUs but pool "${pool.name}" has ${capacity} in the snapshot`,
      capacity === 0
        ? noNodes
        : roots.length === 1
          ? `lower min.gpu to ${capacity} or less, or add nodes to pool "${pool.name}"`
          : over <= q.min.gpu
            ? `take ${over} GPUs off the roots' mins together (e.g. "${q.name}" from ${q.min.gpu} to ${q.min.gpu - over}), or add nodes to pool "${pool.name}"`
            : `take ${over} GPUs off the roots' mins together (more than "${q.name}", the largest, holds), or add nodes to pool "${pool.name}"`,
    );
  }
}

/** Invariant 2: in-quota usage ≤ min everywhere; borrowing jobs exceed only their own quota's min. */
function checkQuotaUsage(c: Collector, cluster: Cluster, quotas: Quota[], origins: JobOrigins): void {
  const tree = new QuotaTree(quotas);
  // Usage per quota, gpu / cpu / memory (RESOURCES order), summed as usage-rule.ts sums it.
  const usage = quotas.map(() => new Float64Array(RESOURCES.length));
  const reported = new Set<number>();
  for (const job of cluster.jobs) {
    if (job.standing === 'idle') continue;
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    // q and its ancestors, up to the root (pathToRoot's order, without its list).
    for (let a = q; a !== -1; a = tree.parentOf(a)) {
      // A borrower is over its own quota's min by design (SEMANTICS 5.2): not counted there.
      if (!countsAt(tree, job.standing, q, a)) continue;
      // Under Kueue's rules a ClusterQueue over nominal is borrowing, its jobs need no standing (SEMANTICS 12).
      if (tree.at(a).kueue) continue;
      const min = tree.at(a).min;
      const used = usage[a]!; // one row per quota
      // GPU sums of shares stay in whole milli-GPUs, or 0.2 + 0.684 + 0.116 would exceed 1.
      // Each resource by its own name (a read keyed by a variable name goes megamorphic), in RESOURCES order.
      used[0] = addGpu(used[0]!, need.gpu);
      if (min.gpu !== undefined && used[0] > min.gpu && !reported.has(a)) reportOver(c, origins, tree, job.name, q, a, 'gpu', used[0], min.gpu, reported);
      used[1] = used[1]! + need.cpu;
      if (min.cpu !== undefined && used[1] > min.cpu && !reported.has(a)) reportOver(c, origins, tree, job.name, q, a, 'cpu', used[1], min.cpu, reported);
      used[2] = used[2]! + need.memory;
      if (min.memory !== undefined && used[2] > min.memory && !reported.has(a)) reportOver(c, origins, tree, job.name, q, a, 'memory', used[2], min.memory, reported);
    }
  }
}

/** The over-quota finding of quota `a` (once per quota), at the quota field of the job that took it over. */
function reportOver(c: Collector, origins: JobOrigins, tree: QuotaTree, job: string, q: number, a: number, r: (typeof RESOURCES)[number], used: number, min: number, reported: Set<number>): void {
  reported.add(a);
  const quota = tree.at(a);
  const o = origins.get(job)!;
  const borrowingHint =
    a === q
      ? `mark jobs over "${quota.name}"'s guarantee with standing: borrowing (if its siblings lend), or idle, or remove them`
      : `the jobs below "${quota.name}" use more than it guarantees; a borrower may exceed only its own quota, never the parent it borrows through`;
  c.error(
    o.sd,
    [...o.path, 'quota'],
    'policy/over-quota',
    `with job "${job}", usage of quota "${quota.name}" reaches ${formatAmount(r, used)}, above its min of ${formatAmount(r, min)}`,
    borrowingHint,
  );
}

/**
 * Invariant 10: the in-quota and borrowing usage of each quota's subtree, its own
 * borrowers included, within its `max`. Reported once per quota and resource, at the
 * quota field of the job that took it over.
 */
function checkQuotaCeilings(c: Collector, cluster: Cluster, quotas: Quota[], origins: JobOrigins): void {
  if (!quotas.some((q) => q.max)) return;
  const tree = new QuotaTree(quotas);
  const usage = quotas.map(() => new Float64Array(RESOURCES.length));
  const reported = new Set<string>();
  for (const job of cluster.jobs) {
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    for (let a = q; a !== -1; a = tree.parentOf(a)) {
      if (!countsAtCeiling(tree, job.standing, q, a)) continue;
      const quota = tree.at(a);
      RESOURCES.forEach((r, i) => {
        const used = (usage[a]![i] = i === 0 ? addGpu(usage[a]![i]!, need[r]) : usage[a]![i]! + need[r]);
        const max = quota.max?.[r];
        if (max === undefined || used <= max || reported.has(`${a}:${r}`)) return;
        reported.add(`${a}:${r}`);
        const o = origins.get(job.name)!;
        c.error(
          o.sd,
          [...o.path, 'quota'],
          'policy/over-max',
          `with job "${job.name}", the in-quota and borrowing jobs of quota "${quota.name}" use ${formatAmount(r, used)}, above its max of ${formatAmount(r, max)}`,
          `a ceiling bounds every in-quota and borrowing job below "${quota.name}", borrowers included: mark jobs over it idle, remove them, or raise max.${r}`,
        );
      });
    }
  }
}

function checkNodeCapacity(c: Collector, cluster: Cluster, origins: JobOrigins): void {
  // What the pods on each node hold so far, by node index (a node's name, as placements give it, maps to its index).
  const nodes = cluster.nodes;
  const at = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) at.set(nodes[i]!.name, i);
  const gpus = new Float64Array(nodes.length);
  const used = { cpu: new Float64Array(nodes.length), memory: new Float64Array(nodes.length) };
  // GPUs of each node that sharing pods use, made only for nodes with sharing pods.
  const shared = new Map<number, Set<number>>();
  for (const job of cluster.jobs) {
    const share = isGpuShare(job.resources.gpu);
    const need = { cpu: job.resources.cpu ?? 0, memory: job.resources.memory ?? 0 };
    for (let pi = 0; pi < job.placement.length; pi++) {
      const p = job.placement[pi]!;
      const i = at.get(p.node)!;
      const node = nodes[i]!;
      // Pods given by GPU count only (their indices come later) must still fit the node's GPUs;
      // a GPU that sharing pods split counts once (build-cluster kept its shares within 1 GPU).
      if (share) {
        const g = p.gpus[0]!;
        let onNode = shared.get(i);
        if (onNode === undefined) {
          onNode = new Set<number>();
          shared.set(i, onNode);
        }
        gpus[i] = gpus[i]! + (onNode.has(g) ? 0 : 1);
        onNode.add(g);
      } else gpus[i] = gpus[i]! + (p.indicesAssigned ? job.resources.gpu : p.gpus.length);
      if (gpus[i] > node.gpus) {
        const o = origins.get(job.name)!;
        c.error(
          o.sd,
          [...o.path, 'placement', pi, 'node'],
          'policy/node-overcommitted',
          `node "${p.node}" has ${node.gpus} GPUs but its pods hold ${gpus[i]} once job "${job.name}" is on it`,
          'place the pod elsewhere, or give the GPU indices each pod holds',
        );
        gpus[i] = -Infinity;
      }
      for (const r of TRACKED) {
        const u = used[r];
        u[i] = u[i]! + need[r];
        const cap = node[r];
        if (cap !== undefined && u[i] > cap) {
          const o = origins.get(job.name)!;
          c.error(
            o.sd,
            [...o.path, 'placement', pi, 'node'],
            'policy/node-overcommitted',
            `node "${p.node}" has ${formatAmount(r, cap)} but its pods ask for ${formatAmount(r, u[i])} once job "${job.name}" is on it`,
            `place the pod elsewhere or lower resources.${r}`,
          );
          u[i] = -Infinity; // report a node once per resource
        }
      }
    }
  }
}
