/**
 * Kueue's `borrowingLimit` → a Quotient ceiling (SEMANTICS 3, `max`). Kueue bounds what a
 * ClusterQueue (or Cohort) may borrow beyond its nominal quota, per flavor and resource;
 * Quotient bounds what the quota's subtree may use in all. Summed over flavors, the two
 * agree when every flavor of a resource has a limit: max = nominal + limit. A resource
 * that some flavor leaves unlimited has no ceiling, and a warning says which flavor.
 */
import type { PathSeg } from '../policy/parse/source-doc.js';
import type { Report } from './located-json.js';
import type { LocatedQuota, TreeQuota } from './tree-quota.js';

type Resource = 'gpu' | 'cpu' | 'memory';

/** What a quota's resource groups say about borrowing limits. */
export interface CeilingParts {
  /** The limits, summed over flavors (gpu 0 when none). */
  limit: TreeQuota['min'];
  /** Resources some flavor gives a borrowingLimit. */
  limited: Set<Resource>;
  /** Flavors that give a resource's nominalQuota without a borrowingLimit. */
  unlimited: Array<{ resource: Resource; flavor: string; path: PathSeg[] }>;
}

/** The quota's `max` (after its `min` is final), or undefined when no resource is bounded. */
export function borrowingLimits(q: LocatedQuota, parts: CeilingParts, report: Report): TreeQuota['max'] {
  const max: NonNullable<TreeQuota['max']> = {};
  for (const r of parts.limited) {
    const open = parts.unlimited.find((u) => u.resource === r);
    if (open) {
      report.warn(
        q.sd,
        open.path,
        'interop/partial-borrowing-limit',
        `${q.objectName ?? q.name}: flavor ${open.flavor} gives ${r} no borrowingLimit while another flavor does; Quotient's max bounds the quota's ${r} over all flavors, so ${r} is left without a ceiling`,
        `give every flavor's ${r} a borrowingLimit to carry the ceiling over`,
      );
      continue;
    }
    const limit = parts.limit[r] ?? 0;
    max[r] = (q.min[r] ?? 0) + limit;
    (q.notes ??= []).push(r === 'gpu' ? `max.gpu ${max.gpu}: nominal quota ${q.min.gpu} + borrowingLimit ${limit}` : `max.${r}: nominal quota + borrowingLimit`);
  }
  return Object.keys(max).length ? max : undefined;
}
