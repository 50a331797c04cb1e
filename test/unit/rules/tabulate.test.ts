/**
 * Tabulating without the engine (rules/tabulate.ts): which rules' key conditions hold per
 * relation key, the winning rule per cell by precedence, and rows and cell arrays shared
 * between classes that provably agree.
 */
import { describe, expect, it } from 'vitest';
import type { ConditionProperties } from 'json-rules-engine';
import type { CompiledRule } from '../../../src/rules/compile-rules.js';
import { comboIndex, COMBOS_PER_RELATION, type RelationKey } from '../../../src/rules/facts.js';
import { RuleJudge, type Judged } from '../../../src/rules/judge-rule.js';
import { keyPassOf, Tabulator, type ClassRules } from '../../../src/rules/tabulate.js';

function rule(name: string, order: number, all: ConditionProperties[]): CompiledRule {
  return { name, kind: 'self', quota: '', source: 'built-in', order, summary: '', rule: { name, conditions: { all }, event: { type: 'eligible', params: { rule: name } } } };
}

const KEYS: RelationKey[] = [
  { relation: 'self', lender: '' },
  { relation: 'other', lender: '' },
];
/** Idle victims anywhere (rank 0), and victims of priority below the preemptor's on its own quota A (rank 1). */
const IDLE = rule('idle', 0, [{ fact: 'victimStanding', operator: 'equal', value: 'idle' }]);
const SELF = rule('self', 2, [
  { fact: 'preemptorQuota', operator: 'equal', value: 'A' },
  { fact: 'relation', operator: 'equal', value: 'self' },
  { fact: 'victimPriority', operator: 'lessThan', value: { fact: 'preemptorPriority' } },
]);
/** A's rule that reads the preemptor's priority in its key conditions. */
const HIGH = rule('high', 3, [
  { fact: 'preemptorQuota', operator: 'equal', value: 'A' },
  { fact: 'preemptorPriority', operator: 'greaterThan', value: 5 },
]);

function classOf(rules: CompiledRule[], preemptorQuota: string): { cls: ClassRules; judged: Judged[] } {
  const judge = new RuleJudge();
  const judged = rules.map((r) => judge.judge(r)!);
  return {
    judged,
    cls: { ranked: rules, cell: rules.map((_, i) => i + 1), judged, readsPriority: true, keyPass: keyPassOf(judged, KEYS, preemptorQuota) },
  };
}

describe('tabulate', () => {
  it('marks per rule and key whether the key conditions hold, fail, or wait for the priority', () => {
    const { judged } = classOf([IDLE, SELF, HIGH], 'A');
    // Rows: IDLE, SELF, HIGH; columns: self, other.
    expect([...keyPassOf(judged, KEYS, 'A')]).toEqual([1, 1, 1, 0, 2, 2]);
    expect([...keyPassOf(judged, KEYS, 'B')]).toEqual([1, 1, 0, 0, 0, 0]);
  });

  it('fills each cell with the first firing rule by rank', () => {
    const { cls, judged } = classOf([IDLE, SELF], 'A');
    const cells = new Tabulator().tabulate(cls, judged, KEYS, 'A', 5);
    expect(cells.length).toBe(KEYS.length * COMBOS_PER_RELATION);
    const at = (key: number, priority: number, standing: 'idle' | 'in-quota') => cells[key * COMBOS_PER_RELATION + comboIndex(priority, 'DLC', standing)];
    expect(at(0, 3, 'idle')).toBe(1); // both fire: IDLE ranks first
    expect(at(0, 3, 'in-quota')).toBe(2);
    expect(at(0, 5, 'in-quota')).toBe(0); // not below the preemptor's priority
    expect(at(1, 3, 'in-quota')).toBe(0); // SELF holds on A's own quota only
    expect(at(1, 3, 'idle')).toBe(1);
  });

  it('shares a cell array between classes whose rows agree, and keeps apart those that differ', () => {
    const tabulator = new Tabulator();
    const { cls, judged } = classOf([IDLE, SELF], 'A');
    const p5 = tabulator.tabulate(cls, judged, KEYS, 'A', 5);
    expect(tabulator.tabulate(cls, judged, KEYS, 'A', 5)).toBe(p5);
    const p7 = tabulator.tabulate(cls, judged, KEYS, 'A', 7);
    expect(p7).not.toBe(p5);
    // The row for `other` reads no priority: computed once for both tables.
    expect(tabulator.shared).toEqual({ rows: 3, cellArrays: 2 });
  });
});
