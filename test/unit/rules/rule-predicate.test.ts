import { describe, expect, it } from 'vitest';
import type { RuleProperties } from 'json-rules-engine';
import { makeEngine } from '../../../src/rules/evaluate-rules.js';
import type { EligibilityFacts } from '../../../src/rules/facts.js';
import { rulePredicate } from '../../../src/rules/rule-predicate.js';

const engine = makeEngine([]);
const facts = (over: Partial<EligibilityFacts> = {}): EligibilityFacts => ({
  preemptorQuota: 'A',
  preemptorPriority: 7,
  preemptorTarget: 'in-quota',
  relation: 'sibling',
  lender: 'A',
  victimPriority: 3,
  victimModule: 'DLC',
  victimStanding: 'borrowing',
  ...over,
});
const rule = (all: unknown[]): RuleProperties => ({ conditions: { all } as never, event: { type: 'eligible' } });

describe('rulePredicate', () => {
  it('judges each condition with the engine operators and splits victim-only, key and mixed conditions', () => {
    const p = rulePredicate(
      rule([
        { fact: 'preemptorQuota', operator: 'equal', value: 'A' },
        { fact: 'victimModule', operator: 'in', value: ['DLC', 'DSW'] },
        { fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } },
      ]),
      engine,
    )!;
    expect(p.hasMixed).toBe(true);
    expect(p.mixedReads).toEqual(['preemptorPriority']);
    expect(p.keyReads).toEqual(['preemptorQuota']);
    expect(p.reads).toEqual(['preemptorQuota', 'preemptorPriority']);
    expect(p.victimOnly(facts())).toBe(true);
    expect(p.victimOnly(facts({ victimModule: 'EAS' }))).toBe(false);
    expect(p.key(facts())).toBe(true);
    expect(p.key(facts({ preemptorQuota: 'B' }))).toBe(false);
    expect(p.mixed(facts())).toBe(true);
    expect(p.mixed(facts({ victimPriority: 7 }))).toBe(false);
  });

  it('names the victim-only and mixed conditions by their shape, whatever the key conditions say', () => {
    const victim = [{ fact: 'victimModule', operator: 'in', value: ['DLC'] }];
    const mixed = [{ fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } }];
    const a = rulePredicate(rule([{ fact: 'preemptorQuota', operator: 'equal', value: 'A' }, ...victim, ...mixed]), engine)!;
    const b = rulePredicate(rule([{ fact: 'preemptorQuota', operator: 'equal', value: 'B' }, ...victim, ...mixed]), engine)!;
    const c = rulePredicate(rule([{ fact: 'victimModule', operator: 'in', value: ['DSW'] }, ...mixed]), engine)!;
    const d = rulePredicate(rule([...victim, { fact: 'victimPriority', operator: 'lessThanInclusive', value: { fact: 'preemptorPriority' } }]), engine)!;
    expect(a.victimShape).toEqual(b.victimShape);
    expect(a.mixedShape).toEqual(b.mixedShape);
    expect(c.victimShape).not.toEqual(a.victimShape);
    expect(d.mixedShape).not.toEqual(a.mixedShape);
    // A constant that holds an object is never shared.
    expect(rulePredicate(rule([{ fact: 'victimModule', operator: 'in', value: [{ m: 'DLC' }] }]), engine)!.victimShape).toBeUndefined();
  });

  it('gives no predicate for a shape it does not read, so the engine decides', () => {
    expect(rulePredicate(rule([{ any: [{ fact: 'relation', operator: 'equal', value: 'self' }] }]), engine)).toBeUndefined();
    expect(rulePredicate(rule([{ fact: 'unknownFact', operator: 'equal', value: 1 }]), engine)).toBeUndefined();
    expect(rulePredicate(rule([{ fact: 'relation', operator: 'noSuchOperator', value: 1 }]), engine)).toBeUndefined();
    expect(rulePredicate({ conditions: { any: [] }, event: { type: 'eligible' } }, engine)).toBeUndefined();
  });
});
