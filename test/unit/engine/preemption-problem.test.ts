import { describe, expect, it } from 'vitest';
import { findCandidates, kernelOrder, preemptionProblem } from '../../../src/engine/preemption-problem.js';
import { CRITERIA } from '../../../src/kernel/victim-order.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';
import { loadGoldenCases } from '../../helpers/golden.js';
import { countsAt } from '../../../src/model/usage-rule.js';
import { openSession } from '../../helpers/session.js';

describe('preemption problems', () => {
  const s = twoTeams();
  const snap = s.snapshot!;
  const names = (c: { candidates: Array<{ job: number }> }) => c.candidates.map((x) => snap.job(x.job).name);

  it('makes the eligible jobs candidates, each relieving the overruns it counts at, with the rule that makes it eligible', async () => {
    const p = await preemptionProblem(snap, s.tables, submit('A', 7), 'in-quota');
    // b-run on the sibling B is eligible too (self-level across siblings) but relieves nothing of A's overrun.
    expect(names(p)).toEqual(['a-low', 'b-run']);
    expect(p.over.map((o) => s.tree.at(o.quota).name)).toEqual(['A']);
    expect(p.candidates.map((c) => c.constraintMask)).toEqual([1, 0]);
    expect(p.candidates.map((c) => p.ruleOf.get(c.job)!.name)).toEqual(['A/selfPreemption', 'A/selfPreemption']);
  });

  it('finds no candidate for a priority outside highPriority', async () => {
    expect(names(await preemptionProblem(snap, s.tables, submit('A', 5), 'in-quota'))).toEqual([]);
  });

  it('reads the same candidate set from the table twice without walking the jobs again', async () => {
    const table = await s.tables.tableFor(s.tree.indexOf('A'), 7);
    const over = (await preemptionProblem(snap, s.tables, submit('A', 7), 'in-quota')).over;
    expect(findCandidates(snap, table, 0, over)).toBe(findCandidates(snap, table, 0, over));
  });

  it("numbers the pool's victimOrder as the kernel's criteria", () => {
    expect(kernelOrder(snap.poolOf('A'))).toEqual([CRITERIA.CRITERION_PRIORITY, CRITERIA.CRITERION_LOST_WORK, CRITERIA.CRITERION_GPUS, CRITERIA.CRITERION_COUNT, CRITERIA.CRITERION_RECENCY]);
  });

  it("sets a candidate's bits by countsAt, the one usage rule: a borrower at its own quota relieves its ancestors, not that quota", async () => {
    // The golden case's state: a-borrow borrows on A; a priority-7 job on A is over A's min in quota, over Root's borrowing.
    const golden = loadGoldenCases('test/golden/self-level').find((c) => c.file.endsWith('own-borrower-frees-no-guarantee.yaml'))!;
    const g = openSession([{ path: golden.file, text: golden.text }]);
    const gs = g.snapshot!;
    const job = g.policy.whatIfs[0]!.submit;
    const maskOf = (p: { candidates: Array<{ job: number; constraintMask: number }> }) => p.candidates.find((c) => gs.job(c.job).name === 'a-borrow')?.constraintMask;
    const inQuota = await preemptionProblem(gs, g.tables, job, 'in-quota');
    const borrowing = await preemptionProblem(gs, g.tables, job, 'borrowing');
    expect(inQuota.over.map((o) => gs.tree.at(o.quota).name)).toEqual(['A']);
    expect(borrowing.over.map((o) => gs.tree.at(o.quota).name)).toEqual(['Root']);
    expect([maskOf(inQuota), maskOf(borrowing)]).toEqual([0, 1]);
    for (const p of [inQuota, borrowing])
      for (const c of p.candidates) {
        const j = gs.job(c.job);
        p.over.forEach((o, k) => expect(((c.constraintMask >>> k) & 1) === 1, `${j.name} at ${k}`).toBe(countsAt(gs.tree, j.standing, gs.tree.indexOf(j.quota), o.quota)));
      }
  });
});
