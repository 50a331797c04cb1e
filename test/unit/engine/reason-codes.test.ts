import { describe, expect, it } from 'vitest';
import { because, REASON_CODES } from '../../../src/engine/reason-codes.js';

describe('reason codes', () => {
  it('builds a reason as its code beside its sentence', () => {
    expect(because('quota/fits', 'fits')).toEqual({ code: 'quota/fits', message: 'fits' });
  });

  it('names every code <layer>/<kebab-case> and says what it means', () => {
    for (const [code, meaning] of Object.entries(REASON_CODES)) {
      expect(code).toMatch(/^[a-z]+\/[a-z0-9-]+$/);
      expect(meaning.length, code).toBeGreaterThan(10);
    }
  });
});
