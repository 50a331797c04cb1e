/**
 * The subset reader (policy/parse/subset-yaml.ts) against the general parsers: on any text it
 * either reads exactly what js-yaml's `loadAll` reads (and the yaml library's positioned
 * parse, where that one has no error) or declines, and it never accepts a text either
 * parser refuses. The texts are job lines as a Cluster holds them, written with the odd
 * spellings people and tools produce — quotes of both kinds, comments, anchors and
 * aliases, tags, unusual spacing, unicode, numbers in every YAML form, keys that are
 * not strings, indicators, controls, flow collections left open — and whole documents
 * in block and flow styles. A check that it declined everything would pass vacuously,
 * so each property also counts what it read.
 */
import fc from 'fast-check';
import { CORE_SCHEMA, dump, loadAll } from 'js-yaml';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { fastParse } from '../../../src/policy/parse/fast-parse.js';
import { readSubset } from '../../../src/policy/parse/subset-yaml.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { parseFiles } from '../../../src/policy/parse/source-doc.js';
import { scanText } from '../../../src/policy/parse/text-depth.js';
import { Differential } from '../../helpers/differential.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 400);
const LIMITS = { maxDepth: 100, maxEntries: 2_000_000 };

/** js-yaml's documents, or 'error'. */
function jsYaml(text: string): unknown[] | 'error' {
  try {
    return loadAll(text, null, { schema: CORE_SCHEMA, json: false });
  } catch {
    return 'error';
  }
}

/** The positioned parser's documents (empty ones left out, as the loader does), or 'error' when any has an error or a warning. */
function positioned(text: string): unknown[] | 'error' {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0 || d.warnings.length > 0)) return 'error';
  return docs.filter((d) => d.contents !== null).map((d) => d.toJS({ maxAliasCount: 100 }));
}

/** Entries as the loader counts them: mapping pairs and list items. */
function countEntries(v: unknown): number {
  if (Array.isArray(v)) return v.length + v.reduce((n: number, x) => n + countEntries(x), 0);
  if (v !== null && typeof v === 'object') return Object.values(v).reduce((n: number, x) => n + 1 + countEntries(x), 0);
  return 0;
}

/**
 * The subset reader against js-yaml (its oracle: it reads exactly what `loadAll` reads,
 * or declines) through the shared differential harness; its witness is the count of texts
 * the subset reader read, so a reader that declined everything shows as uncovered.
 */
let subsetReads = 0;
const subsetTwin = new Differential('YAML subset reader vs js-yaml', () => subsetReads);

/**
 * The agreement itself: declined, or the same documents as js-yaml (and as the positioned
 * parse when it reads the text cleanly), with entries counted the same. True when read.
 */
function agrees(text: string, limits = LIMITS): boolean {
  let read: ReturnType<typeof readSubset>;
  const values = subsetTwin.sameOrDeclined(
    () => {
      read = readSubset(text, limits);
      if (read) subsetReads++;
      return read?.values;
    },
    () => {
      // With other limits only the text scan is compared below: js-yaml knows no limits.
      if (limits !== LIMITS) return read?.values;
      const reference = jsYaml(text);
      expect(reference, `js-yaml refuses what the subset reader read:\n${text}`).not.toBe('error');
      return reference;
    },
    `for:\n${text}`,
  );
  if (values === undefined || !read) return false;
  // The loader skips its text scan for a text the subset reader read: the scan must have nothing to say.
  const shape = scanText(text, limits.maxDepth * 2, limits.maxEntries);
  expect(shape.deepAt, `the text scan finds nesting too deep in:\n${text}`).toBeUndefined();
  expect(shape.entriesOverAt, `the text scan finds too many entries in:\n${text}`).toBeUndefined();
  if (limits !== LIMITS) return true;
  // Strictly equal too (the harness compares with toEqual): no -0 for 0, no sparse arrays.
  const reference = jsYaml(text) as unknown[];
  expect(isDeepStrictEqual(read.values, reference), `subset ${JSON.stringify(read.values)} vs js-yaml ${JSON.stringify(reference)} for:\n${text}`).toBe(true);
  const slow = positioned(text);
  if (slow !== 'error') expect(isDeepStrictEqual(read.values, slow), `subset vs positioned for:\n${text}`).toBe(true);
  expect(read.entries).toBe(reference.reduce((n: number, d) => n + countEntries(d), 0));
  // asciiOnly promises no string holds anything but printable ASCII.
  if (read.asciiOnly) expect(JSON.stringify(read.values)).toMatch(/^[\x20-\x7e]*$/);
  return true;
}

/** Plain words and names, as job fields hold them, and unicode ones. */
const WORDS = ['j0', 'ws-div0', 'div0-team1-proj2', 'DLC', 'n-8057', 'in-quota', 'a b', 'a  b', 'été', '名前', 'gpu🚀', 'x.y', 'a/b', '_x', 'Quota1.1', 'yes', 'no', 'on', 'off', 'y', 'n'];
/** Scalars that resolve to something else than text, in the spellings YAML allows, and near misses. */
const RESOLVING = [
  '0',
  '7',
  '007',
  '-0',
  '+12',
  '-5',
  '0x1F',
  '0o17',
  '0b101',
  '1e3',
  '1E-2',
  '.5',
  '1.',
  '-1.5',
  '1_000',
  '.inf',
  '-.Inf',
  '.NaN',
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'FALSE',
  '123456789012345678',
  '2026-11-20T01:58:00Z',
  '2026-11-20',
  '12:30',
  '1:2:3',
];
/** Quoted scalars and things that look like them. */
const QUOTED = ['"a b"', "'a b'", "'it''s'", '"it\'s"', '""', "''", '" lead"', "'trail '", '"a # b"', "'a: b'", '"{x}"', '"é名"', "'-'", '"~"', "'7'"];
/** Indicators, controls and other things a scalar may not be or may not hold. */
const ODD = [
  '"a\\"b"',
  '"\\t"',
  '"\\u00e9"',
  '"a',
  "'a",
  '&a x',
  '*a',
  '!!str 1',
  '!x y',
  '|',
  '>',
  '%x',
  '@x',
  '`x`',
  '?x',
  ':x',
  '-',
  '- x',
  '-x',
  'a:b',
  'a: b',
  'a#b',
  'a #b',
  '#c',
  'a\tb',
  'a\u0001b',
  'a\u2028b',
  'a\u202eb',
  'a\u0085b',
  '\ufeffa',
  'a\u00a0b',
  'a,b',
  'a]',
  '[a, ]',
  '[a: 1]',
  '[, a]',
  '{a: }',
  '{a}',
  '{ a: 1, }',
  '[a',
  '{a: 1',
  '[]',
  '{}',
  '[ ]',
  '{ }',
  '[1, [2, [3]]]',
  '{x: {y: {z: 1}}}',
  '<<',
];
const GOOD_KEYS = ['name', 'workspace', 'quota', 'a b', 'a:b', 'été', '"quoted key"', "'k''q'", 'x', 'y', 'z', 'gpu', 'a[0]', 'a#b'];
const ODD_KEYS = ['1', 'true', '~', 'null', '__proto__', 'constructor', '<<', '-x', '"a": 1', '?', '', 'x'];
const KEYS = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...GOOD_KEYS) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_KEYS) });

/** Mostly ordinary values, one in twelve odd. */
const scalar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 3, arbitrary: fc.constantFrom(...RESOLVING) },
  { weight: 2, arbitrary: fc.constantFrom(...QUOTED) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD) },
);
const space = fc.constantFrom('', ' ', ' ', '  ');
/** `: ` mostly; a colon with no space after it makes a plain scalar of `a:b` instead. */
const colon = fc.oneof({ weight: 12, arbitrary: fc.constant(': ') }, { weight: 3, arbitrary: fc.constantFrom(' : ', ':  ') }, { weight: 1, arbitrary: fc.constant(':') });
/** Mostly what bench/b3-policy.ts writes; the rest are valid elsewhere or not at all. */
const rarely = (usual: string, ...odd: string[]) => fc.oneof({ weight: 6, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(...odd) });

/** A flow collection one line long, with random spacing; `depth` bounds its nesting. */
const flowValue: fc.Memo<string> = fc.memo((depth) => {
  const leaf = scalar;
  if (depth <= 1) return leaf;
  const list = fc.tuple(fc.array(fc.tuple(space, flowValue(depth - 1), space), { maxLength: 4 }), space).map(([items, end]) => `[${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}${end}]`);
  const map = fc
    .tuple(fc.array(fc.tuple(space, KEYS, colon, flowValue(depth - 1), space), { maxLength: 5 }), space)
    .map(([pairs, end]) => `{${pairs.map(([a, k, c, v, b]) => `${a}${k}${c}${v}${b}`).join(',')}${end}}`);
  return fc.oneof({ weight: 2, arbitrary: leaf }, { weight: 1, arbitrary: list }, { weight: 2, arbitrary: map });
});

/** A job line as a Cluster holds it, in the shape bench/b3-policy.ts writes, with random spellings of its values. */
const jobLine = fc
  .record({
    indent: rarely('    ', '  ', '', '      '),
    dash: rarely('- ', '-  '),
    name: scalar,
    ws: fc.oneof(fc.constantFrom(...WORDS), scalar),
    priority: fc.oneof(fc.integer({ min: 1, max: 9 }).map(String), fc.constantFrom(...RESOLVING)),
    gpus: fc.array(fc.oneof(fc.nat(7).map(String), scalar), { minLength: 0, maxLength: 3 }),
    extra: fc.array(fc.tuple(KEYS, flowValue(3)), { maxLength: 2 }),
    s: fc.array(space, { minLength: 6, maxLength: 6 }),
    tail: rarely('', ' # placed by hand', '#c', '  ', ' #'),
  })
  .map(
    (j) =>
      `${j.indent}${j.dash}{${j.s[0]}name:${j.s[1] || ' '}${j.name}, workspace: ${j.ws}, priority: ${j.priority}, resources: {${j.s[2]}gpu: 1${j.s[3]}}` +
      `${j.extra.map(([k, v]) => `, ${k}: ${v}`).join('')}, placement: [{ node: n-1, gpus: [${j.gpus.join(`,${j.s[4]}`)}] }]${j.s[5]}}${j.tail}`,
  );

const HEADER = 'apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: c }\nspec:\n  at: 2026-11-20T12:00:00Z\n  jobs:\n';

describe('the subset reader', () => {
  it('reads generated job lines exactly as js-yaml and the positioned parse, or declines', () => {
    let read = 0;
    fc.assert(
      fc.property(fc.array(jobLine, { minLength: 1, maxLength: 4 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        // Block lists under `jobs:` indented by two, as written; other indentations make other (or no) documents.
        if (agrees((HEADER + lines.join('\n') + '\n').replace(/\n/g, eol))) read++;
      }),
      { numRuns: RUNS },
    );
    // Many generated lines hold an odd spelling somewhere; still, plenty must be read.
    expect(read).toBeGreaterThan(RUNS * 0.12);
  });

  it('reads generated flow values under a key exactly as js-yaml, or declines', () => {
    let read = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(KEYS, flowValue(4), fc.constantFrom('', ' # c', '#c')), { minLength: 1, maxLength: 5 }), (pairs) => {
        if (agrees(pairs.map(([k, v, c]) => `${k}: ${v}${c}`).join('\n'))) read++;
      }),
      { numRuns: RUNS },
    );
    expect(read).toBeGreaterThan(RUNS * 0.1);
  });

  it('reads generated documents in block, flow and mixed styles exactly as js-yaml, or declines', () => {
    const STYLES: Array<(d: unknown) => string> = [
      (d) => stringify(d),
      (d) => stringify(d, { indentSeq: false }),
      (d) => stringify(d, { collectionStyle: 'flow' }),
      (d) => stringify(d, { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' }),
      (d) => dump(d, { flowLevel: 1 }),
      (d) => dump(d, { indent: 4, seqNoIndent: true, seqInlineFirst: false }),
      (d) => dump(d, { flowLevel: 2, flowBracketPadding: true, quoteStyle: 'double', forceQuotes: true }),
    ];
    const key = fc.oneof(fc.constantFrom('name', 'a b', 'été', 'x-y', 'k'), fc.string({ minLength: 1, maxLength: 6 }));
    const leaf = fc.oneof(fc.constantFrom(...WORDS, ...RESOLVING), fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('map')),
      list: fc.array(tie('node'), { maxLength: 4 }),
      map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    })).map;
    let read = 0;
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), fc.nat(STYLES.length - 1), fc.integer({ min: 1, max: 5 }), fc.nat(30), (docs, style, maxDepth, maxEntries) => {
        const texts = docs.map((d) => STYLES[style]!(d));
        if (agrees(texts.join('---\n'))) read++;
        // Near the limits: read only within them, and then the text scan is quiet too.
        agrees(texts.join('---\n'), { maxDepth, maxEntries });
      }),
      { numRuns: RUNS },
    );
    expect(read).toBeGreaterThan(RUNS * 0.3);
  });

  it('declines what it leaves to the general parsers, and the loader still reads those texts', () => {
    const cases: Record<string, string> = {
      anchor: 'a: &x 1\nb: *x\n',
      tag: 'a: !!str 1\n',
      'block scalar': 'a: |\n  text\n',
      'multi-line plain': 'a: one\n  two\n',
      'multi-line flow': 'a: [1,\n  2]\n',
      escape: 'a: "x\\ty"\n',
      'complex key': '? a\n: b\n',
      directive: '%YAML 1.2\n---\na: 1\n',
      'document end': 'a: 1\n...\n',
      'trailing comma': 'a: [1, 2, ]\n',
      'pair in a list': 'a: [b: 1]\n',
      'null in a flow': 'a: { b: }\n',
      'key not text': '1: a\n',
      'inherited key': 'constructor: a\n',
      bom: '\ufeffa: 1\n',
      'line separator': 'a: x\u2028y\n',
      'lone carriage return': 'a: x\ry\n',
      'list on a key line': 'a: - b\n',
      'empty document': 'a: 1\n---\n',
      duplicate: 'a: 1\na: 2\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      expect(readSubset(text, LIMITS), name).toBeUndefined();
      // Declined is not dropped: the loader reads the text through js-yaml or the positioned parse.
      const { docs, findings } = parseFiles([{ path: 'x.yaml', text }]);
      const reference = jsYaml(text.replace(/\r(?!\n)/g, '\n'));
      const slow = positioned(text.replace(/\r(?!\n)/g, '\n'));
      if (slow === 'error' && reference === 'error') expect(findings.length, name).toBeGreaterThan(0);
      else
        expect(
          docs.map((d) => d.value ?? d.doc.toJS()),
          name,
        ).toEqual(((reference === 'error' ? slow : reference) as unknown[]).filter((v) => v !== null));
    }
    // Past the limits: declined, so the general path finds and locates the problem.
    expect(readSubset('a: [[[1]]]\n', { maxDepth: 3, maxEntries: 100 })).toBeUndefined();
    expect(readSubset('a: [[[1]]]\n', { maxDepth: 4, maxEntries: 100 })?.values).toEqual([{ a: [[[1]]] }]);
    expect(readSubset('a: [1, 2]\n', { maxDepth: 10, maxEntries: 2 })).toBeUndefined();
    expect(readSubset('a: [1, 2]\n', { maxDepth: 10, maxEntries: 3 })?.entries).toBe(3);
  });

  it('leaves a number past the range of a double to the positioned parse, so every path reads it as infinity', () => {
    // js-yaml keeps `1e400` as text; the yaml library reads infinity: the fast paths decline.
    const texts = ['a: 1e400\n', 'a: { b: -1.5e400 }\n', `a: [0x${'f'.repeat(300)}]\n`, `a: ${'9'.repeat(400)}\n`, '1e400: x\n'];
    for (const text of texts) {
      expect(readSubset(text, LIMITS), text).toBeUndefined();
      expect(fastParse(text, LIMITS).ok, text).toBe(false);
      expect(
        parseFiles([{ path: 'x.yaml', text }]).docs.map((d) => d.value ?? d.doc.toJS()),
        text,
      ).toEqual(positioned(text));
    }
    // Written as text (quoted), it stays text on the fast path.
    expect(readSubset('a: "1e400"\n', LIMITS)?.values).toEqual([{ a: '1e400' }]);
  });

  it('reads the shapes policies are written in', () => {
    const text = [
      '# comment',
      'apiVersion: quotient.dev/v1',
      'kind: QuotaTree',
      'metadata: { name: t }   # trailing',
      'spec:',
      '  pool: { name: p }',
      '  quotas:',
      '  - name: Root',
      '    min: { gpu: 8, cpu: 500m }',
      '    children:',
      '      - name: "A"',
      "        allowedModules: ['DLC', EAS]",
      '',
      '      -',
      '        name: B',
      '---',
      'kind: Workspace',
      'spec:',
      '  quotas: [Root]',
      '  members:',
      '  - user: é',
      '    role: admin',
    ].join('\n');
    const read = readSubset(text, LIMITS);
    expect(read?.values).toEqual([
      {
        apiVersion: 'quotient.dev/v1',
        kind: 'QuotaTree',
        metadata: { name: 't' },
        spec: { pool: { name: 'p' }, quotas: [{ name: 'Root', min: { gpu: 8, cpu: '500m' }, children: [{ name: 'A', allowedModules: ['DLC', 'EAS'] }, { name: 'B' }] }] },
      },
      { kind: 'Workspace', spec: { quotas: ['Root'], members: [{ user: 'é', role: 'admin' }] } },
    ]);
    expect(read?.asciiOnly).toBe(false);
    expect(agrees(text)).toBe(true);
  });

  it('gives the located findings of a large Cluster whether the subset reader or the positioned parse read it', () => {
    // 2,500 job lines; near the end an unknown field (zod's finding), an unknown node (the build's) and a bad time.
    const jobs = Array.from({ length: 2500 }, (_, i) => {
      const extra = i === 2490 ? ', colour: red' : '';
      const node = i === 2495 ? 'n-x' : `n-${i}`;
      return `    - { name: j${i}, workspace: ws, quota: Root, module: DLC, priority: 3, pods: 1, resources: { gpu: 1 }${extra}, placement: [{ node: ${node}, gpus: [0] }] }`;
    });
    const tree =
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: p }\n  quotas:\n    - name: Root\n      min: { gpu: 2500 }\n---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: ws }\nspec: { quotas: [Root] }\n';
    const cluster = `apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: c }\nspec:\n  at: 2026-11-20T12:00:00Z\n  nodeGroups:\n    - { prefix: n-, count: 2500, gpus: 8, pool: p }\n  jobs:\n${jobs.join('\n')}\n`;
    const where = (text: string) =>
      loadPolicy(
        [
          { path: 't.yaml', text: tree },
          { path: 'c.yaml', text },
        ],
        { now: 0 },
      ).findings.map((f) => [f.code, f.file, f.line, f.column, f.path]);
    expect(readSubset(cluster, LIMITS)).toBeDefined();
    // 8 lines come before jobs[0]: jobs[i] is on line 9 + i. Columns are found in the text, not by any parser.
    const column = (text: string, line: number, what: string) => (text.split('\n')[line - 1] ?? '').indexOf(what) + 1;
    expect(where(cluster)).toEqual([['policy/unknown-field', 'c.yaml', 2499, column(cluster, 2499, 'colour'), 'spec.jobs[2490].colour']]);
    const withoutField = cluster.replace(', colour: red', '');
    expect(where(withoutField)).toEqual([['policy/unknown-node', 'c.yaml', 2504, column(withoutField, 2504, 'n-x'), 'spec.jobs[2495].placement[0].node']]);
    expect(column(cluster, 2499, 'colour')).toBeGreaterThan(100);
    // The same texts with an anchor the subset reader and js-yaml decline: read by the positioned parse from the start.
    const anchored = (text: string) => text.replace('metadata: { name: c }', 'metadata: { name: &n c }');
    expect(readSubset(anchored(cluster), LIMITS)).toBeUndefined();
    expect(where(anchored(cluster))).toEqual(where(cluster));
  });
});
