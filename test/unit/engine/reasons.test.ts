import { describe, expect, it } from 'vitest';
import { answerContext } from '../../../src/engine/answer-context.js';
import { preemptionProblem } from '../../../src/engine/preemption-problem.js';
import { describeHeadroom, explainNoBorrowing, explainNoRoom, explainNoVictims, explainShortfall, roomOf } from '../../../src/engine/reasons.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

// The sentences of reasons are their behaviour: each test says which fact a sentence must state.
describe('reasons', () => {
  const s = twoTeams();
  const snap = s.snapshot!;
  const q = (n: string) => s.tree.indexOf(n);

  it('says why a job may not borrow: a root, no borrowing rule, or a priority outside its range', () => {
    expect(explainNoBorrowing(snap, q('Root'), 5)).toContain('Root is a root quota');
    expect(explainNoBorrowing(snap, q('B'), 5)).toContain('B has neither borrowing.priority nor selfPreemption');
    expect(explainNoBorrowing(snap, q('A'), 5)).toContain('priority 5 is not in highPriority 6-9');
  });

  it('says what room the pool has and what does not fit in it', () => {
    const req = answerContext({ snapshot: snap, tables: s.tables }, 'q', submit('A', 7)).req;
    expect(roomOf(snap, req).podsFit).toBe(0);
    expect(explainNoRoom(snap, req, 'p', 'free GPUs')).toBe('pool "p" has 0 free GPUs (largest on one node: 0); 1 pod(s) × 8 GPU do not fit: room for 0 such pod(s)');
  });

  it('lists why no running job may be preempted', () => {
    const text = explainNoVictims(snap, q('B'), submit('B', 9));
    expect(text).toContain('B has no selfPreemption');
    expect(text).toContain('no idle job holds GPUs in the pool');
  });

  it('names the eligible jobs and how far short they fall', async () => {
    const p = await preemptionProblem(snap, s.tables, submit('A', 7, 8, { pods: 2 }), 'in-quota');
    expect(explainShortfall(snap, p.candidates, p.ruleOf, p.over)).toContain(
      'the eligible jobs [a-low (A/selfPreemption), b-run (A/selfPreemption)] would bring A down by only 8 GPUs, and it is 16 GPUs over',
    );
  });

  it("states a quota's headroom", () => {
    expect(describeHeadroom(snap, 'A', 2)).toBe("A uses 8 of 8 GPUs, so the job's 2 fit");
  });
});
