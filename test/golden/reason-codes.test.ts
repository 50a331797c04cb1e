/**
 * Every reason, note and victim of every answer (and every reason and changed job of every
 * scaling answer) carries a stable code from the one table
 * (src/engine/reason-codes.ts): answered over every golden case and every shipped policy
 * (policies/, docs/examples/), as a viewer too, so a sentence added to the engine
 * without a code fails here. The table is also held equal to docs/cli.md's list and to
 * the code enum of the published schema (schemas/common.json).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/engine/answer.js';
import { REASON_CODES } from '../../src/engine/reason-codes.js';
import type { ScaleAnswer } from '../../src/engine/scale.js';
import type { ViewedAnswer } from '../../src/engine/visibility.js';
import { readBundles } from '../../src/policy/parse/read-files.js';
import { loadGoldenCases } from '../helpers/golden.js';
import { openSession } from '../helpers/session.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, '../..');
const CODES = new Set(Object.keys(REASON_CODES));

/** Every code of an answer, or the sentence itself where a code is missing or unknown. */
function uncoded(a: Answer | ViewedAnswer): string[] {
  const parts: Array<{ code?: unknown; message?: unknown; reason?: unknown }> = [...a.reasons, ...a.notes, ...a.victims];
  return parts.filter((p) => typeof p.code !== 'string' || !CODES.has(p.code)).map((p) => `${String(p.code)}: ${JSON.stringify(p.message ?? p.reason ?? p)}`);
}

describe('reason codes', () => {
  const seen = new Set<string>();
  const record = (a: Answer | ViewedAnswer) => [...a.reasons, ...a.notes, ...a.victims].forEach((p) => seen.add(p.code));

  it('every golden case answers with a coded reason, note and victim', async () => {
    for (const c of loadGoldenCases(here)) {
      const session = openSession([{ path: relative(ROOT, c.file), text: c.text }], 'reference');
      for (const w of session.policy.whatIfs) {
        const a = await session.answerJob(w.name, w.submit);
        expect(uncoded(a), `${relative(ROOT, c.file)} ${w.name}`).toEqual([]);
        record(a);
      }
    }
  });

  it('every shipped policy answers with coded reasons, for everyone and for each member of its workspaces', async () => {
    const bundles = readBundles([join(ROOT, 'policies'), join(ROOT, 'docs/examples')]);
    expect(bundles.length).toBeGreaterThan(5);
    for (const b of bundles) {
      const session = openSession(b.files, 'reference');
      if (!session.snapshot) continue;
      const users = [...new Set(session.policy.workspaces.flatMap((w) => w.members.map((m) => m.user)))];
      for (const w of session.policy.whatIfs) {
        const a = await session.answerJob(w.name, w.submit);
        expect(uncoded(a), `${b.label} ${w.name}`).toEqual([]);
        record(a);
        for (const user of users) {
          const v = await session.answerJob(w.name, w.submit, { viewer: session.viewer(user, { outsider: true }) });
          expect(uncoded(v), `${b.label} ${w.name} as ${user}`).toEqual([]);
        }
      }
    }
    // The cases above reach most of the table: a code none of them produces is listed here so it is noticed.
    expect(seen.size).toBeGreaterThan(Object.keys(REASON_CODES).length / 2);
  });

  it('every shipped scaling answers with coded reasons and changed jobs, for everyone and for each member', () => {
    const bundles = readBundles([join(ROOT, 'policies'), join(ROOT, 'docs/examples')]);
    let scalings = 0;
    const scaleUncoded = (a: ScaleAnswer) => [...a.reasons, ...a.changes].filter((p) => !CODES.has(p.code)).map((p) => `${String(p.code)}: ${JSON.stringify('message' in p ? p.message : p.reason)}`);
    for (const b of bundles) {
      const session = openSession(b.files, 'reference');
      if (!session.snapshot) continue;
      const users = [...new Set(session.policy.workspaces.flatMap((w) => w.members.map((m) => m.user)))];
      // Each ScaleQuota, and each quota set to its own min, grown by 8 and shrunk to 0 (the branches a shipped scaling may not reach: returns, stays, no change).
      const src = session.policy.quotas[0]!.src;
      const extra = session.policy.quotas.flatMap((q) => [q.min.gpu, 8 + q.min.gpu, 0].map((gpu) => ({ name: `${q.name}=${gpu}`, set: [{ quota: q.name, gpu, src }], src })));
      for (const scale of [...session.policy.scales, ...extra]) {
        for (const user of [undefined, ...users]) {
          const a = session.scale(scale, user, { outsider: true });
          expect(scaleUncoded(a), `${b.label} ${scale.name}${user ? ` as ${user}` : ''}`).toEqual([]);
          for (const p of [...a.reasons, ...a.changes]) seen.add(p.code);
        }
        scalings++;
      }
    }
    expect(scalings).toBeGreaterThan(2);
    for (const code of Object.keys(REASON_CODES).filter((c) => c.startsWith('scale/'))) expect(seen, code).toContain(code);
  });

  it("the table equals docs/cli.md's list and the published schema's code enum", () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Reason codes'));
    const documented = [...section.matchAll(/^\| `([a-z]+\/[a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...CODES].sort());
    const common = JSON.parse(readFileSync(join(ROOT, 'schemas/common.json'), 'utf8')) as { definitions: { reasonCode: { enum: string[] } } };
    expect([...common.definitions.reasonCode.enum].sort()).toEqual([...CODES].sort());
  });
});
