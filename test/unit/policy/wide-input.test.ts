/**
 * Inputs wide rather than deep, which once cost time or the stack in proportion to their
 * size squared (bench:load measures the time; these pin what is reported): a mapping of
 * many keys with duplicates among them (the yaml composer compared every key with every
 * earlier one; duplicate-keys.ts walks once), findings at many keys of one mapping (each
 * searched the mapping from its start; source-doc.ts nodeAt indexes it), a file of
 * hundreds of thousands of findings (a spread of them overflowed the stack), and
 * double-quoted scalars (subset-yaml.ts quotedEnd searched for `\` to the end of the file).
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { parseFiles } from '../../../src/policy/parse/source-doc.js';
import { readSubset } from '../../../src/policy/parse/subset-yaml.js';

const LIMITS = { maxDepth: 100, maxEntries: 2_000_000 };

/** A document with one mapping `notes` of the given lines (each `key: value`), under line 5. */
const wide = (lines: string[]): string => `apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata:\n  name: wide\n  notes:\n${lines.map((l) => `    ${l}\n`).join('')}`;

describe('wide inputs', () => {
  it('reports every duplicate key of a mapping of many keys at itself, with where it first appeared and its path', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `k${i % 150}: v${i}`);
    // Keys read as different values are different keys, as the yaml composer compares them: 1 and "1".
    keys.push('1: one', '"1": the string one');
    const { docs, findings } = parseFiles([{ path: 'w.yaml', text: wide(keys) }]);
    expect(docs).toHaveLength(1);
    const dups = findings.filter((f) => f.code === 'policy/duplicate-key');
    expect(dups).toHaveLength(50);
    const first = dups.sort((a, b) => a.line - b.line)[0]!;
    expect(first).toMatchObject({ line: 156, column: 5, path: 'metadata.notes.k0' });
    expect(first.message).toContain('first on line 6, column 5');
  });

  it('locates findings at many keys of one mapping at each key', () => {
    const keys = Array.from({ length: 100 }, (_, i) => `key-${i}: "a\\tb ${i}"`);
    const { findings } = loadPolicy([{ path: 'w.yaml', text: wide(keys) }]);
    const at = findings.filter((f) => f.code === 'policy/control-character').map((f) => [f.path, f.line, f.column]);
    expect(at).toHaveLength(100);
    expect(at).toContainEqual(['metadata.notes.key-0', 6, 12]);
    expect(at).toContainEqual(['metadata.notes.key-99', 105, 13]);
  });

  it('reports 150,000 findings of one file (a spread of them overflowed the stack)', () => {
    const keys = Array.from({ length: 150_000 }, (_, i) => `k${i}: "a\\tb"`);
    const { findings } = loadPolicy([{ path: 'w.yaml', text: wide(keys) }]);
    expect(findings.filter((f) => f.code === 'policy/control-character')).toHaveLength(150_000);
  });
});

describe('the subset reader on double-quoted scalars', () => {
  it('looks for an escape inside the scalar only, not in a comment after it', () => {
    expect(readSubset('a: "x" # C:\\path\nb: "y"\n', LIMITS)?.values).toEqual([{ a: 'x', b: 'y' }]);
    expect(readSubset("a: 'it''s' # \\\nb: [\"p\", 'q''']\n", LIMITS)?.values).toEqual([{ a: "it's", b: ['p', "q'"] }]);
    expect(readSubset('a: "x\\"y"\n', LIMITS)).toBeUndefined();
    expect(readSubset('a: "x\nb: y"\n', LIMITS)).toBeUndefined();
  });
});
