/**
 * The subset reader keeps the plain scalars it read lately, by a hash of their text, and
 * gives a repeat the value it resolved to before (policy/parse/subset-yaml.ts `plain`). Far more
 * distinct scalars than the cache has slots, repeated and mixed with ones that resolve to
 * numbers, booleans and null, must read exactly as js-yaml reads them: a slot shared by
 * two texts, or a text that is a prefix of another, never gives the wrong value.
 */
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { readSubset } from '../../../src/policy/parse/subset-yaml.js';

const LIMITS = { maxDepth: 100, maxEntries: 2_000_000 };

/** A seeded generator (mulberry32): the same text every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the subset reader’s cache of plain scalars', () => {
  it('reads 60,000 repeated scalars (40,000 distinct, prefixes of each other among them) exactly as js-yaml', () => {
    const next = random(7);
    // Names that are prefixes of one another (n-1, n-12, n-123), times, and texts that resolve to other types.
    const distinct: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const k = i % 8;
      distinct.push(
        k === 0
          ? `n-${i}`
          : k === 1
            ? `n-${Math.floor(i / 10)}`
            : k === 2
              ? `2026-11-${String(10 + (i % 20))}T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`
              : k === 3
                ? String(i * 1_000_003)
                : k === 4
                  ? ['true', 'False', 'null', '~', '0x1F', '0o17', '1e3', '-.inf', '.NaN', '+12', '-7', '1_000', '3.25'][i % 13]!
                  : k === 5
                    ? `q${i % 997}-team`
                    : k === 6
                      ? `${i}abc`
                      : `job-${i}`,
      );
    }
    const items: string[] = [];
    for (let i = 0; i < 60_000; i++) items.push(distinct[i < 40_000 ? i : Math.floor(next() * distinct.length)]!);
    const block = `items:\n${items.map((s) => `  - ${s}\n`).join('')}`;
    const flow = `items:\n${items.map((s, i) => `  - { v: ${s}, w: [${s}, ${items[(i * 7) % items.length]}] }\n`).join('')}`;
    for (const text of [block, flow]) {
      const read = readSubset(text, LIMITS);
      expect(read).toBeDefined();
      expect(read!.values).toEqual(loadAll(text, null, { schema: CORE_SCHEMA, json: false }));
    }
  });
});
