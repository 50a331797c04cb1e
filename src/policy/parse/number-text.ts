/**
 * Numbers written as text: the one home of their forms and their limits.
 *
 * 1. Plain scalars the two YAML readers resolve differently. js-yaml (the fast paths)
 *    keeps a number past the range of a double (`1e400`, 400 digits, a long hex) as the
 *    string it is written as; the yaml library (the positioned path) reads it as
 *    infinity. The fast paths decline a text holding one (the subset reader per plain
 *    scalar with this check, js-yaml's path on the text: policy/parse/fast-parse.ts), so every
 *    path gives the value the positioned parse gives, and the schema's finding says the
 *    number is not finite rather than "must be a number".
 * 2. Numbers of traces, market files, flags and simulated times (below): each reader
 *    applies its limit from number-limits.ts.
 */
import { escapeDisplay } from '../../model/display-text.js';
import { parseDuration } from '../../model/quantity.js';
import { formatCount, MAX_DAYS, MAX_PRICE, MAX_SEED, MAX_TIME_MS, MAX_TIME_TEXT } from './number-limits.js';

/** The YAML 1.2 core schema's int (decimal, `0o` octal, `0x` hex) and float forms (`.inf` and `.nan` aside: both readers agree on them). */
const CORE_NUMBER = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** Whether a plain scalar js-yaml resolved to the string `s` is a number to the yaml library (so the readers disagree). */
export function numberLeftAsText(s: string): boolean {
  const c = s.charCodeAt(0);
  // Every core number starts with a digit, a sign or a dot: most strings are ruled out by their first character.
  return ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) && CORE_NUMBER.test(s);
}

/*
 * Numbers written as text in traces, market files and flags (and the simulated times a
 * policy writes), each within its limit (number-limits.ts). Every
 * reader returns the value or a Refusal that says what is wrong and what to write; its
 * caller only places it (a located finding, or a flag error that exits 2). The forms are
 * plain decimals: no sign, exponent, hex, `Infinity` or blank (which `Number()` would read
 * as 0), so `=1+2`, `-5`, `NaN` and `0x10` are refused as text, and a value past its
 * limit (306 digits, `1e308` seconds) is refused before anything is built from it.
 */

/** Why a value was refused: what is wrong, as a predicate after its name ("is not a time"), what to write instead, and whether it was past a limit (else its form was wrong). */
export interface Refusal {
  refused: string;
  hint: string;
  pastLimit: boolean;
}

/**
 * A refused value as a message quotes it: escaped (display-text.ts) and, past 40
 * characters, cut with its length said: a 306-digit number is not worth 306 columns.
 */
export function shownValue(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 24)}… (${text.length} characters)` : text;
  return escapeDisplay(shown).text;
}

/** True when a reader refused the value. */
export function isRefusal(v: number | Refusal): v is Refusal {
  return typeof v !== 'number';
}

const DECIMAL = /^\d+(?:\.\d+)?$/;
const WHOLE = /^\d+$/;
/** A duration of zero (`0h`, `0m0s`): the start, as a time; model/quantity.ts's parseDuration refuses zero on purpose. */
const ZERO_DURATION = /^(?:0+d)?(?:0+h)?(?:0+m)?(?:0+s)?$/;

/** A number, or the trimmed text of a string; undefined for anything else. */
function scalar(value: unknown): number | string | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * A simulated time from the start (`kind: 'time'`: zero allowed) or a run time
 * (`'duration'`: above zero): seconds (`3600`, `0.5`, a YAML number) or a duration
 * (`36h`, `1h30m`, `0h`) → ms, at most MAX_TIME_MS.
 */
export function readSimTime(value: unknown, kind: 'time' | 'duration'): number | Refusal {
  const v = scalar(value);
  let ms: number | undefined;
  if (typeof v === 'number') ms = Number.isFinite(v) && v >= 0 ? Math.round(v * 1000) + 0 : undefined;
  else if (v !== undefined && v !== '') ms = DECIMAL.test(v) ? Math.round(Number(v) * 1000) : ZERO_DURATION.test(v) ? 0 : parseDuration(v);
  if (ms === undefined || (kind === 'duration' && ms <= 0)) {
    return kind === 'time'
      ? { refused: 'is not a time from the start', hint: 'write seconds from the start (3600) or a duration such as 1h30m', pastLimit: false }
      : { refused: 'is not a positive duration', hint: 'write seconds (7200) or a duration such as 2h', pastLimit: false };
  }
  if (ms > MAX_TIME_MS) {
    return kind === 'time'
      ? { refused: `is past ${MAX_TIME_TEXT}, the latest time a simulation reaches`, hint: `write a time from 0 to ${MAX_DAYS}d`, pastLimit: true }
      : { refused: `is longer than ${MAX_TIME_TEXT}, the longest duration Quotient takes`, hint: `write a duration of at most ${MAX_DAYS}d`, pastLimit: true };
  }
  return ms;
}

/** A policy's duration (`30m`, `1h30m`, `2d`; above zero) → ms, at most MAX_TIME_MS. */
export function readDuration(value: unknown): number | Refusal {
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) return { refused: 'is not a duration', hint: 'write a positive duration such as 30m, 1h or 1h30m', pastLimit: false };
  if (ms > MAX_TIME_MS) return { refused: `is longer than ${MAX_TIME_TEXT}, the longest duration Quotient takes`, hint: `write a duration of at most ${MAX_DAYS}d`, pastLimit: true };
  return ms;
}

/**
 * A price per instance-hour: a number, `12.5`, `12.5/h`, or per minute `0.2/min`
 * (×60), at most MAX_PRICE. A bid (`bid`) is above zero; a market price may be zero.
 */
export function readPrice(value: unknown, bid: boolean): number | Refusal {
  const v = scalar(value);
  let price: number | undefined;
  if (typeof v === 'number') price = Number.isFinite(v) ? v : undefined;
  else if (v !== undefined) {
    const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(h|hour|min|minute))?$/.exec(v);
    if (m) price = Number(m[1]) * (m[2] === 'min' || m[2] === 'minute' ? 60 : 1);
  }
  if (price === undefined || price < 0 || (bid && price === 0))
    return { refused: bid ? 'is not a price above zero' : 'is not a price', hint: 'write a price per instance-hour (12.5), or per minute with a unit (0.2/min)', pastLimit: false };
  if (price > MAX_PRICE)
    return {
      refused: `is more than ${formatCount(MAX_PRICE)} per instance-hour, the highest price Quotient takes`,
      hint: `write a price per instance-hour up to ${formatCount(MAX_PRICE)}`,
      pastLimit: true,
    };
  return price + 0;
}

/** A whole number from `lo` to `hi`: a number, or decimal digits (no sign, exponent, fraction or hex). */
export function readWhole(value: unknown, lo: number, hi: number): number | Refusal {
  const v = scalar(value);
  const n = typeof v === 'number' ? v : v !== undefined && WHOLE.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < lo || n > hi) {
    return { refused: `is not a whole number from ${formatCount(lo)} to ${formatCount(hi)}`, hint: `write a whole number from ${lo} to ${hi}`, pastLimit: Number.isInteger(n) && n > hi };
  }
  return n + 0;
}

/** A positive decimal up to `max` (`--days`): digits with an optional fraction. */
export function readPositive(value: unknown, max: number): number | Refusal {
  const v = scalar(value);
  const n = typeof v === 'number' ? v : v !== undefined && DECIMAL.test(v) ? Number(v) : NaN;
  if (!(n > 0 && n <= max)) return { refused: `is not a number above 0 and at most ${formatCount(max)}`, hint: `write a number from 0.1 to ${max}`, pastLimit: n > max };
  return n;
}

/** A seed: a whole number from 0 to MAX_SEED (32 bits), the same rule for every seed. */
export function readSeed(value: unknown): number | Refusal {
  return readWhole(value, 0, MAX_SEED);
}
