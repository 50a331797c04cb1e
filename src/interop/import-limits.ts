/**
 * How large an input of `quotient import` may be. A kubectl List is not a policy: it is
 * read as JSON (`JSON.parse`, ~0.6 bytes of memory per byte of a real List) with
 * positions found only where an answer needs one (interop/json-locator.ts), so it may
 * be far larger than the 16 MiB a policy may hold (the positioned YAML parse costs ~110
 * bytes per byte). What bounds its memory is the count of values: `[{},{},…]` makes an
 * object of every 3 bytes (~22 bytes of memory per byte), so that count has a limit too.
 * YAML inputs (and JSON that does not parse as JSON) take the policy's path and limits.
 */
import { QuotientError } from '../errors.js';

/** The limits a JSON input of an import is read under. */
export interface ImportLimits {
  /** Characters of one JSON input. */
  maxBytes: number;
  /** JSON values (objects, lists, strings, numbers, literals) in one input. */
  maxValues: number;
}

/**
 * Measured (bench/load.ts): a 20,000-pod kubectl List of 48 MB is ~1 million values and
 * 0.6 bytes of memory per byte once parsed; 20 million values cost at most ~1.2 GB (an
 * empty object each), within Node's default heap.
 */
export const DEFAULT_IMPORT_LIMITS: Readonly<ImportLimits> = { maxBytes: 256 * 1024 * 1024, maxValues: 20_000_000 };

/** The environment variable that raises each limit. */
export const IMPORT_LIMIT_ENV: Readonly<Record<keyof ImportLimits, string>> = {
  maxBytes: 'QUOTIENT_MAX_IMPORT_BYTES',
  maxValues: 'QUOTIENT_MAX_IMPORT_VALUES',
};

/**
 * A string holds at most 2^29 - 24 characters in V8 (Node 20): a file larger than that
 * cannot be read as one text at all, so no limit is set above it.
 */
const MAX_STRING = 2 ** 29 - 24;

/** The limits in force: the defaults, each overridable by its environment variable. A bad value is exit 2. */
export function currentImportLimits(env: NodeJS.ProcessEnv = process.env): ImportLimits {
  const read = (key: keyof ImportLimits, max: number): number => {
    const raw = env[IMPORT_LIMIT_ENV[key]];
    if (raw === undefined || raw === '') return DEFAULT_IMPORT_LIMITS[key];
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new QuotientError('cli/bad-limit', `${IMPORT_LIMIT_ENV[key]} must be a whole number from 1 to ${max}, got "${raw}"`, `unset it to use the default, ${DEFAULT_IMPORT_LIMITS[key]}`);
    }
    return n;
  };
  return { maxBytes: read('maxBytes', MAX_STRING), maxValues: read('maxValues', Number.MAX_SAFE_INTEGER) };
}
