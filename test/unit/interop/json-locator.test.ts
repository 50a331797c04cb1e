/**
 * JSON read at JSON.parse's speed with positions on demand (interop/json-scan.ts,
 * interop/json-locator.ts) against the yaml library's positioned parse, which the
 * YAML path locates with: for generated JSON in any spacing, every value and key is
 * found at the same offsets and line:column, a missing path stops at the same place,
 * children the scan recorded lead to the same offsets as children read on demand,
 * and the scan finds a duplicate key exactly when the yaml parser does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNode, parseAllDocuments } from 'yaml';
import { JsonLocator } from '../../../src/interop/json-locator.js';
import { scanJson } from '../../../src/interop/json-scan.js';
import { nodeAt, parseFiles, type PathSeg } from '../../../src/policy/parse/source-doc.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

/** A JSON value as generated: lists, and maps as key/value pairs (keys may repeat). */
type Gen = { t: 'scalar'; v: string } | { t: 'list'; items: Gen[] } | { t: 'map'; pairs: Array<[string, Gen]> };

const KEY = fc.oneof(
  // Keys from a small set repeat often: one written plainly, the next with an escape (see write).
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'ab') },
  fc.constantFrom('name', 'items', 'kind', '0', '10', '__proto__', 'a b', 'é', '', 'nvidia.com/gpu'),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
);
const SCALAR = fc.oneof(
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('0', '-1', '1.5', '2e3', '1e999', 'true', 'false', 'null', '"\\u0041\\n"', '"\\"quoted\\""', '"a\\\\b"'),
  fc.integer().map(String),
);
const { value: VALUE } = fc.letrec<{ value: Gen; list: Gen; map: Gen }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    SCALAR.map((v): Gen => ({ t: 'scalar', v })),
    tie('list'),
    tie('map'),
  ),
  // A long list now and then: the scan keeps the children of long lists (and of maps holding them) for the locator.
  list: fc
    .oneof(
      { weight: 9, arbitrary: fc.array(tie('value'), { maxLength: 5 }) },
      {
        weight: 1,
        arbitrary: fc.array(
          SCALAR.map((v): Gen => ({ t: 'scalar', v })),
          { minLength: 64, maxLength: 70 },
        ),
      },
    )
    .map((items): Gen => ({ t: 'list', items })),
  map: fc.array(fc.tuple(KEY, tie('value')), { maxLength: 5 }).map((pairs): Gen => ({ t: 'map', pairs })),
}));

/** Spacing between tokens, as tools write it (none, kubectl's 4 spaces, tabs, CRLF). */
const SPACING = fc.constantFrom('', ' ', '\n    ', '\t', '\r\n  ', '\n');

/**
 * The text of a value, spacing `sp` around every token; `escapeKeys` spells `a` and `b`
 * in every other key as \u escapes, so one key is often written both ways.
 */
function write(g: Gen, sp: string, escapeKeys: boolean, count = { keys: 0 }): string {
  if (g.t === 'scalar') return g.v;
  if (g.t === 'list') return `[${sp}${g.items.map((x) => write(x, sp, escapeKeys, count)).join(`${sp},${sp}`)}${sp}]`;
  const key = (k: string): string => (escapeKeys && count.keys++ % 2 === 1 ? JSON.stringify(k).replace(/[ab]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`) : JSON.stringify(k));
  return `{${sp}${g.pairs.map(([k, v]) => `${key(k)}${sp}:${sp}${write(v, sp, escapeKeys, count)}`).join(`${sp},${sp}`)}${sp}}`;
}

/** The value with repeated keys dropped (the first kept), so that every reader means the same map. */
function unique(g: Gen): Gen {
  if (g.t === 'scalar') return g;
  if (g.t === 'list') return { t: 'list', items: g.items.map(unique) };
  const seen = new Set<string>();
  return { t: 'map', pairs: g.pairs.filter(([k]) => !seen.has(k) && !!seen.add(k)).map(([k, v]) => [k, unique(v)]) };
}

/** Every path into the value, with a few that run out. */
function paths(g: Gen, at: PathSeg[] = [], out: PathSeg[][] = []): PathSeg[][] {
  out.push(at);
  if (g.t === 'list') {
    g.items.forEach((x, i) => paths(x, [...at, i], out));
    out.push([...at, g.items.length]);
  } else if (g.t === 'map') {
    for (const [k, v] of g.pairs) paths(v, [...at, k], out);
    out.push([...at, 'missing-key']);
  } else out.push([...at, 'below-a-scalar']);
  return out;
}

describe('JsonLocator', () => {
  it('finds every value and key where the yaml positioned parse does, in any spacing', () => {
    let compared = 0;
    fc.assert(
      fc.property(VALUE, SPACING, fc.boolean(), (raw, sp, escapeKeys) => {
        const g = unique(raw);
        const text = `${sp}${write(g, sp, escapeKeys)}${sp}`;
        const sd = parseFiles([{ path: 'x.json', text }]).docs[0]!;
        const located = new JsonLocator(text);
        const scanned = new JsonLocator(text, scanJson(text, { maxDepth: 1000, maxValues: 1e9 }).children);
        for (const path of paths(g).slice(0, 40)) {
          for (const key of [false, true]) {
            const node = nodeAt(sd, path, key);
            if (!isNode(node) || !node.range) continue;
            const want = [node.range[0], node.range[1]];
            expect(located.rangeAt(path, key), `${JSON.stringify(path)} in ${JSON.stringify(text)}`).toEqual(want);
            expect(scanned.rangeAt(path, key)).toEqual(want);
            const pos = sd.lines.linePos(want[0]!);
            expect(located.linePos(want[0]!)).toEqual(pos);
            compared++;
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect(compared).toBeGreaterThan(RUNS);
  });

  it("gives a value's own text (1e999 as written), and nothing for a path that runs out", () => {
    const text = '{\n  "a": [1, {"b": 1e999}],\n  "c": "x"\n}';
    const l = new JsonLocator(text);
    expect(l.sourceText(['a', 1, 'b'])).toBe('1e999');
    expect(l.sourceText(['c'])).toBe('"x"');
    expect(l.sourceText(['a', 5])).toBeUndefined();
    expect(l.linePos(l.rangeAt(['c'])[0])).toEqual({ line: 3, col: 8 });
  });
});

describe('scanJson', () => {
  it('finds a duplicate key exactly when the yaml parser does, with its path', () => {
    let dups = 0;
    fc.assert(
      fc.property(VALUE, fc.boolean(), (g, escapeKeys) => {
        const text = write(g, ' ', escapeKeys);
        const yamlDup = parseAllDocuments(text, { uniqueKeys: true }).some((d) => d.errors.some((e) => e.code === 'DUPLICATE_KEY'));
        const problem = scanJson(text, { maxDepth: 1000, maxValues: 1e9 }).problem;
        expect(problem?.kind === 'duplicate-key', text).toBe(yamlDup);
        if (problem?.kind === 'duplicate-key') {
          dups++;
          // The path leads to an object holding the key twice.
          let v: unknown = g;
          for (const seg of problem.path) v = (v as Gen).t === 'list' ? (v as { items: Gen[] }).items[seg as number] : (v as { pairs: Array<[string, Gen]> }).pairs.find(([k]) => k === seg)![1];
          expect((v as { pairs: Array<[string, Gen]> }).pairs.filter(([k]) => k === problem.key).length).toBeGreaterThan(1);
        }
      }),
      { numRuns: RUNS },
    );
    expect(dups).toBeGreaterThan(0);
  });

  it('finds a repeated key among many (a Set takes over past 32 keys), spelled with an escape or not', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}": ${i}`);
    expect(scanJson(`{${keys.join(',')}}`, { maxDepth: 10, maxValues: 1000 }).problem).toBeUndefined();
    const dup = scanJson(`{"x": {${keys.join(',')}, "\\u006b7": 0}}`, { maxDepth: 10, maxValues: 1000 }).problem;
    expect(dup).toMatchObject({ kind: 'duplicate-key', key: 'k7', path: ['x'] });
    expect(scanJson('[{"ab": 1}, {"ab": 2}]', { maxDepth: 10, maxValues: 100 }).problem).toBeUndefined();
    expect(scanJson('[{"ab": 1, "a\\u0062": 2}]', { maxDepth: 10, maxValues: 100 }).problem).toMatchObject({ kind: 'duplicate-key', path: [0], key: 'ab', at: 11, firstAt: 2 });
  });

  it('stops at the first value past the limits, before anything is built', () => {
    expect(scanJson('[[[[1]]]]', { maxDepth: 3, maxValues: 100 }).problem).toEqual({ kind: 'too-deep', at: 3 });
    expect(scanJson('[{}, {}, {}, {}]', { maxDepth: 3, maxValues: 4 }).problem).toEqual({ kind: 'too-many-values', at: 13 });
    expect(scanJson('{"a": "x", "b": [1, 2]}', { maxDepth: 3, maxValues: 5 }).problem).toBeUndefined();
  });
});
