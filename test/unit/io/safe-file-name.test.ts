/** File names from names (src/io/safe-file-name.ts): never outside the folder, never two names in one file. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeFileName, uniqueFileNames } from '../../../src/io/safe-file-name.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 300);
/** Names as hostile as a YAML string can be: separators, dots, controls, any Unicode. */
const nameArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.array(fc.constantFrom('.', '..', '/', '\\', ':', 'x', '%', ' ', 'CON', 'nul', '\u0000', '\u202e', 'é'), { minLength: 1, maxLength: 12 }).map((a) => a.join('')),
  fc.string({ minLength: 150, maxLength: 400 }),
);

describe('safeFileName', () => {
  it('gives one plain, portable file name inside the folder for any name', () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const f = safeFileName(name, '.yaml');
        expect(f).toMatch(/^[A-Za-z0-9_%-][A-Za-z0-9_.%-]*\.yaml$/);
        expect(f.startsWith('.')).toBe(false);
        expect(Buffer.byteLength(f)).toBeLessThanOrEqual(255);
        expect(f).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
      }),
      { numRuns: RUNS },
    );
  });

  it('is one-to-one: two different names never share a file', () => {
    fc.assert(
      fc.property(nameArb, nameArb, (a, b) => {
        fc.pre(a !== b);
        expect(safeFileName(a)).not.toBe(safeFileName(b));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps readable names as they are and encodes what could escape', () => {
    expect(safeFileName('team-a.no-preempt_1', '.yaml')).toBe('team-a.no-preempt_1.yaml');
    expect(safeFileName('../../x', '.yaml')).toBe('%2E.%2F..%2Fx.yaml');
    expect(safeFileName('..')).toBe('%2E%2E');
    expect(safeFileName('NUL')).toBe('_NUL');
  });

  it('keeps names apart that differ only in case or repeat', () => {
    expect(uniqueFileNames(['Keep', 'keep', 'keep'], '.yaml')).toEqual(['Keep.yaml', 'keep-2.yaml', 'keep-3.yaml']);
  });
});
