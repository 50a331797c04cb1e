/**
 * The answer memo's contract beyond equality (test/property/answer-memo.test.ts holds
 * that): the switch and its environment variable, answers a caller cannot change for the
 * next caller, no memo for what it cannot key, failures never shared, and the clock in
 * the key.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANSWER_MEMO_ENV, answerMemoDefault, requestKey } from '../../../src/engine/answer-memo.js';
import { Session } from '../../../src/engine/session.js';
import { QuotientError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/policy.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const DIR = join(import.meta.dirname, '../../../policies/self-level-preemption');
const FILES: InputFile[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => ({ path: `policies/self-level-preemption/${f}`, text: readFileSync(join(DIR, f), 'utf8') }));

function open(answerMemo?: boolean): Session {
  const { session, findings } = Session.open(FILES, { now: NOW, ...(answerMemo === undefined ? {} : { answerMemo }) });
  if (!session) throw new Error(JSON.stringify(findings));
  return session;
}

/** The first WhatIf's job (it preempts: the answer has victims, placement and reasons). */
function preempting(session: Session): JobSpec {
  return session.policy.whatIfs[0]!.submit;
}

describe('answer memo: the switch', () => {
  it('is on unless QUOTIENT_ANSWER_MEMO is 0; any other value is an error naming the variable', () => {
    expect(answerMemoDefault({})).toBe(true);
    expect(answerMemoDefault({ [ANSWER_MEMO_ENV]: '' })).toBe(true);
    expect(answerMemoDefault({ [ANSWER_MEMO_ENV]: '1' })).toBe(true);
    expect(answerMemoDefault({ [ANSWER_MEMO_ENV]: '0' })).toBe(false);
    const err = (() => {
      try {
        answerMemoDefault({ [ANSWER_MEMO_ENV]: 'yes' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(QuotientError);
    expect((err as QuotientError).code).toBe('engine/bad-answer-memo');
    // The text is the behaviour here: it names the variable, what it takes and what it got.
    expect((err as QuotientError).message).toContain('QUOTIENT_ANSWER_MEMO must be 0 (off) or 1 (on), got "yes"');
  });

  it('Session.open takes the option first, then the environment', () => {
    const saved = process.env[ANSWER_MEMO_ENV];
    try {
      process.env[ANSWER_MEMO_ENV] = '0';
      expect(open().answerMemo).toBe(false);
      expect(open(true).answerMemo).toBe(true);
      delete process.env[ANSWER_MEMO_ENV];
      expect(open().answerMemo).toBe(true);
    } finally {
      if (saved === undefined) delete process.env[ANSWER_MEMO_ENV];
      else process.env[ANSWER_MEMO_ENV] = saved;
    }
  });

  it('without the memo every answer is computed and none is counted', async () => {
    const s = open(false);
    const job = preempting(s);
    await s.answerJob('a', job);
    await s.answerJob('a', job);
    expect(s.answerMemoStats).toEqual({ hits: 0, misses: 0, skipped: 0 });
  });
});

describe('answer memo: what callers get', () => {
  it("gives a renamed twin the first answer with the twin's query and job name", async () => {
    const s = open(true);
    const job = preempting(s);
    const first = await s.answerJob('first', job);
    const twin = await s.answerJob('second', { ...job, name: 'someone-else' });
    expect(s.answerMemoStats).toEqual({ hits: 1, misses: 1, skipped: 0 });
    expect(first.decision).toBe('preempt');
    expect(twin).toStrictEqual({ ...first, query: 'second', job: 'someone-else' });
  });

  it('never lets a caller change the answer the next caller gets', async () => {
    const s = open(true);
    const job = preempting(s);
    const first = await s.answerJob('q', job);
    const want = JSON.stringify(first);
    // The caller that computed it owns its answer: changing it reaches nothing stored.
    first.reasons.push({ code: 'quota/fits', message: 'changed' });
    first.decision = 'wait';
    const hit = await s.answerJob('q', job);
    expect(JSON.stringify(hit)).toBe(want);
    // A served answer is a fresh object; what it holds refuses writes.
    hit.decision = 'reject';
    expect(() => hit.victims.push(hit.victims[0]!)).toThrow(TypeError);
    expect(() => {
      (hit.placement[0] as { node: string }).node = 'elsewhere';
    }).toThrow(TypeError);
    expect(JSON.stringify(await s.answerJob('q', job))).toBe(want);
  });

  it('answers a job that is not plain data in full, without the memo', async () => {
    const s = open(true);
    // A class instance holding a JobSpec's fields (and no other: engine/check-job.ts refuses unknown fields).
    class Job {}
    const odd: JobSpec = Object.assign(new Job(), preempting(s));
    expect(requestKey(odd)).toBeUndefined();
    expect(requestKey({ ...preempting(s), resources: { gpu: 8, extra: () => 1 } })).toBeUndefined();
    await s.answerJob('q', odd);
    expect(s.answerMemoStats).toEqual({ hits: 0, misses: 0, skipped: 1 });
  });

  it('keys every field but the names and the source, with its value and type', () => {
    const job = {
      name: 'a',
      workspace: 'w',
      quota: 'q',
      module: 'DLC',
      priority: 7,
      pods: 1,
      resources: { gpu: 8 },
      idleResources: 'none',
      src: { file: 'f', line: 1, column: 1, path: 'p' },
    } as JobSpec;
    const key = requestKey(job)!;
    expect(requestKey({ ...job, name: 'b', src: { file: 'g', line: 2, column: 3, path: 'q' } })).toBe(key);
    for (const changed of [{ priority: 8 }, { priority: '7' }, { pods: 2 }, { resources: { gpu: 8, cpu: 1000 } }, { submittedBy: 'ann' }, { maxRuntime: undefined }, { anything: 1 }]) {
      expect(requestKey({ ...job, ...changed })).not.toBe(key);
    }
  });

  it('never shares a failure: an equal request computes its own', async () => {
    const s = open(true);
    const bad = { ...preempting(s), workspace: 'no-such-workspace' };
    await expect(s.answerJob('q', bad)).rejects.toThrow();
    await expect(s.answerJob('q', { ...bad, name: 'other' })).rejects.toThrow();
    // The failed entry was dropped: the second request was a miss, not a hit.
    expect(s.answerMemoStats).toEqual({ hits: 0, misses: 2, skipped: 0 });
  });

  it("keys the snapshot's clock: moving it gives the answer a fresh session gives at that time", async () => {
    const memo = open(true);
    const plain = open(false);
    const job = preempting(memo);
    const before = await memo.answerJob('q', job);
    expect(before.victims.length).toBeGreaterThan(0);
    const later = NOW + 10 * 3_600_000;
    memo.snapshot!.cluster.at = later;
    plain.snapshot!.cluster.at = later;
    const after = await memo.answerJob('q', job);
    expect(after).toStrictEqual(await plain.answerJob('q', job));
    expect(memo.answerMemoStats.misses).toBe(2);
  });
});
