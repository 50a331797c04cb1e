/**
 * Runs every golden case (test/golden/<topic>/<case>.yaml) on both kernels and compares
 * the fields each Expect pins, and the answer's reason codes in order (the sentence
 * beside a code only where the Expect gives its text). The expected answers are written
 * by hand from SEMANTICS.md, not generated.
 */
import { fileURLToPath } from 'node:url';
import { dirname, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedCode, expectedTexts, loadGoldenCases, type Expect } from '../helpers/golden.js';
import { answerAll, openSession } from '../helpers/session.js';
import type { Answer } from '../../src/engine/answer.js';

const here = dirname(fileURLToPath(import.meta.url));
const cases = loadGoldenCases(here);

function pick(answer: Answer, exp: Expect): Record<string, unknown> {
  const got: Record<string, unknown> = {};
  if ('decision' in exp) got.decision = answer.decision;
  if ('standing' in exp) got.standing = answer.standing;
  if (exp.victims) got.victims = answer.victims.map((v, i) => pickKeys(v as unknown as Record<string, unknown>, exp.victims![i] ?? exp.victims![0]!));
  if (exp.placement) got.placement = answer.placement.map((p, i) => pickKeys(p as unknown as Record<string, unknown>, exp.placement![i] ?? exp.placement![0]!));
  if (exp.queue) got.queue = pickQueue(answer, exp.queue);
  return got;
}

/** The keys of the answer's `queue` an Expect names; a held job's reasons become the expected substrings each one's sentences contain. */
function pickQueue(answer: Answer, like: NonNullable<Expect['queue']>): Record<string, unknown> | undefined {
  const q = answer.queue;
  if (!q) return undefined;
  const got: Record<string, unknown> = {};
  if ('position' in like) got.position = q.position;
  if ('strategy' in like) got.strategy = q.strategy;
  if (like.started) got.started = q.started.map((s, i) => pickKeys(s as unknown as Record<string, unknown>, like.started![i] ?? like.started![0] ?? {}));
  if ('heldBy' in like) {
    const want = like.heldBy;
    if (want === null || want === undefined || !q.heldBy) got.heldBy = q.heldBy;
    else {
      const { reasons: wanted, ...keys } = want;
      const text = q.heldBy.reasons.map((r) => r.message).join('\n');
      got.heldBy = { ...pickKeys(q.heldBy, keys), ...(wanted ? { reasons: wanted.filter((r) => text.includes(r)) } : {}) };
    }
  }
  return got;
}

function pickKeys(obj: Record<string, unknown>, like: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(like).map((k) => [k, obj[k]]));
}

describe.each(['wasm', 'reference'] as const)('golden cases (%s kernel)', (backend) => {
  it.each(cases.map((c) => [relative(here, c.file), c] as const))('%s', async (_name, c) => {
    const session = openSession([{ path: relative(process.cwd(), c.file), text: c.text }], backend);
    const snapshotBefore = JSON.stringify(session.snapshot?.state);
    const answers = await answerAll(session);
    for (const exp of c.expects) {
      const name = exp.query ?? [...answers.keys()][0] ?? '';
      const answer = answers.get(name);
      expect(answer, `no WhatIf named ${name}`).toBeDefined();
      const { reasons, query: _q, ...pinned } = exp;
      expect(pick(answer!, exp), `answer to ${name}`).toEqual(pinned);
      // The reasons by code, in order; the sentence only where the case is about its wording.
      expect(
        answer!.reasons.map((r) => r.code),
        `reason codes of ${name}`,
      ).toEqual(reasons.map(expectedCode));
      reasons.forEach((r, i) => {
        for (const text of expectedTexts(r)) expect(answer!.reasons[i]!.message, `reason ${i} (${expectedCode(r)}) of ${name}`).toContain(text);
      });
    }
    // Answering never changes the snapshot (Kueue's snapshot-unchanged check).
    expect(JSON.stringify(session.snapshot?.state)).toBe(snapshotBefore);
  });
});
