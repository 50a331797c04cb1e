/**
 * "Never a stack trace": any edit of a valid policy — a line dropped, a value replaced
 * by another, a line duplicated — must give either findings or answers, never an
 * exception from the engine, the kernel or a library. The shrunk counterexample is the
 * edited text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/engine/session.js';
import type { InputFile } from '../../src/policy/parse/source-doc.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);
// Seeded: how many edits are harmless swings widely between seeds (24-42 answered of 150 over
// seeds 1-6), so an unseeded run could fall under the floors below by chance alone.
const SEED = Number(process.env.QUOTIENT_PROPERTY_SEED ?? 1);

const bundles = readdirSync('policies').map((d) =>
  readdirSync(join('policies', d))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join('policies', d, f), text: readFileSync(join('policies', d, f), 'utf8') })),
);

/** Values an edit may write in place of a scalar: wrong types, bounds, other names. */
const REPLACEMENTS = ['0', '-1', '9', '10', '33', '1.5', '"x"', 'null', '[]', '{}', 'true', 'Quota1', 'n-0', '2026-13-45', '1e400', '"1-9"', '"9-1"', 'DLC', 'borrowing', 'only'];

type Edit = { file: number; line: number; kind: 'drop' | 'dup' | 'value'; value: number };

const editArb = fc.record({
  file: fc.nat(),
  line: fc.nat(),
  kind: fc.constantFrom('drop' as const, 'dup' as const, 'value' as const, 'value' as const),
  value: fc.nat({ max: REPLACEMENTS.length - 1 }),
});

function apply(files: InputFile[], edits: Edit[]): InputFile[] {
  const out = files.map((f) => ({ ...f, lines: f.text.split('\n') }));
  for (const e of edits) {
    const f = out[e.file % out.length]!;
    const i = e.line % f.lines.length;
    const line = f.lines[i]!;
    if (e.kind === 'drop') f.lines.splice(i, 1);
    else if (e.kind === 'dup') f.lines.splice(i, 0, line);
    else f.lines[i] = line.replace(/(:\s*)([^\s{[,][^,}\]]*)/, `$1${REPLACEMENTS[e.value]}`);
  }
  return out.map((f) => ({ path: f.path, text: f.lines.join('\n') }));
}

describe('robustness', () => {
  it('answers or reports findings for any edit of a shipped policy, and never throws', async () => {
    let answered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bundles.length - 1 }), fc.array(editArb, { minLength: 1, maxLength: 3 }), async (b, edits) => {
        const files = apply(bundles[b]!, edits);
        const { session, findings } = Session.open(files, { backend: 'wasm', now: Date.parse('2026-11-20T12:00:00Z') });
        if (!session) {
          expect(findings.some((f) => f.severity === 'error')).toBe(true);
          for (const f of findings) expect(f.line).toBeGreaterThan(0);
          refused++;
          return;
        }
        for (const w of session.policy.whatIfs) await session.answerJob(w.name, w.submit);
        for (const s of session.policy.scales) session.scale(s);
        answered++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Both paths were taken often: the edits are neither all harmless nor all fatal
    // (seed 1: 35 answered and 115 refused of 150).
    expect(answered).toBeGreaterThanOrEqual(Math.ceil(RUNS / 6));
    expect(refused).toBeGreaterThanOrEqual(Math.ceil(RUNS / 3));
  });
});
