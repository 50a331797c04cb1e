/**
 * The fast load path (policy/parse/fast-parse.ts) must read exactly what the positioned parse
 * reads, or decline. Checked on every shipped policy and golden case as written and in
 * other YAML styles, and on generated policies; the fast path must also really be taken
 * (a check that it declined everything would pass vacuously).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { fastParse } from '../../../src/policy/parse/fast-parse.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { normaliseLineBreaks } from '../../../src/policy/parse/source-doc.js';
import { scenarioArbitrary, scenarioYaml } from '../../../src/testing/index.js';
import { yamlReaders } from '../../helpers/differential.js';

const LIMITS = { maxDepth: 100, maxEntries: 2_000_000 };

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? yamlFiles(p) : name.endsWith('.yaml') ? [p] : [];
  });
}

/** The positioned parser's values, empty documents left out as the loader leaves them out. */
function slowValues(text: string): unknown[] {
  return parseAllDocuments(normaliseLineBreaks(text), { uniqueKeys: true })
    .filter((d) => d.contents !== null)
    .map((d) => d.toJS({ maxAliasCount: 100 }));
}

/** Re-writes a file's documents in another YAML style (flow, or block with quoted strings, with CRLF). */
function restyle(text: string, style: 'flow' | 'quoted-crlf'): string {
  const docs = slowValues(text);
  const out = docs.map((d) => (style === 'flow' ? stringify(d, { collectionStyle: 'flow' }) : stringify(d, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }))).join('---\n');
  return style === 'quoted-crlf' ? out.replace(/\n/g, '\r\n') : out;
}

describe('fastParse', () => {
  const files = [...yamlFiles('policies'), ...yamlFiles('test/golden')];

  it('reads every shipped policy and golden case, in three styles, exactly as the positioned parse (and so does the subset reader)', () => {
    const readers = yamlReaders(LIMITS);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const variant of [text, restyle(text, 'flow'), restyle(text, 'quoted-crlf')]) {
        const normalised = normaliseLineBreaks(variant);
        readers.byJsYaml(normalised, f);
        readers.bySubset(normalised, f);
      }
    }
    // Most real files have no anchors, tags or empty documents: the fast paths must take them
    // (the reader tags count what each read; a fast path that declined all would pass vacuously).
    readers.jsYaml.expectCovered({ compared: files.length * 3, answered: 0.8 });
    readers.subset.expectCovered({ compared: files.length * 3, answered: 0.5 });
  });

  it('reads generated policies exactly as the positioned parse', () => {
    const readers = yamlReaders(LIMITS);
    fc.assert(
      fc.property(scenarioArbitrary({ maxQuotas: 6, maxJobs: 8 }), (s) => {
        const text = scenarioYaml(s);
        readers.byJsYaml(text);
        // The loader's own order: what the subset reader declines, js-yaml reads.
        const { reader } = readers.read(text);
        expect(reader).not.toBe('positioned');
      }),
      { numRuns: 60 },
    );
    readers.jsYaml.expectCovered({ answered: 51 });
    expect(readers.tags.subset).toBeGreaterThan(50);
  });

  it('declines what only the positioned parse can judge or locate', () => {
    const cases: Record<string, string> = {
      anchors: 'a: &x 1\nb: *x\n',
      tags: 'a: !!str 1\n',
      merge: 'a: {b: 1}\nc:\n  <<: {d: 2}\n',
      tabs: 'a:\n\tb: 1\n',
      duplicate: 'a: 1\na: 2\n',
      syntax: 'a: [1, 2\n',
      empty: '---\n---\na: 1\n',
      deep: `${'['.repeat(150)}${']'.repeat(150)}\n`,
    };
    for (const [name, text] of Object.entries(cases)) expect(fastParse(text, LIMITS).ok, name).toBe(false);
    expect(fastParse('a: 1\nb: [x, {c: 2}]\n', { maxDepth: 100, maxEntries: 3 }).ok).toBe(false);
    expect(fastParse('a: 1\nb: [x, {c: 2}]\n', LIMITS)).toEqual({ ok: true, values: [{ a: 1, b: ['x', { c: 2 }] }], entries: 5 });
  });

  it('gives findings the same file:line:col whether or not the fast path read the file', () => {
    // A bad priority near the end of a long Cluster: the finding needs the positioned parse, on demand.
    const jobs = Array.from(
      { length: 3000 },
      (_, i) => `    - { name: j${i}, workspace: ws, quota: Root, module: DLC, priority: ${i === 2990 ? 12 : 3}, pods: 1, resources: { gpu: 1 }, placement: [{ node: n-${i}, gpus: [0] }] }`,
    );
    const tree =
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: p }\n  quotas:\n    - name: Root\n      min: { gpu: 3000 }\n---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: ws }\nspec: { quotas: [Root] }\n';
    const cluster = `apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: c }\nspec:\n  at: 2026-11-20T12:00:00Z\n  nodeGroups:\n    - { prefix: n-, count: 3000, gpus: 8, pool: p }\n  jobs:\n${jobs.join('\n')}\n`;
    const fast = loadPolicy(
      [
        { path: 't.yaml', text: tree },
        { path: 'c.yaml', text: cluster },
      ],
      { now: 0 },
    );
    // The same text with an anchor the fast path declines: read by the positioned parse from the start.
    const slow = loadPolicy(
      [
        { path: 't.yaml', text: tree },
        { path: 'c.yaml', text: cluster.replace('metadata: { name: c }', 'metadata: { name: &n c }') },
      ],
      { now: 0 },
    );
    const where = (r: typeof fast) => r.findings.map((f) => [f.code, f.file, f.line, f.column, f.path]);
    // Line 2999 holds jobs[2990]; its priority value starts at column 73 (hand-counted in the job line above).
    expect(where(fast)).toEqual([['policy/priority-out-of-range', 'c.yaml', 2999, 73, 'spec.jobs[2990].priority']]);
    expect(where(fast)).toEqual(where(slow));
  });
});
