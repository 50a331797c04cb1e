/**
 * The readers of numbers written as text (policy/parse/number-text.ts) and their limits
 * (policy/parse/number-limits.ts): every value is either read within its limit or refused,
 * saying whether its form was wrong or it was past the limit (issue 18 item 2).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INVENTORY, MAX_PRICE, MAX_SEED, MAX_TIME_MS } from '../../../src/policy/parse/number-limits.js';
import { isRefusal, readDuration, readPositive, readPrice, readSeed, readSimTime, readWhole, shownValue, type Refusal } from '../../../src/policy/parse/number-text.js';

const D306 = `1${'0'.repeat(305)}`;
const NINES20 = '9'.repeat(20);
/** Text `Number()` reads as a number, but no form here takes: blank, sign, exponent, hex, spreadsheet formula, words. */
const NOT_DECIMAL = ['', ' ', '-5', '+5', '1e3', '1e308', '0x10', '=1+2', 'NaN', 'Infinity', '-Infinity', '1_000', '1,5', '.5', '5.'];

/** What a reader gave: the value, or `form` / `limit` for a refusal. */
function verdict(read: number | Refusal): number | 'form' | 'limit' {
  return isRefusal(read) ? (read.pastLimit ? 'limit' : 'form') : read;
}

describe('readSimTime', () => {
  it.each<[unknown, 'time' | 'duration', number | 'form' | 'limit']>([
    ['0', 'time', 0],
    ['0h', 'time', 0],
    ['0m0s', 'time', 0],
    ['3600', 'time', 3_600_000],
    ['1h30m', 'time', 5_400_000],
    [0.0005, 'time', 1],
    [-0, 'time', 0],
    ['0', 'duration', 'form'],
    ['0.0001', 'duration', 'form'],
    ['2h', 'duration', 7_200_000],
    ['3650d', 'time', MAX_TIME_MS],
    [String(MAX_TIME_MS / 1000), 'duration', MAX_TIME_MS],
    ['3651d', 'time', 'limit'],
    [String(MAX_TIME_MS / 1000 + 1), 'time', 'limit'],
    [D306, 'time', 'limit'],
    [`${NINES20}h`, 'duration', 'limit'],
    [`${D306}d`, 'duration', 'limit'],
    ['100000000h', 'time', 'limit'],
    [1e308, 'time', 'limit'],
    [Number.POSITIVE_INFINITY, 'time', 'form'],
    [Number.NaN, 'time', 'form'],
    [-1, 'time', 'form'],
    [{}, 'time', 'form'],
    ['1.5h', 'time', 'form'],
  ])('%s as a %s → %s', (value, kind, want) => {
    expect(verdict(readSimTime(value, kind))).toBe(want);
  });

  it('refuses every text that is not a plain decimal or a duration, as its form', () => {
    for (const t of NOT_DECIMAL) expect(verdict(readSimTime(t, 'time')), t).toBe('form');
  });

  it('says the limit when it refuses a value past it', () => {
    const r = readSimTime(D306, 'time') as Refusal;
    expect(r.refused).toContain('3650d');
    expect((readSimTime(`${NINES20}h`, 'duration') as Refusal).refused).toContain('3650d');
  });
});

describe('readDuration', () => {
  it('reads a policy duration up to 3650d and refuses zero, fractions and numbers past the limit', () => {
    expect(verdict(readDuration('30m'))).toBe(1_800_000);
    expect(verdict(readDuration('3650d'))).toBe(MAX_TIME_MS);
    expect(verdict(readDuration('3650d1s'))).toBe('limit');
    expect(verdict(readDuration(`${NINES20}h`))).toBe('limit');
    for (const bad of ['0m', '1.5h', '', '30', 30, 'h']) expect(verdict(readDuration(bad)), String(bad)).toBe('form');
  });
});

describe('readPrice', () => {
  it.each<[unknown, boolean, number | 'form' | 'limit']>([
    ['12.5', true, 12.5],
    ['12.5/h', true, 12.5],
    ['0.2/min', true, 12],
    [0, false, 0],
    ['0', true, 'form'],
    [-0, false, 0],
    [String(MAX_PRICE), true, MAX_PRICE],
    [String(MAX_PRICE + 1), true, 'limit'],
    [`${MAX_PRICE}/min`, true, 'limit'],
    [1e308, false, 'limit'],
    [D306, false, 'limit'],
    [Number.NaN, false, 'form'],
  ])('%s (a bid: %s) → %s', (value, bid, want) => {
    expect(verdict(readPrice(value, bid))).toBe(want);
  });

  it('refuses NaN, -5, Infinity and =1+2 as text, never as zero or a number', () => {
    for (const t of NOT_DECIMAL) expect(verdict(readPrice(t, false)), t).toBe('form');
  });
});

describe('readWhole and readSeed', () => {
  it('reads decimal digits within the bounds, past the top as past the limit', () => {
    expect(verdict(readWhole('4', 0, MAX_INVENTORY))).toBe(4);
    expect(verdict(readWhole(String(MAX_INVENTORY + 1), 0, MAX_INVENTORY))).toBe('limit');
    expect(verdict(readWhole('1.5', 0, MAX_INVENTORY))).toBe('form');
    expect(verdict(readWhole(1.5, 0, MAX_INVENTORY))).toBe('form');
    expect(verdict(readWhole(String(2 ** 53 + 1), 0, MAX_INVENTORY))).toBe('limit');
    for (const t of NOT_DECIMAL) expect(verdict(readWhole(t, 0, 10)), t).toBe('form');
  });

  it('takes one seed rule everywhere: 0 to 2^32-1, never a wrap onto a smaller seed', () => {
    expect(verdict(readSeed('0'))).toBe(0);
    expect(verdict(readSeed(String(MAX_SEED)))).toBe(MAX_SEED);
    expect(verdict(readSeed('4294967296'))).toBe('limit');
    expect(verdict(readSeed(-1))).toBe('form');
    expect(verdict(readSeed(4294967296))).toBe('limit');
  });

  it('reads a positive decimal up to its maximum', () => {
    expect(verdict(readPositive('7', 3650))).toBe(7);
    expect(verdict(readPositive('0.5', 3650))).toBe(0.5);
    expect(verdict(readPositive('0', 3650))).toBe('form');
    expect(verdict(readPositive('3651', 3650))).toBe('limit');
  });
});

describe('shownValue', () => {
  it('cuts a long value and says its length, and escapes what a terminal would obey', () => {
    expect(shownValue(D306)).toBe(`${'1'.concat('0'.repeat(23))}… (306 characters)`);
    expect(shownValue('a\u001b[8mb')).toBe('a\\e[8mb');
  });
});

describe('every reader, on any text', () => {
  it('reads a value within its limit or refuses it; it never throws', () => {
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^\d{1,400}(\.\d{1,20})?[dhms]?$/), fc.constantFrom(...NOT_DECIMAL, D306, `${NINES20}h`, '1e308', '-0', '9007199254740993'));
    let read = 0;
    let refused = 0;
    fc.assert(
      fc.property(text, (t) => {
        const checks: Array<[number | Refusal, number]> = [
          [readSimTime(t, 'time'), MAX_TIME_MS],
          [readSimTime(t, 'duration'), MAX_TIME_MS],
          [readDuration(t), MAX_TIME_MS],
          [readPrice(t, true), MAX_PRICE],
          [readWhole(t, 0, MAX_INVENTORY), MAX_INVENTORY],
          [readSeed(t), MAX_SEED],
        ];
        for (const [r, max] of checks) {
          if (isRefusal(r)) {
            refused++;
            expect(r.refused.length).toBeGreaterThan(0);
          } else {
            read++;
            expect(Number.isFinite(r) && r >= 0 && r <= max && !Object.is(r, -0)).toBe(true);
          }
        }
      }),
      { seed: 18_002, numRuns: 400 },
    );
    // Both branches reached, often: the generator is not all garbage nor all numbers.
    expect(read).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });
});
