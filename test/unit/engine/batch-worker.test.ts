import { describe, expect, it } from 'vitest';
import answerBatch from '../../../src/engine/batch-worker.js';
import { encodeFiles, type BatchQuery, type BatchTask } from '../../../src/engine/batch-types.js';
import { TWO_TEAMS, submit, twoTeams } from '../../helpers/two-teams.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');

/** A task over `text` as the pool sends one (in this thread: the worker's function called directly). */
function task(text: string, queries: BatchQuery[], key = 'k', answerMemo = false): BatchTask {
  return {
    policy: { key, files: encodeFiles([{ path: 'test.yaml', text }]), backend: 'wasm', load: { now: NOW }, answerMemo },
    queries,
    sources: [],
    srcIndex: new Int32Array(queries.length).fill(-1),
    call: 'c1',
  };
}

describe('answerBatch (the pool worker)', () => {
  it('answers every query in order, as the Session does', async () => {
    const queries = [
      { query: 'a', job: submit('A', 7) },
      { query: 'b', job: submit('B', 5) },
    ];
    const r = await answerBatch(task(TWO_TEAMS, queries));
    expect(r.ok).toBe(true);
    const s = twoTeams();
    const want = [await s.answer('a', submit('A', 7)), await s.answer('b', submit('B', 5))];
    expect(r.ok && r.answers).toEqual(want);
  });

  it('fails a batch with batch/invalid-policy and the findings, never by throwing', async () => {
    const r = await answerBatch(task('kind: QuotaTree\n', [{ query: 'a', job: submit('A', 7) }], 'bad'));
    expect(r).toMatchObject({ ok: false, code: 'batch/invalid-policy' });
    expect(!r.ok && r.findings?.length).toBeGreaterThan(0);
  });

  it('names the failing query by its index with batch/answer-failed and the job check’s hint', async () => {
    const r = await answerBatch(
      task(TWO_TEAMS, [
        { query: 'ok', job: submit('A', 7) },
        { query: 'bad', job: submit('A', 7, 8, { pods: 0 }) },
      ]),
    );
    expect(r).toMatchObject({ ok: false, code: 'batch/answer-failed', query: 1 });
    expect(!r.ok && r.hint).toBeTruthy();
  });

  it('refuses a policy without a Cluster with batch/no-cluster', async () => {
    const noCluster = TWO_TEAMS.slice(0, TWO_TEAMS.lastIndexOf('---\n'));
    expect(await answerBatch(task(noCluster, [{ query: 'a', job: submit('A', 7) }], 'no-cluster'))).toMatchObject({ ok: false, code: 'batch/no-cluster' });
  });
});
