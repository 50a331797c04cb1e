/**
 * One table as victim selection reads it (rules/eligibility-lookup.ts): a victim quota's
 * relation key, then one cell per victim combination naming the rule (k + 1) or none (0).
 */
import { describe, expect, it } from 'vitest';
import { EligibilityTable } from '../../../src/rules/eligibility-lookup.js';
import { comboIndex, COMBOS_PER_RELATION } from '../../../src/rules/facts.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('eligibility lookup', () => {
  const s = twoTeams();
  const q = (n: string) => s.tree.indexOf(n);
  const keys = s.tables.relationKeys(q('A'));
  const self = keys.findIndex((k) => k.relation === 'self');
  const sibling = keys.findIndex((k) => k.relation === 'sibling');

  /** A's table with `rules[1]` for priority-2 in-quota DLC victims on A itself, and `rules[0]` for idle DSW ones on B. */
  function table(): { t: EligibilityTable; cells: Uint16Array } {
    const cells = new Uint16Array(keys.length * COMBOS_PER_RELATION);
    cells[self * COMBOS_PER_RELATION + comboIndex(2, 'DLC', 'in-quota')] = 2;
    cells[sibling * COMBOS_PER_RELATION + comboIndex(9, 'DSW', 'idle')] = 1;
    return { t: new EligibilityTable(q('A'), { keys }, cells, s.rules, s.tree), cells };
  }

  it('reads the rule a cell names through the victim quota’s relation key', () => {
    const { t } = table();
    expect(t.keyIndex(q('A'))).toBe(self);
    expect(t.keyIndex(q('B'))).toBe(sibling);
    expect(t.lookup(q('A'), 2, 'DLC', 'in-quota')).toBe(s.rules[1]);
    expect(t.lookup(q('B'), 9, 'DSW', 'idle')).toBe(s.rules[0]);
    expect(t.lookup(q('B'), 2, 'DLC', 'in-quota')).toBeUndefined();
    expect(t.cellFor(q('A'), comboIndex(2, 'DLC', 'in-quota'))).toBe(2);
    expect(t.ruleAt(0)).toBeUndefined();
  });

  it('gives the eligible jobs of a snapshot with their cells, in job order', () => {
    const { t } = table();
    const combo = (p: number, m: 'DLC' | 'DSW', st: 'idle' | 'in-quota') => comboIndex(p, m, st);
    const found = t.eligibleAmong(
      Int32Array.of(q('B'), q('A'), q('A'), q('B')),
      Int32Array.of(combo(9, 'DSW', 'idle'), combo(3, 'DLC', 'in-quota'), combo(2, 'DLC', 'in-quota'), combo(2, 'DLC', 'idle')),
    );
    expect([...found.jobs]).toEqual([0, 2]);
    expect([...found.cells]).toEqual([1, 2]);
  });

  it('says whether two tables read one cell array', () => {
    const { t, cells } = table();
    expect(t.sharesCellsWith(new EligibilityTable(q('A'), { keys }, cells, s.rules, s.tree))).toBe(true);
    expect(t.sharesCellsWith(table().t)).toBe(false);
  });
});
