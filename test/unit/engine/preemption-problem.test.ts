import { describe, expect, it } from 'vitest';
import { findCandidates, kernelOrder, preemptionProblem } from '../../../src/engine/preemption-problem.js';
import { CRITERIA } from '../../../src/kernel/victim-order.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

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
});
