import { describe, expect, it } from 'vitest';
import { answerWhatIf } from '../../../src/engine/whatif.js';
import { codesOf } from '../../helpers/codes.js';
import { openSession } from '../../helpers/session.js';
import { submit, TWO_TEAMS, twoTeams } from '../../helpers/two-teams.js';

describe('answerWhatIf', () => {
  const s = twoTeams();
  const engine = { snapshot: s.snapshot!, tables: s.tables };
  const ask = (job: ReturnType<typeof submit>) => answerWhatIf(engine, 'q', job);

  it('admits in quota a job that fits its quota and the pool', async () => {
    // Without a-low, A has 8 GPUs of room and n-0 is free.
    const free = openSession(TWO_TEAMS.replace(/^ {4}- \{ name: a-low.*\n/m, ''));
    const a = await answerWhatIf({ snapshot: free.snapshot!, tables: free.tables }, 'q', submit('A', 5));
    expect(a).toMatchObject({ decision: 'admit', standing: 'in-quota', victims: [], placement: [{ node: 'n-0' }] });
    expect(codesOf(a.reasons)).toEqual(['quota/fits']);
  });

  it('preempts the cheapest eligible set and names its rule (SEMANTICS 5.3)', async () => {
    const a = await ask(submit('A', 7));
    expect(a).toMatchObject({ decision: 'preempt', standing: 'in-quota', placement: [{ node: 'n-0', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }] });
    expect(a.victims.map((v) => [v.job, v.rule, v.code])).toEqual([['a-low', 'A/selfPreemption', 'victim/self-preemption']]);
    expect(codesOf(a.reasons)).toEqual(['quota/over-min', 'preempt/victims', 'preempt/other-way']);
  });

  it('waits when no rule lets the job preempt, and says why per way', async () => {
    const a = await ask(submit('B', 9));
    expect(a).toMatchObject({ decision: 'wait', standing: null, placement: [], victims: [] });
    expect(codesOf(a.reasons)).toEqual(['quota/over-min', 'quota/over-min', 'borrow/not-allowed', 'preempt/no-candidates', 'idle/not-accepted']);
  });

  it('rejects what could never run, and never changes the snapshot', async () => {
    const before = JSON.stringify(s.snapshot!.state);
    expect((await ask(submit('B', 5, 8, { pods: 3 }))).decision).toBe('reject');
    await ask(submit('A', 7));
    expect(JSON.stringify(s.snapshot!.state)).toBe(before);
  });

  it('adds no note where nothing was left unchecked (no caps, no members)', async () => {
    expect((await ask(submit('A', 7))).notes).toEqual([]);
  });
});
