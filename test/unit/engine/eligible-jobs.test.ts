import { describe, expect, it, vi } from 'vitest';
import { EligibleRules, eligibleThroughIndex, jobLists, jobListsOf, standingOfCombo } from '../../../src/engine/eligible-jobs.js';
import { Session } from '../../../src/engine/session.js';
import { comboIndex, VICTIM_STANDINGS } from '../../../src/rules/facts.js';
import { MODULES } from '../../../src/model/job-kinds.js';
import { b3Policy } from '../../../bench/b3-policy.js';
import { flatPolicy } from '../../../bench/b3d-policy.js';

/** Every (quota, priority, target) table of a session, its eligible jobs found both ways. */
async function compareAll(files: Array<{ path: string; text: string }>): Promise<{ tables: number; throughIndex: number; eligible: number }> {
  const { session } = Session.open(files, { answerMemo: false });
  const snap = session!.snapshot!;
  const lists = jobLists(snap.index, snap.tree.quotas.length);
  let tables = 0;
  let throughIndex = 0;
  let eligible = 0;
  for (let q = 0; q < snap.tree.quotas.length; q += 3) {
    for (const priority of [1, 5, 9]) {
      for (const target of ['in-quota', 'borrowing'] as const) {
        const table = await session!.tables.tableFor(q, priority, target);
        const scan = table.eligibleAmong(snap.index.jobQuota, snap.index.jobCombo);
        const spy = vi.spyOn(table, 'eligibleAmong');
        const found = eligibleThroughIndex(table, snap.index, lists);
        if (spy.mock.calls.length === 0) throughIndex++;
        spy.mockRestore();
        expect([...found.jobs]).toEqual([...scan.jobs]);
        expect([...found.cells]).toEqual([...scan.cells]);
        // The rules read on demand are the table's own, for eligible jobs only.
        const rules = new EligibleRules(found, table);
        for (let i = 0; i < snap.index.jobQuota.length; i += 7) {
          const cell = table.cellFor(snap.index.jobQuota[i]!, snap.index.jobCombo[i]!);
          expect(rules.get(i)).toBe(table.ruleAt(cell));
          expect(rules.has(i)).toBe(cell !== 0);
        }
        tables++;
        eligible += scan.jobs.length;
      }
    }
  }
  return { tables, throughIndex, eligible };
}

describe('eligible jobs through the job index', () => {
  it("finds B3's eligible jobs of every class as the full scan does, in job order", async () => {
    const r = await compareAll(b3Policy({ nodes: 100, fanout: [3, 3, 3] }).files);
    // Floors: the index path, not the fallback scan, answered most classes, and they found jobs.
    expect(r.tables).toBeGreaterThanOrEqual(60);
    expect(r.throughIndex).toBeGreaterThanOrEqual(r.tables / 2);
    expect(r.eligible).toBeGreaterThan(100);
  });

  it('finds the flat shape’s eligible jobs of every class as the full scan does', async () => {
    const r = await compareAll(flatPolicy({ nodes: 300, groups: 8, perGroup: 5 }).files);
    expect(r.tables).toBeGreaterThanOrEqual(60);
    expect(r.throughIndex).toBeGreaterThanOrEqual(r.tables / 2);
    expect(r.eligible).toBeGreaterThan(100);
  });

  it('reads the standing back out of a combo index', () => {
    for (const s of VICTIM_STANDINGS) for (const m of MODULES) for (let p = 1; p <= 9; p++) expect(standingOfCombo(comboIndex(p, m, s))).toBe(s);
  });

  it("remakes a snapshot's lists when its index arrays are replaced (a live snapshot publishes new ones)", () => {
    const { session } = Session.open(flatPolicy({ nodes: 100, groups: 2, perGroup: 5 }).files, { answerMemo: false });
    const snap = session!.snapshot!;
    const first = jobListsOf(snap);
    expect(jobListsOf(snap)).toBe(first);
    snap.index.jobQuota = snap.index.jobQuota.slice();
    expect(jobListsOf(snap)).not.toBe(first);
  });
});
