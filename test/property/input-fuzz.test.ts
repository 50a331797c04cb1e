/**
 * The input fuzz of issue 7 as a seeded property: a shipped policy mutated at its edges
 * (nesting thousands of levels deep, CR-only line breaks, control and bidi characters
 * in a value, runs of empty documents, truncation anywhere, a line duplicated or
 * dropped) must give findings or a policy, never an exception; every finding is
 * located and coded, and none leaks a raw control character or a stack overflow.
 * Line breaks and empty documents alone change nothing: the same policy comes back.
 *
 * `QUOTIENT_FUZZ_RUNS` sets the number of runs (`npm run test:fuzz` runs 3,000),
 * `QUOTIENT_FUZZ_SEED` replays one seed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/policy/load-policy.js';
import type { InputFile } from '../../src/policy/parse/source-doc.js';

const RUNS = Number(process.env.QUOTIENT_FUZZ_RUNS ?? 60);
const SEED = process.env.QUOTIENT_FUZZ_SEED === undefined ? 7_0707 : Number(process.env.QUOTIENT_FUZZ_SEED);
const NOW = Date.parse('2026-11-20T12:00:00Z');
// A soak run takes minutes; the default run a few seconds.
const TIMEOUT = Math.max(60_000, RUNS * 1_000);

const bundles: InputFile[][] = readdirSync('policies')
  .sort()
  .map((d) =>
    readdirSync(join('policies', d))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => ({ path: join('policies', d, f), text: readFileSync(join('policies', d, f), 'utf8') })),
  );

/** Characters a terminal would obey, or that hide or reorder text. */
const NASTY = ['\u0000', '\u0007', '\u001b[2J', '\u001b]0;x\u0007', '\u007f', '\u0085', '\u009b', '\u200e', '\u202e', '\u2066', '\u2028', '\r', '\t'];

type Mutation =
  | { kind: 'deep-block'; at: number; depth: number }
  | { kind: 'deep-flow'; at: number; depth: number }
  | { kind: 'cr-only' }
  | { kind: 'control'; at: number; char: number; quoted: boolean }
  | { kind: 'empty-docs'; at: number; count: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'dup-line'; at: number }
  | { kind: 'drop-line'; at: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('deep-block' as const), at: fc.nat(), depth: fc.integer({ min: 50, max: 2500 }) }),
  fc.record({ kind: fc.constant('deep-flow' as const), at: fc.nat(), depth: fc.integer({ min: 50, max: 3000 }) }),
  fc.record({ kind: fc.constant('cr-only' as const) }),
  fc.record({ kind: fc.constant('control' as const), at: fc.nat(), char: fc.nat({ max: NASTY.length - 1 }), quoted: fc.boolean() }),
  fc.record({ kind: fc.constant('empty-docs' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 2000 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('dup-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('drop-line' as const), at: fc.nat() }),
);

/** The offsets of line starts in `text`. */
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** Applies one mutation to one file's text. */
function mutate(text: string, m: Mutation): string {
  const starts = lineStarts(text);
  const lineAt = (n: number) => starts[n % starts.length] ?? 0;
  switch (m.kind) {
    case 'deep-block': {
      // A key opening `depth` nested mappings, put after a line that ends in `:` or anywhere.
      const at = lineAt(m.at);
      const nest = Array.from({ length: m.depth }, (_, i) => `${' '.repeat(i)}k${i}:\n`).join('');
      return `${text.slice(0, at)}${nest}${' '.repeat(m.depth)}v\n${text.slice(at)}`;
    }
    case 'deep-flow': {
      // A scalar value replaced by `depth` nested lists.
      const scalar = /: ([A-Za-z0-9][^,}\]\n#]*)/g;
      const found = [...text.matchAll(scalar)];
      const hit = found[m.at % Math.max(1, found.length)];
      if (!hit || hit.index === undefined) return text;
      const at = hit.index + 2;
      return `${text.slice(0, at)}${'['.repeat(m.depth)}${hit[1]}${']'.repeat(m.depth)}${text.slice(at + (hit[1]?.length ?? 0))}`;
    }
    case 'cr-only':
      return text.replace(/\r?\n/g, '\r');
    case 'control': {
      const found = [...text.matchAll(/: ([A-Za-z][\w.-]*)/g)];
      const hit = found[m.at % Math.max(1, found.length)];
      if (!hit || hit.index === undefined) return text;
      const at = hit.index + 2;
      const value = `${hit[1]}${NASTY[m.char] ?? ''}x`;
      // Quoted with escapes the way a user might write it, or raw in the text.
      const written = m.quoted ? JSON.stringify(value) : value;
      return `${text.slice(0, at)}${written}${text.slice(at + (hit[1]?.length ?? 0))}`;
    }
    case 'empty-docs': {
      const at = lineAt(m.at);
      return `${text.slice(0, at)}${'---\n'.repeat(m.count)}${text.slice(at)}`;
    }
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
    case 'dup-line': {
      const at = lineAt(m.at);
      const end = text.indexOf('\n', at);
      const line = text.slice(at, end < 0 ? text.length : end + 1);
      return text.slice(0, at) + line + text.slice(at);
    }
    case 'drop-line': {
      const at = lineAt(m.at);
      const end = text.indexOf('\n', at);
      return text.slice(0, at) + (end < 0 ? '' : text.slice(end + 1));
    }
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('input fuzz', () => {
  it(
    'any edge mutation of a shipped policy gives located findings or a policy, never an exception',
    () => {
      let refused = 0;
      let loaded = 0;
      fc.assert(
        fc.property(fc.nat({ max: bundles.length - 1 }), fc.nat(), fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (b, f, mutations) => {
          const files = (bundles[b] ?? []).map((x) => ({ ...x }));
          const target = files[f % files.length];
          if (!target) return;
          for (const m of mutations) target.text = mutate(target.text, m);
          const { policy, findings } = loadPolicy(files, { now: NOW });
          for (const x of findings) {
            expect(x.code).toMatch(/^policy\/[a-z0-9-]+$/);
            expect(x.line).toBeGreaterThan(0);
            expect(x.column).toBeGreaterThan(0);
            expect(files.map((y) => y.path)).toContain(x.file);
            expect(x.message).not.toMatch(/Maximum call stack|RangeError|undefined is not|Cannot read prop/);
            expect(x.message + x.hint + x.path).not.toMatch(RAW_CONTROL);
          }
          if (policy) loaded++;
          else {
            expect(findings.some((x) => x.severity === 'error')).toBe(true);
            refused++;
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
      // Every run reached the checks, and both outcomes occur often: the mutations are
      // neither all harmless nor all fatal (17 loaded and 43 refused of 60 with the default seed).
      expect(loaded + refused).toBe(RUNS);
      expect(loaded).toBeGreaterThanOrEqual(Math.ceil(RUNS / 6));
      expect(refused).toBeGreaterThanOrEqual(Math.ceil(RUNS / 3));
    },
    TIMEOUT,
  );

  it(
    'CR-only line breaks and runs of empty documents change nothing',
    () => {
      fc.assert(
        fc.property(fc.nat({ max: bundles.length - 1 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 500 }), fc.boolean(), (b, f, at, count, cr) => {
          const files = bundles[b] ?? [];
          const before = loadPolicy(files, { now: NOW });
          const changed = files.map((x, i) => {
            if (i !== f % files.length) return x;
            // Empty documents go where a document ends: the start, the end, or before a `---`.
            const text = x.text.endsWith('\n') ? x.text : `${x.text}\n`;
            const bounds = [0, text.length, ...lineStarts(text).filter((s) => text.startsWith('---', s))];
            const where = bounds[at % bounds.length] ?? 0;
            const withDocs = `${text.slice(0, where)}${'---\n'.repeat(count)}${text.slice(where)}`;
            return { ...x, text: cr ? mutate(withDocs, { kind: 'cr-only' }) : withDocs };
          });
          const after = loadPolicy(changed, { now: NOW });
          expect(after.findings.map((x) => x.code)).toEqual(before.findings.map((x) => x.code));
          expect(after.policy?.quotas.map((q) => q.name)).toEqual(before.policy?.quotas.map((q) => q.name));
          expect(after.policy?.promises.map((p) => p.name)).toEqual(before.policy?.promises.map((p) => p.name));
          expect(after.policy?.whatIfs.map((w) => w.name)).toEqual(before.policy?.whatIfs.map((w) => w.name));
          expect(after.policy?.cluster?.jobs.length).toEqual(before.policy?.cluster?.jobs.length);
        }),
        { numRuns: Math.max(10, Math.floor(RUNS / 4)), seed: SEED },
      );
    },
    TIMEOUT,
  );
});
