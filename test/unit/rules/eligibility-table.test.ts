import { describe, expect, it } from 'vitest';
import { comboIndex } from '../../../src/rules/facts.js';
import { EligibilityTables } from '../../../src/rules/eligibility-table.js';
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

  it("serves a lent share's reclaim only to a preemptor that runs in quota (the rule's preemptorTarget condition, SEMANTICS 5.1)", async () => {
    // B's priority-2 borrowing job on A's share: A's reclaim and A's selfPreemption both allow it.
    expect((await s.tables.tableFor(q('A'), 7, 'in-quota')).lookup(q('B'), 2, 'DLC', 'borrowing')?.name).toBe('A/reclaim');
    expect((await s.tables.tableFor(q('A'), 7, 'borrowing')).lookup(q('B'), 2, 'DLC', 'borrowing')?.name).toBe('A/selfPreemption');
    expect((await s.tables.tableFor(q('A'), 7, 'borrowing')).lookup(q('B'), 9, 'DSW', 'idle')?.name).toBe('reclaim/idle');
  });
});
