/**
 * Eligibility tables share work (rules/eligibility-table.ts): a row is computed once per
 * (passing rules, facts their mixed conditions read), and classes whose rows are all the
 * same read one cell array. This pins what may be shared and what must not be: sharing
 * that merged two classes which differ would give a victim the wrong rule.
 */
import { describe, expect, it } from 'vitest';
import type { EligibilityTable } from '../../../src/rules/eligibility-table.js';
import { openSession } from '../../helpers/session.js';
import { policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const POLICY = `\n${policyText(
  quotaTreeDoc(
    rootQuotaEntry(
      64,
      `        - name: A
          min: { gpu: 8 }
          selfPreemption: { highPriority: 6-9, lowPriority: 1-3, modules: [DLC] }
${quotaEntry('B', 8, { more: 'reclaim: never' })}${quotaEntry('C', 8, { more: 'reclaim: never' })}        - name: E
          min: { gpu: 8 }
          reclaim: never
          childPreemption: { preemptiblePriority: 1-3, modules: [DLC] }
          children:
            - { name: E1, min: { gpu: 8 }, reclaim: never }
${quotaEntry('L', 8, { more: 'reclaim: lower-priority' })}`,
    ),
  ),
  workspaceDoc(['A', 'B', 'C', 'E', 'E1', 'L']),
)}`;

describe('eligibility table sharing', () => {
  const session = openSession(POLICY);
  const q = (name: string) => session.tree.quotas.findIndex((x) => x.name === name);
  const table = (name: string, priority: number): Promise<EligibilityTable> => session.tables.tableFor(q(name), priority);

  it('gives two classes whose rules answer alike for every key one cell array', async () => {
    // B and C: no rule of their own, the same keys (self, below, above, other, siblings
    // through Root): every row is reclaim of idle capacity alone, at any priority.
    const b2 = await table('B', 2);
    const c8 = await table('C', 8);
    expect(b2.sharesCellsWith(c8)).toBe(true);
    expect(b2.sharesCellsWith(await table('B', 9))).toBe(true);
    // Within one quota the table itself is shared (what answers memoize per table with it);
    // across quotas only the cells are: the victim quotas' keys differ.
    expect(await table('B', 9)).toBe(b2);
    expect(c8).not.toBe(b2);
    expect(c8.lookup(q('B'), 1, 'DLC', 'idle')?.name).toBe('reclaim/idle');
    expect(c8.lookup(q('B'), 1, 'DLC', 'borrowing')).toBeUndefined();
  });

  it('keeps apart two classes that differ in one relation', async () => {
    // E is B plus a childPreemption: only its rows for descendants differ.
    const b = await table('B', 5);
    const e = await table('E', 5);
    expect(e.sharesCellsWith(b)).toBe(false);
    expect(e.lookup(q('E1'), 2, 'DLC', 'in-quota')?.name).toBe('E/childPreemption');
    expect(b.lookup(q('B'), 2, 'DLC', 'in-quota')).toBeUndefined();
  });

  it('keeps apart the priorities a rule reads', async () => {
    // A's selfPreemption holds for preemptors of priority 6-9 only.
    const a5 = await table('A', 5);
    const a7 = await table('A', 7);
    expect(a5.sharesCellsWith(a7)).toBe(false);
    expect(a7.lookup(q('A'), 2, 'DLC', 'in-quota')?.name).toBe('A/selfPreemption');
    expect(a5.lookup(q('A'), 2, 'DLC', 'in-quota')).toBeUndefined();
    // L takes back what it lent from borrowers of lower priority than the reclaiming job:
    // the same rules pass for every priority, only the value the condition reads differs.
    const l3 = await table('L', 3);
    const l7 = await table('L', 7);
    expect(l3.sharesCellsWith(l7)).toBe(false);
    expect(l7.lookup(q('B'), 5, 'DLC', 'borrowing')?.name).toBe('L/reclaim');
    expect(l3.lookup(q('B'), 5, 'DLC', 'borrowing')).toBeUndefined();
  });

  it('makes fewer cell arrays than tables when every class is tabulated', async () => {
    for (let quota = 0; quota < session.tree.quotas.length; quota++) for (let p = 1; p <= 9; p++) await session.tables.tableFor(quota, p);
    const tables = session.tree.quotas.length * 9;
    expect(session.tables.shared.cellArrays).toBeGreaterThan(1);
    expect(session.tables.shared.cellArrays).toBeLessThan(tables / 2);
  });
});
