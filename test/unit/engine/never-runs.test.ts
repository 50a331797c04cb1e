import { describe, expect, it } from 'vitest';
import { answerContext } from '../../../src/engine/answer-context.js';
import { neverRuns } from '../../../src/engine/never-runs.js';
import { codesOf } from '../../helpers/codes.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('neverRuns (SEMANTICS 3: reject only what could never run)', () => {
  const s = twoTeams();
  const engine = { snapshot: s.snapshot!, tables: s.tables };
  const never = (job: ReturnType<typeof submit>) => neverRuns(answerContext(engine, 'q', job));

  it('is nothing for a job some state of the cluster could run, however full it is now', () => {
    expect(never(submit('B', 1))).toBeUndefined();
  });

  it('rejects a gang no empty pool could hold', () => {
    expect(codesOf(never(submit('A', 7, 8, { pods: 3 }))!)).toEqual(['placement/never-fits-pool']);
  });

  it('rejects a job more than its quota guarantees that may neither borrow nor run idle', () => {
    expect(codesOf(never(submit('B', 5, 8, { pods: 2 }))!)).toEqual(['quota/never-fits']);
  });

  it('lets such a job borrow, or run idle, instead of rejecting it', () => {
    expect(never(submit('A', 7, 8, { pods: 2 }))).toBeUndefined();
    expect(never(submit('B', 5, 8, { pods: 2, idleResources: 'acceptable' }))).toBeUndefined();
  });
});
