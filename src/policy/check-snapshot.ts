/**
 * Whole-snapshot checks, after every job is built: roots within their pool's capacity
 * (SEMANTICS 1), quota usage within `min` (invariant 2) and node cpu/memory (invariant 1).
 */
import type { Cluster, Pool, Quota } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { countsAt, totalRequest } from '../model/usage-rule.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import { addGpu, isGpuShare } from '../model/resources.js';
import type { Collector } from './collector.js';
import type { JobOrigins } from './build-cluster.js';
import type { QuotaBuild } from './build-quotas.js';

const SHOW = { gpu: (v: number) => `${v} GPU`, cpu: (v: number) => `${formatCpu(v)} cpu`, memory: (v: number) => formatMemory(v) } as const;

/** Runs every snapshot check. */
export function checkSnapshot(c: Collector, cluster: Cluster, pools: Pool[], qb: QuotaBuild, origins: JobOrigins): void {
  checkRootsFitPools(c, cluster, pools, qb);
  checkQuotaUsage(c, cluster, qb.quotas, origins);
  checkNodeCapacity(c, cluster, origins);
}

function checkRootsFitPools(c: Collector, cluster: Cluster, pools: Pool[], qb: QuotaBuild): void {
  for (const pool of pools) {
    const capacity = cluster.nodes.filter((n) => n.pool === pool.name).reduce((s, n) => s + n.gpus, 0);
    const roots = qb.quotas.filter((q) => q.parent === null && q.pool === pool.name);
    const total = roots.reduce((s, q) => s + q.min.gpu, 0);
    const q = roots.at(-1);
    if (q !== undefined && total > capacity) {
      const at = qb.quotaDocs.get(q.name)!;
      c.error(
        at.sd,
        [...at.path, 'min', 'gpu'],
        'policy/root-exceeds-pool',
        roots.length > 1
          ? `root quotas ${roots.map((r) => `"${r.name}" (${r.min.gpu})`).join(' + ')} guarantee ${total} GPUs but pool "${pool.name}" has ${capacity} in the snapshot`
          : `root quota "${q.name}" guarantees ${total} GPUs but pool "${pool.name}" has ${capacity} in the snapshot`,
        capacity === 0 ? `the Cluster has no nodes in pool "${pool.name}"; add them` : `lower min.gpu to ${capacity} or less, or add nodes to pool "${pool.name}"`,
      );
    }
  }
}

/** Invariant 2: in-quota usage ≤ min everywhere; borrowing jobs exceed only their own quota's min. */
function checkQuotaUsage(c: Collector, cluster: Cluster, quotas: Quota[], origins: JobOrigins): void {
  const tree = new QuotaTree(quotas);
  const usage = quotas.map(() => ({ gpu: 0, cpu: 0, memory: 0 }));
  const reported = new Set<number>();
  for (const job of cluster.jobs) {
    if (job.standing === 'idle') continue;
    const q = tree.indexOf(job.quota);
    const need = totalRequest(job);
    // q and its ancestors, up to the root (pathToRoot's order, without its list).
    for (let a = q; a !== -1; a = tree.parentOf(a)) {
      // A borrower is over its own quota's min by design (SEMANTICS 5.2): not counted there.
      if (!countsAt(tree, job.standing, q, a)) continue;
      const quota = tree.at(a);
      const used = usage[a]!; // one row per quota
      for (const r of ['gpu', 'cpu', 'memory'] as const) {
        // GPU sums of shares stay in whole milli-GPUs, or 0.2 + 0.684 + 0.116 would exceed 1.
        used[r] = r === 'gpu' ? addGpu(used[r], need[r]) : used[r] + need[r];
        const min = quota.min[r];
        if (min !== undefined && used[r] > min && !reported.has(a)) {
          reported.add(a);
          const o = origins.get(job.name)!;
          const borrowingHint =
            a === q
              ? `mark jobs over "${quota.name}"'s guarantee with standing: borrowing (if its siblings lend), or idle, or remove them`
              : `the jobs below "${quota.name}" use more than it guarantees; a borrower may exceed only its own quota, never the parent it borrows through`;
          c.error(
            o.sd,
            [...o.path, 'quota'],
            'policy/over-quota',
            `with job "${job.name}", usage of quota "${quota.name}" reaches ${SHOW[r](used[r])}, above its min of ${SHOW[r](min)}`,
            borrowingHint,
          );
        }
      }
    }
  }
}

function checkNodeCapacity(c: Collector, cluster: Cluster, origins: JobOrigins): void {
  const used = new Map<string, { cpu: number; memory: number; gpus: number; shared: Set<number> | undefined }>();
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  for (const job of cluster.jobs) {
    job.placement.forEach((p, pi) => {
      const node = nodes.get(p.node)!;
      let u = used.get(p.node);
      if (u === undefined) {
        u = { cpu: 0, memory: 0, gpus: 0, shared: undefined };
        used.set(p.node, u);
      }
      // Pods given by GPU count only (their indices come later) must still fit the node's GPUs;
      // a GPU that sharing pods split counts once (build-cluster kept its shares within 1 GPU).
      if (isGpuShare(job.resources.gpu)) {
        const g = p.gpus[0]!;
        const shared = (u.shared ??= new Set<number>());
        u.gpus += shared.has(g) ? 0 : 1;
        shared.add(g);
      } else u.gpus += p.indicesAssigned ? job.resources.gpu : p.gpus.length;
      if (u.gpus > node.gpus) {
        const o = origins.get(job.name)!;
        c.error(
          o.sd,
          [...o.path, 'placement', pi, 'node'],
          'policy/node-overcommitted',
          `node "${p.node}" has ${node.gpus} GPUs but its pods hold ${u.gpus} once job "${job.name}" is on it`,
          'place the pod elsewhere, or give the GPU indices each pod holds',
        );
        u.gpus = -Infinity;
      }
      u.cpu += job.resources.cpu ?? 0;
      u.memory += job.resources.memory ?? 0;
      for (const r of ['cpu', 'memory'] as const) {
        const cap = node[r];
        if (cap !== undefined && u[r] > cap) {
          const o = origins.get(job.name)!;
          c.error(
            o.sd,
            [...o.path, 'placement', pi, 'node'],
            'policy/node-overcommitted',
            `node "${p.node}" has ${SHOW[r](cap)} but its pods ask for ${SHOW[r](u[r])} once job "${job.name}" is on it`,
            `place the pod elsewhere or lower resources.${r}`,
          );
          u[r] = -Infinity; // report a node once per resource
        }
      }
    });
  }
}
