/**
 * A request checked once, as values (engine/request.ts): its own fields, the job by the
 * rules a WhatIf file's `submit` meets (same codes, paths under the origin's), the user
 * it is asked as, and the memo's fast path that serves an equal request before its job is
 * checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import type { Viewer } from '../../../src/engine/visibility.js';
import type { JobSpec, Policy } from '../../../src/model/policy.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';
import { estimateStart } from '../../../src/simulate/start-estimate.js';

const DIR = 'policies/inference-preempts-training';
const FILES: InputFile[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => ({ path: `${DIR}/${f}`, text: readFileSync(join(DIR, f), 'utf8') }));

function open(answerMemo = false, estimates = false): Session {
  const estimator = estimates ? { estimator: (p: Policy, j: JobSpec, o: { viewer?: Viewer }) => estimateStart(p, j, { backend: 'wasm', ...o }) } : {};
  const { session } = Session.open(FILES, { now: Date.parse('2026-11-20T12:00:00Z'), answerMemo, ...estimator });
  return session!;
}

/** Team A's inference service (it preempts train-b-llm under Quota1/childPreemption). */
const JOB = { name: 'infer', workspace: 'workspace-a', quota: 'Quota1', module: 'EAS', priority: 9, pods: 2, resources: { gpu: 8 } };

describe('Session.ask: the request', () => {
  it('answers a submitted job as the WhatIf document of the same job is answered', async () => {
    const s = open();
    const byValues = await s.ask({ submit: JOB });
    const w = s.policy.whatIfs.find((x) => x.name === 'team-a-inference')!;
    const byDoc = await s.ask({ query: 'team-a-inference' });
    expect(byValues.findings).toEqual([]);
    expect(byValues.answer).toMatchObject({ query: 'submit', job: 'infer', decision: byDoc.answer!.decision, victims: byDoc.answer!.victims });
    expect(w.submit.priority).toBe(JOB.priority);
  });

  it.each([
    ['neither submit nor query', {}, 'request/one-job', ''],
    ['both submit and query', { submit: JOB, query: 'team-a-inference' }, 'request/one-job', ''],
    ['an unknown field', { submit: JOB, viewer: 'bob' }, 'request/unknown-field', 'viewer'],
    ['a query that is not a string', { query: 3 }, 'request/invalid-type', 'query'],
    ['an empty as', { submit: JOB, as: '' }, 'request/invalid-type', 'as'],
    ['an estimate that is not a boolean', { submit: JOB, estimate: 'yes' }, 'request/invalid-type', 'estimate'],
    ['an unknown WhatIf', { query: 'nope' }, 'request/unknown-query', 'query'],
    ['an unknown user', { submit: JOB, as: 'mallory' }, 'request/unknown-user', 'as'],
  ])('refuses %s with its code, at its field, and no answer', async (_, request, code, path) => {
    const r = await open().ask(request as never);
    expect(r.answer).toBeUndefined();
    expect(r.findings).toMatchObject([{ code, path, severity: 'error', file: 'request', line: 0, column: 0 }]);
  });

  it('refuses a request that is not an object', async () => {
    for (const bad of [null, 3, 'x', [JOB]]) expect((await open().ask(bad as never)).findings).toMatchObject([{ code: 'request/not-an-object' }]);
  });

  it("checks the job by the loader's rules, every problem at once, at the origin's path", async () => {
    const r = await open().ask({ submit: { ...JOB, priority: 12, pods: 0, gpu: 8 } }, { file: 'body', path: ['submit'] });
    expect(r.answer).toBeUndefined();
    const codes = r.findings.map((f) => [f.code, f.path, f.file]);
    expect(codes).toEqual(
      expect.arrayContaining([
        ['policy/priority-out-of-range', 'submit.priority', 'body'],
        ['policy/non-positive', 'submit.pods', 'body'],
        ['policy/unknown-field', 'submit.gpu', 'body'],
      ]),
    );
    // The builder's names, once the schema passes.
    const names = await open().ask({ submit: { ...JOB, quota: 'Quota9', workspace: 'ws-z' } });
    expect(names.findings.map((f) => [f.code, f.path, f.stage])).toEqual([
      ['policy/unknown-quota', 'submit.quota', 'build'],
      ['policy/unknown-workspace', 'submit.workspace', 'build'],
    ]);
  });

  it('refuses control characters in a submitted name, as in a file', async () => {
    const r = await open().ask({ submit: { ...JOB, name: 'a\u202Eb' } });
    expect(r.findings).toMatchObject([{ code: 'policy/control-character', path: 'submit.name' }]);
  });

  it('places findings where the origin says the fields were written', async () => {
    const locate = (path: readonly (string | number)[]) => ({ file: 'req.json', line: 7, column: 3, path: `JSON.${path.join('.')}` });
    const r = await open().ask({ submit: { ...JOB, quota: 'Quota9' } }, { path: [], locate });
    expect(r.findings).toMatchObject([{ code: 'policy/unknown-quota', file: 'req.json', line: 7, column: 3, path: 'JSON.quota' }]);
  });

  it("refuses the name of a running job the asker can see, and takes the name of one they cannot (it is the asker's to use)", async () => {
    const s = open();
    const taken = { ...JOB, name: 'train-b-llm', workspace: 'workspace-c', quota: 'Quota1.2', module: 'DSW', priority: 1 };
    expect((await s.ask({ submit: taken })).findings).toMatchObject([{ code: 'policy/duplicate-job', path: 'submit.name' }]);
    expect((await s.ask({ submit: taken, as: 'bob' })).findings).toMatchObject([{ code: 'policy/duplicate-job' }]);
    const carol = await s.ask({ submit: { ...taken, submittedBy: 'carol' }, as: 'carol' });
    expect(carol.findings).toEqual([]);
    expect(carol.answer).toMatchObject({ job: 'train-b-llm', as: 'carol' });
  });

  it('asks as an outsider a user no workspace lists, when the origin allows it', async () => {
    const r = await open().ask({ submit: JOB, as: 'mallory' }, { outsider: true });
    expect(r.answer).toMatchObject({ as: 'mallory', decision: 'preempt', victims: [{ hidden: true }] });
  });
});

describe('Session.ask: the memo serves an equal request before its job is checked', () => {
  it('serves a renamed twin, and counts the hit', async () => {
    const s = open(true);
    const first = await s.ask({ submit: JOB });
    const twin = await s.ask({ submit: { ...JOB, name: 'other' } });
    expect(s.answerMemoStats).toMatchObject({ hits: 1, misses: 1 });
    expect(twin.answer).toEqual({ ...first.answer, job: 'other' });
  });

  it('never serves what the check would refuse: a bad name, a taken name, a stray src field', async () => {
    const s = open(true);
    await s.ask({ submit: JOB });
    expect((await s.ask({ submit: { ...JOB, name: 'a\u0007' } })).findings).toMatchObject([{ code: 'policy/control-character' }]);
    expect((await s.ask({ submit: { ...JOB, name: 'train-b-llm' } })).findings).toMatchObject([{ code: 'policy/duplicate-job' }]);
    expect((await s.ask({ submit: { ...JOB, src: 'x.yaml' } })).findings).toMatchObject([{ code: 'policy/unknown-field', path: 'submit.src' }]);
    expect(s.answerMemoStats.hits).toBe(0);
  });

  it('keeps answers asked with and without an estimate apart when the session estimates', async () => {
    const s = open(true, true);
    await s.ask({ submit: JOB });
    await s.ask({ submit: JOB, estimate: false });
    expect(s.answerMemoStats).toMatchObject({ hits: 0, misses: 2 });
    const plain = open(true);
    await plain.ask({ submit: JOB });
    await plain.ask({ submit: JOB, estimate: false });
    expect(plain.answerMemoStats).toMatchObject({ hits: 1, misses: 1 });
  });
});
