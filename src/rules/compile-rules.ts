/**
 * Policy → json-rules-engine rules. Each preemption clause of the policy becomes one
 * named rule carrying its file:line:col; the built-in reclaim of idle capacity and of
 * borrowed shares becomes rules too, so that every victim in an answer is explained by
 * a rule a person can read (`quotient explain` prints them).
 *
 * Rule precedence (lower `order` wins when several rules make a job eligible; the
 * answer names that rule): reclaim of idle jobs, reclaim of borrowed shares,
 * self-level, child-level. Reclaim comes first because it needs no policy: borrowed
 * capacity always returns to its owner (SEMANTICS 4, 5.2).
 *
 * Which rules serve a preemptor that would run `borrowing` is a condition of the rules
 * (the `preemptorTarget` fact): reclaim of a lent share serves only jobs that run in
 * quota (SEMANTICS 5.1). Who may run borrowing at all is a rule too, `<Q>/borrowing`
 * (kind `borrow`, SEMANTICS 5.2), on the preemptor's facts alone: it makes no victim
 * (its event is `borrow`, not `eligible`) and is tabulated per (quota, priority) by
 * borrowing-table.ts.
 */
import type { ConditionProperties, RuleProperties, TopLevelCondition } from 'json-rules-engine';
import { borrowingOf } from '../model/borrowing.js';
import type { Module, Policy, Quota } from '../model/policy.js';
import { formatRange, type PriorityRange } from '../model/priority.js';
import { sourceText, type Source } from '../model/source.js';

/** The kinds of rule that make victims eligible (SEMANTICS 5.1). */
export type VictimRuleKind = 'reclaim-idle' | 'reclaim-borrowed' | 'self' | 'child';
/** Every kind: the victim rules, and who may run borrowing (SEMANTICS 5.2). */
export type RuleKind = VictimRuleKind | 'borrow';

/** A compiled rule with what explanations need. */
export interface CompiledRule {
  /** e.g. `Quota1/childPreemption`, `Quota1.1/reclaim`, `reclaim/idle`. */
  name: string;
  kind: RuleKind;
  /** The quota the rule belongs to ('' for the built-in idle reclaim). */
  quota: string;
  /** file:line:col of the clause, or `built-in`. */
  source: string;
  order: number;
  /** The json-rules-engine rule. */
  rule: RuleProperties;
  /** One sentence: who may preempt whom under this rule. */
  summary: string;
}

const ORDER: Record<RuleKind, number> = { 'reclaim-idle': 0, 'reclaim-borrowed': 1, self: 2, child: 3, borrow: 4 };

/** Compiles every rule of the policy. */
export function compileRules(policy: Policy): CompiledRule[] {
  const rules: CompiledRule[] = [idleReclaimRule()];
  for (const q of policy.quotas) {
    const r = borrowedReclaimRule(q);
    if (r) rules.push(r);
  }
  for (const q of policy.quotas) if (q.selfPreemption) rules.push(selfRule(q));
  for (const q of policy.quotas) if (q.childPreemption) rules.push(childRule(q));
  for (const q of policy.quotas) {
    const r = borrowRule(q);
    if (r) rules.push(r);
  }
  return rules;
}

function make(name: string, kind: RuleKind, quota: string, src: Source | 'built-in', conditions: TopLevelCondition, summary: string): CompiledRule {
  const order = ORDER[kind];
  let source: string | undefined;
  return {
    name,
    kind,
    quota,
    // file:line:col, worked out when first printed: the policy's positions are parsed on demand.
    get source(): string {
      source ??= src === 'built-in' ? src : sourceText(src);
      return source;
    },
    order,
    summary,
    // json-rules-engine runs higher priority first; events are sorted by `order` later anyway.
    rule: { name, priority: 10 - order, conditions, event: { type: kind === 'borrow' ? 'borrow' : 'eligible', params: { rule: name, kind } } },
  };
}

function inPriority(fact: string, range: PriorityRange) {
  return [
    { fact, operator: 'greaterThanInclusive', value: range.lo },
    { fact, operator: 'lessThanInclusive', value: range.hi },
  ];
}

function idleReclaimRule(): CompiledRule {
  return make(
    'reclaim/idle',
    'reclaim-idle',
    '',
    'built-in',
    { all: [{ fact: 'victimStanding', operator: 'equal', value: 'idle' }] },
    'a job that runs on quota (admissible in quota, or borrowing under its quota’s borrowing rule) may preempt idle jobs of any quota to get room: idle capacity always returns to the quota tree',
  );
}

/** A lender L takes back what its siblings borrowed through L's parent, per L's `reclaim`. */
function borrowedReclaimRule(q: Quota): CompiledRule | undefined {
  if (q.parent === null || q.reclaim === 'never') return undefined;
  const all: ConditionProperties[] = [
    // SEMANTICS 5.1: the lender's later in-quota jobs reclaim; a job that would itself borrow does not.
    { fact: 'preemptorTarget', operator: 'equal', value: 'in-quota' },
    { fact: 'victimStanding', operator: 'equal', value: 'borrowing' },
    { fact: 'relation', operator: 'in', value: ['sibling', 'lent'] },
    { fact: 'lender', operator: 'equal', value: q.name },
  ];
  if (q.reclaim === 'lower-priority') all.push({ fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } });
  const who = q.reclaim === 'lower-priority' ? 'borrowing jobs of lower priority than the reclaiming job' : 'any borrowing job';
  return make(
    `${q.name}/reclaim`,
    'reclaim-borrowed',
    q.name,
    q.reclaimSrc,
    { all },
    `jobs on ${q.name} or below it that run in quota may take back what ${q.name} lent: ${who} on its same-level quotas (reclaim: ${q.reclaim})`,
  );
}

function selfRule(q: Quota): CompiledRule {
  const sp = q.selfPreemption!;
  return make(
    `${q.name}/selfPreemption`,
    'self',
    q.name,
    sp.src,
    {
      all: [
        { fact: 'preemptorQuota', operator: 'equal', value: q.name },
        ...inPriority('preemptorPriority', sp.highPriority),
        { fact: 'relation', operator: 'in', value: ['self', 'sibling'] },
        { fact: 'victimStanding', operator: 'in', value: ['in-quota', 'borrowing'] },
        ...inPriority('victimPriority', sp.lowPriority),
        // SEMANTICS 5: never a victim of equal or higher priority under self-level preemption.
        { fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } },
        { fact: 'victimModule', operator: 'in', value: sp.modules },
      ],
    },
    `jobs of priority ${formatRange(sp.highPriority)} on ${q.name} may preempt ${modulesText(sp.modules)} jobs of priority ${formatRange(sp.lowPriority)} on ${q.name} and its same-level quotas`,
  );
}

function childRule(q: Quota): CompiledRule {
  const cp = q.childPreemption!;
  return make(
    `${q.name}/childPreemption`,
    'child',
    q.name,
    cp.src,
    {
      all: [
        { fact: 'preemptorQuota', operator: 'equal', value: q.name },
        { fact: 'relation', operator: 'equal', value: 'descendant' },
        ...inPriority('victimPriority', cp.preemptiblePriority),
        { fact: 'victimModule', operator: 'in', value: cp.modules },
      ],
    },
    `jobs submitted to ${q.name} may preempt ${modulesText(cp.modules)} jobs of priority ${formatRange(cp.preemptiblePriority)} on the quotas below ${q.name}`,
  );
}

/**
 * SEMANTICS 5.2: who may run borrowing on `q` (model/borrowing.ts: `borrowing.priority`,
 * else selfPreemption's highPriority; none on a root or without either).
 */
function borrowRule(q: Quota): CompiledRule | undefined {
  const b = borrowingOf(q);
  if (!b) return undefined;
  return make(
    b.rule,
    'borrow',
    q.name,
    b.src,
    { all: [{ fact: 'preemptorQuota', operator: 'equal', value: q.name }, ...inPriority('preemptorPriority', b.priority)] },
    `jobs of priority ${formatRange(b.priority)} on ${q.name} may run borrowing: over ${q.name}'s own guarantee, on what its same-level quotas under ${q.parent} leave unused, without victims or with the victims its rules allow (${b.from})`,
  );
}

/** `DLC or DSW`. */
export function modulesText(modules: Module[]): string {
  return modules.length <= 1 ? modules.join('') : `${modules.slice(0, -1).join(', ')} or ${modules[modules.length - 1]}`;
}
