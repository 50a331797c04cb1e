import { describe, expect, it } from 'vitest';
import answerBatch from '../../../src/pool/batch-worker.js';
import { encodeFiles, type BatchQuery, type BatchTask } from '../../../src/pool/batch-types.js';
import { Session } from '../../../src/engine/session.js';
import { estimateStart } from '../../../src/simulate/start-estimate.js';
import { TWO_TEAMS } from '../../helpers/two-teams.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');

/** A task over `text` as the pool sends one (in this thread: the worker's function called directly). */
function task(text: string, queries: BatchQuery[], key = 'k'): BatchTask {
  return { policy: { key, files: encodeFiles([{ path: 'test.yaml', text }]), backend: 'wasm', load: { now: NOW }, answerMemo: false }, queries, call: 'c1' };
}

/** A request as the pool takes one: a job as a WhatIf's `spec.submit` holds it. */
const submit = (quota: string, priority: number, more: Record<string, unknown> = {}): BatchQuery => ({
  request: { submit: { name: 'new', workspace: 'ws', quota, module: 'DLC', priority, pods: 1, resources: { gpu: 8 }, ...more } },
  query: `${quota}-${priority}`,
});

describe('answerBatch (the pool worker)', () => {
  it('answers every query in order, as the Session does', async () => {
    const queries = [submit('A', 7), submit('B', 5)];
    const r = await answerBatch(task(TWO_TEAMS, queries));
    expect(r.ok).toBe(true);
    // The pool answers with the simulator's start estimates (a wait says when, or why not): so does this Session.
    const { session: s } = Session.open([{ path: 'test.yaml', text: TWO_TEAMS }], { backend: 'wasm', now: NOW, estimator: (policy, job, o) => estimateStart(policy, job, { backend: 'wasm', ...o }) });
    if (!s) throw new Error('the two-team policy has errors');
    const want = [];
    for (const q of queries) want.push((await s.ask(q.request, { query: q.query! })).answer);
    expect(r.ok && r.answers).toEqual(want);
  });

  it('fails a batch with batch/invalid-policy and the findings, never by throwing', async () => {
    const r = await answerBatch(task('kind: QuotaTree\n', [submit('A', 7)], 'bad'));
    expect(r).toMatchObject({ ok: false, code: 'batch/invalid-policy' });
    expect(!r.ok && r.findings?.length).toBeGreaterThan(0);
  });

  it('names the failing query by its index with batch/invalid-request and the findings that say why', async () => {
    const r = await answerBatch(task(TWO_TEAMS, [submit('A', 7), submit('A', 7, { pods: 0 })]));
    expect(r).toMatchObject({ ok: false, code: 'batch/invalid-request', query: 1 });
    expect(!r.ok && r.findings?.map((f) => f.code)).toEqual(['policy/non-positive']);
  });

  it('refuses a policy without a Cluster with batch/no-cluster', async () => {
    const noCluster = TWO_TEAMS.slice(0, TWO_TEAMS.lastIndexOf('---\n'));
    expect(await answerBatch(task(noCluster, [submit('A', 7)], 'no-cluster'))).toMatchObject({ ok: false, code: 'batch/no-cluster' });
  });
});
