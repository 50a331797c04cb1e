import { describe, expect, it } from 'vitest';
import { comboIndex } from '../../../src/rules/facts.js';
import { EligibilityTables, ruleApplies } from '../../../src/rules/eligibility-table.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('eligibility tables', () => {
  const s = twoTeams();
  const q = (n: string) => s.tree.indexOf(n);

  it('looks up the rule that makes a victim eligible, as the rules say', async () => {
    const t = await s.tables.tableFor(q('A'), 7);
    expect(t.lookup(q('A'), 2, 'DLC', 'in-quota')?.name).toBe('A/selfPreemption');
    expect(t.lookup(q('B'), 5, 'DLC', 'in-quota')?.name).toBe('A/selfPreemption');
    expect(t.lookup(q('A'), 7, 'DLC', 'in-quota')).toBeUndefined();
    expect(t.lookup(q('B'), 9, 'DSW', 'idle')?.name).toBe('reclaim/idle');
    // The raw cell of a lookup names the same rule.
    expect(t.ruleAt(t.cellFor(q('A'), comboIndex(2, 'DLC', 'in-quota')))?.name).toBe('A/selfPreemption');
    expect(t.cellFor(q('A'), comboIndex(7, 'DLC', 'in-quota'))).toBe(0);
  });

  it('gives the running jobs a table makes eligible, in job order', async () => {
    const snap = s.snapshot!;
    const eligible = (await s.tables.tableFor(q('A'), 7)).eligibleAmong(snap.index.jobQuota, snap.index.jobCombo);
    expect([...eligible.jobs].map((j) => snap.job(j).name)).toEqual(['a-low', 'b-run']);
    expect([...(await s.tables.tableFor(q('B'), 9)).eligibleAmong(snap.index.jobQuota, snap.index.jobCombo).jobs]).toEqual([]);
  });

  it('makes each table once per preemptor class, by the synchronous path', async () => {
    const tables = new EligibilityTables(s.rules, s.tree);
    const first = tables.tableFor(q('A'), 7);
    expect(tables.tableFor(q('A'), 7)).toBe(first);
    await first;
    expect(tables.fastTables).toBe(1);
  });

  it("applies a quota's own clauses to its jobs, reclaim of idle capacity to everyone, and a lent share's reclaim only in quota", () => {
    const rule = (n: string) => s.rules.find((r) => r.name === n)!;
    expect(ruleApplies(rule('A/selfPreemption'), ['A', 'Root'], 'in-quota')).toBe(true);
    expect(ruleApplies(rule('A/selfPreemption'), ['B', 'Root'], 'in-quota')).toBe(false);
    expect(ruleApplies(rule('reclaim/idle'), ['B', 'Root'], 'borrowing')).toBe(true);
    expect(ruleApplies(rule('A/reclaim'), ['A', 'Root'], 'in-quota')).toBe(true);
    expect(ruleApplies(rule('A/reclaim'), ['A', 'Root'], 'borrowing')).toBe(false);
  });
});
