/**
 * A rule is judged once for every table (rules/judge-rule.ts): its predicate, its
 * victim-only answers per victim combination, and a shape id that rules reading alike share.
 */
import { describe, expect, it } from 'vitest';
import type { ConditionProperties } from 'json-rules-engine';
import type { CompiledRule } from '../../../src/rules/compile-rules.js';
import { comboIndex, victimCombos } from '../../../src/rules/facts.js';
import { placeholderFacts, RuleJudge } from '../../../src/rules/judge-rule.js';

/** A self-level rule of `quota` over victims of priority `lo`-`hi`, as compile-rules.ts writes one. */
function selfRule(quota: string, lo: number, hi: number): CompiledRule {
  const all: ConditionProperties[] = [
    { fact: 'preemptorQuota', operator: 'equal', value: quota },
    { fact: 'victimPriority', operator: 'greaterThanInclusive', value: lo },
    { fact: 'victimPriority', operator: 'lessThanInclusive', value: hi },
    { fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } },
  ];
  const name = `${quota}/selfPreemption`;
  return { name, kind: 'self', quota, source: 'built-in', order: 2, summary: '', rule: { name, conditions: { all }, event: { type: 'eligible', params: { rule: name } } } };
}

describe('rule judge', () => {
  it('judges each rule once and answers its victim-only conditions per victim combination', () => {
    const judge = new RuleJudge();
    const r = selfRule('A', 2, 4);
    const j = judge.judge(r)!;
    expect(judge.judge(r)).toBe(j);
    expect(j.victimOk.length).toBe(victimCombos().length);
    expect(j.victimOk[comboIndex(3, 'DLC', 'in-quota')]).toBe(1);
    expect(j.victimOk[comboIndex(5, 'DLC', 'in-quota')]).toBe(0);
    expect(j.victimOk[comboIndex(1, 'DSW', 'idle')]).toBe(0);
  });

  it('shares answers and the shape between rules that read alike, and not between rules that differ', () => {
    const judge = new RuleJudge();
    const a = judge.judge(selfRule('A', 2, 4))!;
    const b = judge.judge(selfRule('B', 2, 4))!;
    const c = judge.judge(selfRule('C', 1, 4))!;
    expect(b.victimOk).toBe(a.victimOk);
    expect(b.shape).toBe(a.shape);
    expect(c.victimOk).not.toBe(a.victimOk);
    expect(c.shape).not.toBe(a.shape);
  });

  it('leaves a rule whose conditions only the engine evaluates to the engine', () => {
    const r = selfRule('A', 2, 4);
    const any: CompiledRule = { ...r, rule: { ...r.rule, conditions: { any: [{ fact: 'victimPriority', operator: 'equal', value: 1 }] } } };
    expect(new RuleJudge().judge(any)).toBeNull();
  });

  it('gives fresh placeholder facts for each caller to overwrite', () => {
    const f = placeholderFacts('A', 7);
    expect(f).toMatchObject({ preemptorQuota: 'A', preemptorPriority: 7 });
    f.victimPriority = 3;
    expect(placeholderFacts('A', 7).victimPriority).toBe(0);
  });
});
