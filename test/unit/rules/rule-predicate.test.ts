import { describe, expect, it } from 'vitest';
import type { RuleProperties } from 'json-rules-engine';
import { makeEngine } from '../../../src/rules/evaluate-rules.js';
import type { EligibilityFacts } from '../../../src/rules/facts.js';
import { rulePredicate } from '../../../src/rules/rule-predicate.js';

const engine = makeEngine([]);
const facts = (over: Partial<EligibilityFacts> = {}): EligibilityFacts => ({
  preemptorQuota: 'A',
  preemptorPriority: 7,
  relation: 'sibling',
  lender: 'A',
  victimPriority: 3,
  victimModule: 'DLC',
  victimStanding: 'borrowing',
  ...over,
});
const rule = (all: unknown[]): RuleProperties => ({ conditions: { all } as never, event: { type: 'eligible' } });

describe('rulePredicate', () => {
  it('judges each condition with the engine operators and splits victim-only conditions from the rest', () => {
    const p = rulePredicate(
      rule([
        { fact: 'preemptorQuota', operator: 'equal', value: 'A' },
        { fact: 'victimModule', operator: 'in', value: ['DLC', 'DSW'] },
        { fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } },
      ]),
      engine,
    )!;
    expect(p.othersReadVictim).toBe(true);
    expect(p.victimOnly(facts())).toBe(true);
    expect(p.victimOnly(facts({ victimModule: 'EAS' }))).toBe(false);
    expect(p.others(facts())).toBe(true);
    expect(p.others(facts({ victimPriority: 7 }))).toBe(false);
    expect(p.others(facts({ preemptorQuota: 'B' }))).toBe(false);
  });

  it('gives no predicate for a shape it does not read, so the engine decides', () => {
    expect(rulePredicate(rule([{ any: [{ fact: 'relation', operator: 'equal', value: 'self' }] }]), engine)).toBeUndefined();
    expect(rulePredicate(rule([{ fact: 'unknownFact', operator: 'equal', value: 1 }]), engine)).toBeUndefined();
    expect(rulePredicate(rule([{ fact: 'relation', operator: 'noSuchOperator', value: 1 }]), engine)).toBeUndefined();
    expect(rulePredicate({ conditions: { any: [] }, event: { type: 'eligible' } }, engine)).toBeUndefined();
  });
});
