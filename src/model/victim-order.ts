/**
 * The policy's words for SEMANTICS 5.3's criteria (a QuotaTree's `victimOrder`), in
 * SEMANTICS' own order, which is the default. The kernel numbers the same criteria 1..5
 * in this order (src/kernel/victim-order.ts, assembly/criteria.ts); the engine maps one
 * to the other (engine/preemption-problem.ts).
 */
export const VICTIM_CRITERIA = ['priority', 'lost-work', 'gpus', 'count', 'recency'] as const;

/** One criterion's name in a policy. */
export type VictimCriterion = (typeof VICTIM_CRITERIA)[number];

/** What each criterion prefers, as an answer explains it. */
export const VICTIM_CRITERION_TEXT: Readonly<Record<VictimCriterion, string>> = {
  priority: 'the least important most important victim (idle before borrowing before in-quota, then the lower priority)',
  'lost-work': 'less work lost in total',
  gpus: 'fewer GPUs freed',
  count: 'fewer victims',
  recency: 'more recently started victims',
};

/** True when `order` is SEMANTICS 5.3's own. */
export function isDefaultVictimOrder(order: readonly VictimCriterion[]): boolean {
  return order.length === VICTIM_CRITERIA.length && order.every((c, i) => c === VICTIM_CRITERIA[i]);
}
