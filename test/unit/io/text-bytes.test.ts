/** Lossless text (src/io/text-bytes.ts): any bytes → text → the same bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLossless, encodeLossless, isValidUtf8 } from '../../../src/io/text-bytes.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 300);
/** Any Unicode text: ASCII, the BMP and astral characters (no lone surrogates). */
const unicode = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff })), { maxLength: 32 })
  .map((cps) => String.fromCodePoint(...cps));

describe('lossless text', () => {
  it('gives back every byte sequence exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(encodeLossless(decodeLossless(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('decodes valid UTF-8 (BOM, astral characters) as UTF-8 does, and edits keep the escapes', () => {
    fc.assert(
      fc.property(unicode, fc.uint8Array({ minLength: 1, maxLength: 4 }), (s, junk) => {
        const bytes = Buffer.from(`\uFEFF${s}`, 'utf8');
        expect(decodeLossless(bytes)).toBe(bytes.toString('utf8'));
        // A Latin-1 comment around an edited token: the junk bytes survive the edit.
        const mixed = Buffer.concat([Buffer.from('gpu: 48 # '), Buffer.from(junk), bytes]);
        const edited = encodeLossless(decodeLossless(mixed).replace('48', '56'));
        expect(edited.equals(Buffer.concat([Buffer.from('gpu: 56 # '), Buffer.from(junk), bytes]))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('escapes what UTF-8 forbids: a Latin-1 byte, an overlong form, a surrogate, a truncated sequence', () => {
    for (const hex of ['e9', 'c0af', 'eda080', 'f09f98']) {
      const bytes = Buffer.from(hex, 'hex');
      expect(isValidUtf8(bytes)).toBe(false);
      expect(encodeLossless(decodeLossless(bytes)).toString('hex')).toBe(hex);
    }
    expect(decodeLossless(Buffer.from('e9', 'hex'))).toBe('\uDCE9');
  });
});
