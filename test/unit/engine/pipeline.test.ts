import { describe, expect, it } from 'vitest';
import { answerJob } from '../../../src/engine/pipeline.js';
import type { StartEstimate } from '../../../src/engine/estimate.js';
import { answerWhatIf } from '../../../src/engine/whatif.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('answerJob (the one answer pipeline)', () => {
  const s = twoTeams();
  const engine = { snapshot: s.snapshot!, tables: s.tables };

  it('is the what-if decision, whole: what answerWhatIf decides, nothing added when nothing was asked', async () => {
    expect(await answerJob(engine, 'q', submit('A', 7))).toEqual(await answerWhatIf(engine, 'q', submit('A', 7)));
  });

  it('names the policy asked, and adds the notes a translated request brings', async () => {
    const a = await answerJob(engine, 'q', submit('A', 7), { label: 'policies/two', notes: [{ code: 'interop/pai-request', message: 'read from a PAI request' }] });
    expect(a.policy).toBe('policies/two');
    expect(a.notes.map((n) => n.code)).toContain('interop/pai-request');
  });

  it('asks the estimator only for a wait answer of a snapshot that can tell, and puts its estimate last', async () => {
    let asked = 0;
    const estimate = { start: null, reason: 'none' } as unknown as StartEstimate;
    const estimator = () => {
      asked++;
      return Promise.resolve(estimate);
    };
    // Two teams give no expected end: never asked; the wait answer's estimate is none, saying why (issue 27 item 19).
    const a = await answerJob(engine, 'q', submit('B', 5), { estimator });
    expect(asked).toBe(0);
    expect(a.decision).toBe('wait');
    expect(a.estimate).toMatchObject({ start: null, assumedEnds: [] });
    expect(a.estimate?.reason).toContain('runtimeDefault');
    expect(Object.keys(a).at(-1)).toBe('estimate');
  });

  it('serves an equal earlier request from the memo, under this request’s names', async () => {
    const stats = { hits: 0, misses: 0, skipped: 0 };
    const first = await answerJob(engine, 'q1', submit('A', 7), { memo: { stats } });
    const again = await answerJob(engine, 'q2', { ...submit('A', 7), name: 'other' }, { memo: { stats } });
    expect(stats).toMatchObject({ hits: 1, misses: 1 });
    expect({ ...again, query: 'q1', job: first.job }).toEqual(first);
  });
});
