/**
 * The clauses of a Kueue-rules quota in words, for `quotient explain` (SEMANTICS 12): a
 * ClusterQueue's preemption policy, flavors with their quota, fungibility and queueing,
 * with the line each is written at. Kueue's algorithm, not compiled rules, decides these
 * quotas' answers, so this is what explain can tell of them.
 */
import type { Quota } from '../../model/policy.js';
import { sourceText } from '../../model/source.js';

/** One entry per quota of a Kueue-rules tree: its name, where it is written, and its clauses in a sentence. */
export function explainKueueQuotas(quotas: readonly Quota[]): Array<{ name: string; source: string; summary: string }> {
  return quotas
    .filter((q) => q.kueue)
    .map((q) => {
      const k = q.kueue!;
      const flavors = k.resourceGroups
        .map((g) =>
          g.flavors
            .map(
              (f) =>
                `${f.name} (${f.resources.map((r) => `${r.name} ${amount(r.name, r.nominalQuota)}${r.borrowingLimit === undefined ? '' : ` +${amount(r.name, r.borrowingLimit)} borrowing`}${r.lendingLimit === undefined ? '' : `, lends ${amount(r.name, r.lendingLimit)}`}`).join(', ')})`,
            )
            .join(' then '),
        )
        .join('; ');
      const quota = flavors ? `quota per flavor, tried in this order: ${flavors}` : 'no quota of its own';
      if (k.kind === 'Cohort') return { name: q.name, source: sourceText(q.src), summary: `Kueue Cohort of ${q.children.join(', ')}; ${quota}` };
      const p = k.preemption!;
      const borrow =
        p.borrowWithinCohort.policy === 'Never'
          ? 'Never'
          : `${p.borrowWithinCohort.policy}${p.borrowWithinCohort.maxPriorityThreshold === undefined ? '' : ` up to priority ${p.borrowWithinCohort.maxPriorityThreshold}`}`;
      const ff = k.flavorFungibility!;
      return {
        name: q.name,
        source: sourceText(p.src),
        summary:
          `Kueue ClusterQueue${q.parent ? ` in cohort ${q.parent}` : ''}: preempts within the queue ${p.withinClusterQueue}, reclaims within the cohort ${p.reclaimWithinCohort}, while borrowing ${borrow}; ` +
          `${quota}; whenCanBorrow ${ff.whenCanBorrow}, whenCanPreempt ${ff.whenCanPreempt}; ${k.queueingStrategy}`,
      };
    });
}

/** An amount as Kubernetes writes it: cpu in cores (the model holds millicores), memory in Mi. */
function amount(resource: string, v: number): string {
  if (resource === 'cpu') return v % 1000 === 0 ? String(v / 1000) : `${v}m`;
  if (resource === 'memory') return `${v}Mi`;
  return String(v);
}
