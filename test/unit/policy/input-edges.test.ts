/**
 * The edges of the input: nesting deeper than the recursive code can take, line breaks
 * of another system, empty documents, one slip in the YAML. Each must give one located
 * finding (or be read as meant), never a stack overflow, never a silently dropped file.
 * Every fixture is generated here.
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/errors.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { parseFiles } from '../../../src/policy/parse/source-doc.js';
import { DEFAULT_LIMITS } from '../../../src/policy/parse/limits.js';
import { scanText, textDepthOver } from '../../../src/policy/parse/text-depth.js';
import { measureDocument } from '../../../src/policy/parse/cst-shape.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'yaml';
import { quotaTreeDoc, rootQuotaEntry } from '../../helpers/policy-yaml.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const load = (text: string, path = 'p.yaml') => loadPolicy([{ path, text }], { now: NOW });
const errors = (fs: Finding[]) => fs.filter((f) => f.severity === 'error');

const TREE = quotaTreeDoc(rootQuotaEntry(16, '        - name: A\n          min: { gpu: 8 }\n        - name: B\n          min: { gpu: 8 }\n'));

const PROMISE = `apiVersion: quotient.dev/v1
kind: Promise
metadata: { name: a-runs }
spec:
  submit: { quota: A, priority: 9, gpu: 1 }
  expect:
    decision: [admit, preempt]
`;

const HEADER = 'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: x }\nspec:\n';

describe('nesting deeper than the limit', () => {
  const cases: Array<[string, string]> = [
    ['2,000 levels of block keys', HEADER + Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:\n`).join('') + `${'  '.repeat(2001)}v\n`],
    ['1,000 brackets', `${HEADER.slice(0, -1)} ${'['.repeat(1000)}${']'.repeat(1000)}\n`],
    [
      'a 10,000-deep quota tree',
      (() => {
        let q = '{name: q9999, min: {gpu: 0}}';
        for (let i = 9998; i >= 0; i--) q = `{name: q${i}, min: {gpu: 0}, children: [${q}]}`;
        return `${HEADER}  pool: {name: p}\n  quotas:\n    - ${q}\n`;
      })(),
    ],
  ];
  it.each(cases)('%s is one located policy/too-deep finding naming the limit', (_name, text) => {
    const { policy, findings } = load(text);
    expect(policy).toBeUndefined();
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.code).toBe('policy/too-deep');
    // The text is the behaviour here: the finding names the limit.
    expect(f.message).toContain(String(DEFAULT_LIMITS.maxDepth));
    // Located at a collection that is past the limit: on a later line or far along the line.
    expect(f.line > 4 || f.column > DEFAULT_LIMITS.maxDepth).toBe(true);
    expect(text.slice(f.start, f.start! + 1)).toMatch(/[[{a-z]/);
  });

  it('accepts a quota tree nested as deep as real ones go (20 levels)', () => {
    let q = '{name: q20, min: {gpu: 0}}';
    for (let i = 19; i >= 0; i--) q = `{name: q${i}, min: {gpu: 0}, children: [${q}]}`;
    const { findings } = load(`${HEADER}  pool: {name: p}\n  quotas:\n    - ${q}\n`);
    expect(errors(findings)).toEqual([]);
  });
});

describe('the depth estimate on the text (before the parser, which recurses on deep blocks)', () => {
  /** The smallest limit the text scan does not flag. */
  const estimate = (text: string): number => {
    let limit = 1;
    while (textDepthOver(text, limit) !== undefined) limit++;
    return limit;
  };
  const cstDepth = (text: string): number => {
    let depth = 0;
    for (const token of new Parser().parse(text)) if (token.type === 'document') depth = Math.max(depth, measureDocument(token, 1000, 1e9).depth);
    return depth;
  };

  it('is within one level of the syntax tree on every shipped policy file', () => {
    for (const d of readdirSync('policies')) {
      for (const f of readdirSync(join('policies', d)).filter((n) => n.endsWith('.yaml'))) {
        const text = readFileSync(join('policies', d, f), 'utf8');
        const [est, cst] = [estimate(text), cstDepth(text)];
        expect(est, `${d}/${f}`).toBeGreaterThanOrEqual(cst);
        expect(est, `${d}/${f}`).toBeLessThanOrEqual(cst + 1);
      }
    }
  });

  it('counts the entries the syntax tree will hold, within 1%, on every shipped policy file', () => {
    for (const d of readdirSync('policies')) {
      for (const f of readdirSync(join('policies', d)).filter((n) => n.endsWith('.yaml'))) {
        const text = readFileSync(join('policies', d, f), 'utf8');
        let cst = 0;
        for (const token of new Parser().parse(text)) if (token.type === 'document') cst += measureDocument(token, 1000, 1e9).entries;
        const est = scanText(text, 1000, 1e9).entries;
        expect(Math.abs(est - cst), `${d}/${f}: ${est} against ${cst}`).toBeLessThanOrEqual(Math.ceil(cst / 100));
      }
    }
  });

  it('does not count indented text of a block scalar, quoted brackets or comments', () => {
    const text = `${TREE}---\nkind: Promise\nspec:\n  description: |\n${Array.from({ length: 300 }, (_, i) => `    ${' '.repeat(i)}x`).join('\n')}\n  note: "${'['.repeat(300)}" # ${'{'.repeat(300)}\n`;
    expect(textDepthOver(text, 10)).toBeUndefined();
  });

  it('counts flow brackets and list indicators', () => {
    expect(textDepthOver(`a: ${'['.repeat(11)}${']'.repeat(11)}\n`, 10)).toBe(12); // the mapping and nine lists fit; the tenth bracket, at offset 12, makes eleven levels
    expect(textDepthOver(`${'- '.repeat(11)}x\n`, 10)).toBe(0);
  });
});

describe('line breaks', () => {
  it('reads a CR-only file exactly as its LF twin, promises included', () => {
    const lf = loadPolicy(
      [
        { path: 't.yaml', text: TREE },
        { path: 'pr.yaml', text: PROMISE },
      ],
      { now: NOW },
    );
    const cr = loadPolicy(
      [
        { path: 't.yaml', text: TREE.replace(/\n/g, '\r') },
        { path: 'pr.yaml', text: PROMISE.replace(/\n/g, '\r') },
      ],
      { now: NOW },
    );
    expect(cr.findings).toEqual(lf.findings);
    expect(cr.policy?.promises.map((p) => p.name)).toEqual(['a-runs']);
    expect(cr.policy).toEqual(lf.policy);
  });

  it('locates a finding in a CR-only file on the line a person sees', () => {
    const { findings } = load(TREE.replace('min: { gpu: 8 }\n        - name: B', 'mn: { gpu: 8 }\n        - name: B').replace(/\n/g, '\r'));
    expect(findings.map((f) => [f.code, f.line])).toEqual([['policy/unknown-field', 11]]);
  });
});

describe('empty documents', () => {
  it('skips `---` with nothing after it, as helm and kubectl write', () => {
    const { policy, findings } = load(`---\n${TREE}---\n---\n# only a comment\n---\n`);
    expect(findings).toEqual([]);
    expect(policy?.quotas.map((q) => q.name)).toEqual(['Root', 'A', 'B']);
  });

  it('takes a file of 100,000 empty documents as one warning (a file holding nothing), not 100,000 errors', () => {
    const { policy, findings } = loadPolicy(
      [
        { path: 't.yaml', text: TREE },
        { path: 'e.yaml', text: '---\n'.repeat(100_000) },
      ],
      { now: NOW },
    );
    expect(findings.map((f) => [f.file, f.code, f.severity])).toEqual([['e.yaml', 'policy/empty-file', 'warning']]);
    expect(policy).toBeDefined();
  });

  it('warns of a file beside a policy that holds nothing (empty, blank, only comments), and still loads the policy', () => {
    for (const text of ['', '\n\n  \n', '# a comment\n# another\n', '---\n# only a comment\n---\n', '\r\r']) {
      const { policy, findings } = loadPolicy(
        [
          { path: 't.yaml', text: TREE },
          { path: 'empty.yaml', text },
        ],
        { now: NOW },
      );
      expect(findings, JSON.stringify(text)).toEqual([expect.objectContaining({ file: 'empty.yaml', line: 1, column: 1, code: 'policy/empty-file', severity: 'warning' })]);
      expect(policy?.quotas.map((q) => q.name)).toEqual(['Root', 'A', 'B']);
    }
  });

  it('still refuses an explicit null document', () => {
    const { findings } = load(`${TREE}--- ~\n`);
    expect(errors(findings).map((f) => f.code)).toEqual(['policy/not-a-document']);
  });
});

describe('one slip in the YAML, one finding', () => {
  it('names a mis-indented key once, with the key it should line up with', () => {
    const text = TREE.replace('        - name: B\n          min', '        - name: B\n        min');
    const { findings } = load(text);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect([f.code, f.line, f.column]).toEqual(['policy/bad-indentation', 13, 9]);
    // The text is the behaviour here: it names the key and the key it should line up with.
    expect(f.message).toContain('"min"');
    expect(f.message).toContain('"name"');
    expect(text.slice(f.start, f.end)).toBe('min');
  });

  it('names the duplicated key and where it first appeared', () => {
    const text = TREE.replace('        - name: A\n          min: { gpu: 8 }\n', '        - name: A\n          min: { gpu: 8 }\n          min: { gpu: 4 }\n');
    const { findings } = load(text);
    expect(findings.map((f) => [f.code, f.line, f.column])).toEqual([['policy/duplicate-key', 12, 11]]);
    // The text is the behaviour here: it names the key and the line of its first appearance.
    expect(findings[0]!.message).toContain('"min"');
    expect(findings[0]!.message).toContain('line 11');
    // The field path is known from the syntax tree, as a schema finding's is.
    expect(findings[0]!.path).toBe('spec.quotas[0].children[0].min');
  });

  it('says a number is not finite when YAML reads it as infinity or NaN, not that it is no number', () => {
    for (const [written, readAs] of [
      ['{ gpu: 1e400 }', 'infinity'],
      ['\n            gpu: -1e400', 'minus infinity'],
      ['{ gpu: .nan }', 'NaN'],
    ]) {
      const { findings } = load(TREE.replace('min: { gpu: 8 }', `min: ${written}`));
      expect(
        findings.map((f) => [f.code, f.path]),
        written,
      ).toEqual([['policy/invalid-type', 'spec.quotas[0].children[0].min.gpu']]);
      // The text is the behaviour here (a wording fix): "not finite, read as X", not "not a number".
      expect(findings[0]!.message, written).toContain(`must be a finite number; it is read as ${readAs}`);
    }
  });

  it('gives a duplicated key its field path, in a block and in a flow mapping', () => {
    const text = TREE.replace('  pool: { name: p }\n', '  pool: { name: p }\n  pool: { name: q, name: r }\n');
    expect(load(text).findings.map((f) => [f.code, f.path])).toEqual([
      ['policy/duplicate-key', 'spec.pool'],
      ['policy/duplicate-key', 'spec.pool.name'],
    ]);
  });

  it('names an unclosed quote once', () => {
    const { findings } = load(TREE.replace('name: A', 'name: "A'));
    expect(findings.map((f) => f.code)).toEqual(['policy/yaml-syntax']);
    // The text is the behaviour here: of all YAML syntax errors, it says which one.
    expect(findings[0]!.message).toContain('quoted string is not closed');
  });
});

describe('size limits', () => {
  it('refuses text over the byte limit with a located finding that says how to raise it', () => {
    const { docs, findings } = parseFiles([{ path: 't.yaml', text: TREE }], { ...DEFAULT_LIMITS, maxBytes: 100 });
    expect(docs).toEqual([]);
    expect(findings.map((f) => [f.code, f.file, f.line])).toEqual([['policy/too-large', 't.yaml', 1]]);
    // The text is the behaviour here: the hint names the setting that raises the limit.
    expect(findings[0]!.hint).toContain('QUOTIENT_MAX_POLICY_BYTES');
  });

  it('refuses more YAML entries than the node limit, and stops reading there', () => {
    const jobs = Array.from({ length: 1000 }, (_, i) => `  - {name: j${i}}`).join('\n');
    const { findings } = parseFiles([{ path: 'j.yaml', text: `jobs:\n${jobs}\n` }], { ...DEFAULT_LIMITS, maxNodes: 500 });
    expect(findings.map((f) => f.code)).toEqual(['policy/too-large']);
    // The text is the behaviour here: the limit, and the setting that raises it.
    expect(findings[0]!.message).toContain('500');
    expect(findings[0]!.hint).toContain('QUOTIENT_MAX_POLICY_NODES');
  });
});

describe('one mistake, one finding', () => {
  it('a misspelt required field is one unknown-field finding naming the field, not missing + unknown', () => {
    const { findings } = load(TREE.replace('        - name: A\n          min:', '        - name: A\n          mni:'));
    expect(findings.map((f) => [f.code, f.line, f.column, f.path])).toEqual([['policy/unknown-field', 11, 11, 'spec.quotas[0].children[0].mni']]);
    // The text is the behaviour here: the suggestion.
    expect(findings[0]!.message).toContain('did you mean "min"');
  });

  it('a YAML document that is no policy document at all is one finding, not one per missing field', () => {
    const { findings } = load(`${TREE}---\nreplicas: 3\nimage: nginx\n`);
    expect(findings.map((f) => [f.code, f.line])).toEqual([['policy/not-a-document', 15]]);
  });

  it('an unknown field near no missing one is still reported alone, with the nearest known field', () => {
    const { findings } = load(TREE.replace('        - name: B\n', '        - name: B\n          reclam: any\n'));
    expect(findings.map((f) => f.code)).toEqual(['policy/unknown-field']);
    // The text is the behaviour here: the nearest known field.
    expect(findings[0]!.hint).toContain('"reclaim"');
  });

  it('a malformed snapshot time is one finding, not one more per job that started before it', () => {
    const jobs = Array.from({ length: 8 }, (_, i) => `    - { name: j${i}, workspace: ws, quota: A, module: DLC, priority: 1, pods: 1, resources: { gpu: 1 }, startedAt: 2026-11-21T08:00:00Z }`).join(
      '\n',
    );
    const cluster = (at: string) => `${TREE}---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec: { quotas: [A], modules: [DLC] }
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: ${at}
  nodes: [{ name: n-0, gpus: 8, pool: p }, { name: n-1, gpus: 8, pool: p }]
  jobs:
${jobs}
`;
    // The jobs start after the fallback time (now), before the snapshot time written.
    expect(errors(load(cluster('2026-11-22T12:00:00Z')).findings).map((f) => f.code)).toEqual([]);
    const { findings } = load(cluster('2026-11-22T25:99:00Z'));
    expect(findings.map((f) => [f.code, f.path])).toEqual([['policy/bad-time', 'spec.at']]);
  });
});
