/**
 * Which rules a preemptor quota's tables need to consider at all: a prefilter read off
 * each rule's own conditions (the quotas it is tied to), so that a 1,000-quota policy's
 * tables do not walk thousands of rules that can never fire for them.
 */
import type { CompiledRule } from './compile-rules.js';

/** Per rule, the quotas its own conditions tie it to (read once: a rule never changes). */
const ties = new WeakMap<CompiledRule, { preemptor?: string; lender?: string }>();

/**
 * Whether rule `r` can make victims for a preemptor whose quota path (itself first) is
 * `path`: a prefilter read off the rule's own conditions, so a table does not walk rules
 * that cannot fire. A rule that requires `preemptorQuota` to equal Q fires only for Q; one
 * that requires `lender` to equal L only on a path through L (the lender is always on the
 * preemptor's path); a `borrow` rule makes no victim. Everything else, the target standing
 * included, the conditions decide when the table is made (compile-rules.ts).
 */
export function mayFireOn(r: CompiledRule, path: readonly string[]): boolean {
  if (r.kind === 'borrow') return false;
  let tie = ties.get(r);
  if (!tie) {
    tie = {};
    const all = (r.rule.conditions as { all?: unknown[] }).all ?? [];
    for (const raw of all) {
      const c = raw as { fact?: unknown; operator?: unknown; value?: unknown };
      if (c.operator !== 'equal' || typeof c.value !== 'string') continue;
      if (c.fact === 'preemptorQuota') tie.preemptor = c.value;
      else if (c.fact === 'lender') tie.lender = c.value;
    }
    ties.set(r, tie);
  }
  if (tie.preemptor !== undefined && tie.preemptor !== path[0]) return false;
  return tie.lender === undefined || path.includes(tie.lender);
}
