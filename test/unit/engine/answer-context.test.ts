import { describe, expect, it } from 'vitest';
import { answerContext, waysOf, wayOf } from '../../../src/engine/answer-context.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('answerContext', () => {
  const s = twoTeams();
  const engine = { snapshot: s.snapshot!, tables: s.tables };

  it("lets a job of a non-root quota borrow when its priority is in the quota's highPriority (SEMANTICS 5.2)", () => {
    const ctx = answerContext(engine, 'q', submit('A', 7));
    expect(ctx.mayBorrow).toBe(true);
    expect(waysOf(ctx).map((w) => w.standing)).toEqual(['in-quota', 'borrowing']);
    expect(answerContext(engine, 'q', submit('A', 5)).mayBorrow).toBe(false);
    expect(waysOf(answerContext(engine, 'q', submit('B', 9))).map((w) => w.standing)).toEqual(['in-quota']);
  });

  it("builds the gang request and each way's overruns once, from the job's quota up", () => {
    const ctx = answerContext(engine, 'q', submit('A', 7, 4));
    expect(ctx.req).toMatchObject({ pods: 1, gpu: 4, pool: 0 });
    expect(ctx.inQuota.over.map((o) => s.tree.at(o.quota).name)).toEqual(['A', 'Root']);
    // Root's overrun is as large as A's: relieving A relieves Root, so only A binds.
    expect(ctx.inQuota.binding.map((o) => s.tree.at(o.quota).name)).toEqual(['A']);
    expect(ctx.borrowing!.over.map((o) => s.tree.at(o.quota).name)).toEqual(['Root']);
  });

  it('marks a way no state of the cluster could open', () => {
    const way = wayOf(s.snapshot!, s.tree.indexOf('A'), { gpu: 12, cpu: 0, memory: 0 }, 'in-quota');
    expect(way.never.map((o) => s.tree.at(o.quota).name)).toEqual(['A']);
  });
});
