/**
 * Whether a quota scaling may be applied (SEMANTICS 1 and 9): with the new `min.gpu`
 * values the children of every quota still fit their parent, the roots of a pool still
 * fit the pool's nodes, and no quota is left above its new min after its newest
 * lowest-priority jobs turned borrowing (model/rescale.ts). Findings point at the
 * `set` entry that breaks the rule.
 */
import type { Cluster, Pool, Quota, ScaleQuota } from '../../model/policy.js';
import { rescaleStandings } from '../../model/rescale.js';
import type { Source } from '../../model/source.js';
import type { Collector } from '../collector.js';

/** Checks every scaling; the pool and usage checks need a snapshot. */
export function checkScales(c: Collector, scales: ScaleQuota[], quotas: Quota[], pools: Pool[], cluster: Cluster | undefined): void {
  for (const s of scales) checkScale(c, s, quotas, pools, cluster);
}

/** Checks one scaling. */
export function checkScale(c: Collector, s: ScaleQuota, quotas: Quota[], pools: Pool[], cluster: Cluster | undefined): void {
  const newMin = new Map(s.set.map((e) => [e.quota, e.gpu]));
  const srcOf = new Map<string, Source>(s.set.map((e) => [e.quota, e.src]));
  const min = (q: Quota) => newMin.get(q.name) ?? q.min.gpu;
  for (const p of quotas) {
    const children = quotas.filter((q) => q.parent === p.name);
    if (children.length === 0 || (!newMin.has(p.name) && !children.some((ch) => newMin.has(ch.name)))) continue;
    const sum = children.reduce((t, ch) => t + min(ch), 0);
    if (sum <= min(p)) continue;
    const at = srcOf.get(p.name) ?? srcOf.get(children.find((ch) => newMin.has(ch.name) && min(ch) > ch.min.gpu)?.name ?? '') ?? srcOf.get(children.find((ch) => newMin.has(ch.name))!.name)!;
    c.errorAt(
      at,
      'policy/scale-children-exceed-parent',
      `after scaling "${s.name}", the children of "${p.name}" guarantee ${sum} GPUs (${children.map((ch) => `${ch.name} ${min(ch)}`).join(' + ')}) but "${p.name}" has ${min(p)}`,
      `lower a child by ${sum - min(p)} GPUs in the same scaling, or raise ${p.name} to at least ${sum}`,
    );
  }
  // SEMANTICS 3: a ceiling is at least the guarantee; a scaling may not lift a min above its quota's max.
  for (const e of s.set) {
    const cap = quotas.find((q) => q.name === e.quota)?.max?.gpu;
    if (cap === undefined || e.gpu <= cap) continue;
    c.errorAt(
      e.src,
      'policy/scale-above-max',
      `after scaling "${s.name}", quota "${e.quota}" would guarantee ${e.gpu} GPUs, above its max of ${cap}`,
      `scale ${e.quota} to ${cap} GPUs or less, or raise its max.gpu first`,
    );
  }
  if (!cluster) return;
  for (const pool of pools) {
    const roots = quotas.filter((q) => q.parent === null && q.pool === pool.name);
    const last = roots.filter((r) => newMin.has(r.name)).at(-1);
    if (last === undefined) continue;
    const capacity = cluster.nodes.filter((n) => n.pool === pool.name).reduce((t, n) => t + n.gpus, 0);
    const total = roots.reduce((t, r) => t + min(r), 0);
    if (total > capacity) {
      c.errorAt(
        srcOf.get(last.name)!,
        'policy/scale-root-exceeds-pool',
        `after scaling "${s.name}", the root quotas of pool "${pool.name}" guarantee ${total} GPUs but its nodes have ${capacity}`,
        `keep the roots at ${capacity} GPUs or less, or add nodes to pool "${pool.name}"`,
      );
    }
  }
  for (const o of rescaleStandings(quotas, cluster.jobs, newMin).over) {
    const q = quotas.find((x) => x.name === o.quota)!;
    c.errorAt(
      srcOf.get(o.quota)!,
      'policy/scale-below-usage',
      `after scaling "${s.name}", quota "${o.quota}" would use ${o.used} GPUs above its new min of ${o.min}, and ${q.parent === null ? 'a root quota has no same-level quota to borrow from' : 'the jobs below it that count there cannot be turned borrowing'}`,
      `scale ${o.quota} to at least ${o.used} GPUs, or stop or move some of its jobs first`,
    );
  }
}
