/**
 * How much input one policy may hold. Each limit stops a class of input that would
 * otherwise end in a crash instead of a finding: nesting deeper than the recursive
 * code below (the yaml composer, zod, the tree builders) can take without overflowing
 * the stack, and bytes or YAML nodes that would exhaust Node's heap (a V8 abort with
 * a native stack and no message a user can act on). Real policies sit far below each.
 */
import { QuotientError } from '../../errors.js';

/** The limits one bundle is read and parsed under. */
export interface Limits {
  /** Bytes of YAML in one policy (all its files together). */
  maxBytes: number;
  /** Nested collections (mappings and lists) in one document. */
  maxDepth: number;
  /** YAML collection entries (keys and list items) in one policy. */
  maxNodes: number;
}

/**
 * Measured: a policy costs about 110 bytes of heap per byte of YAML (a 15 MB Cluster of
 * 100,000 jobs peaked at 1.65 GB), and Node's default heap is 2-4 GB; 16 MiB leaves room.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = { maxBytes: 16 * 1024 * 1024, maxDepth: 100, maxNodes: 2_000_000 };

/** The environment variable that overrides each limit, and what it is called in messages. */
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = {
  maxBytes: 'QUOTIENT_MAX_POLICY_BYTES',
  maxDepth: 'QUOTIENT_MAX_DEPTH',
  maxNodes: 'QUOTIENT_MAX_POLICY_NODES',
};

/**
 * The depth the recursive code is known to survive: the yaml composer overflowed Node's
 * default stack at about 880 nested block mappings, so the depth limit may be raised
 * only this far.
 */
const HARD_MAX_DEPTH = 400;

/** The limits in force: the defaults, each overridable by its environment variable. A bad value is exit 2. */
export function currentLimits(env: NodeJS.ProcessEnv = process.env): Limits {
  const read = (key: keyof Limits, max: number): number => {
    const raw = env[LIMIT_ENV[key]];
    if (raw === undefined || raw === '') return DEFAULT_LIMITS[key];
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new QuotientError('cli/bad-limit', `${LIMIT_ENV[key]} must be a whole number from 1 to ${max}, got "${raw}"`, `unset it to use the default, ${DEFAULT_LIMITS[key]}`);
    }
    return n;
  };
  return { maxBytes: read('maxBytes', Number.MAX_SAFE_INTEGER), maxDepth: read('maxDepth', HARD_MAX_DEPTH), maxNodes: read('maxNodes', Number.MAX_SAFE_INTEGER) };
}

/** "16 MiB", "900 bytes": sizes as people read them. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

/** The hint of every limit finding: how to raise it, and what raising it costs. */
export function raiseHint(key: keyof Limits, value: number): string {
  const cost = key === 'maxDepth' ? `(at most ${HARD_MAX_DEPTH})` : '(a larger policy needs more memory: give Node more with NODE_OPTIONS=--max-old-space-size=8192)';
  return `split the policy, or raise the limit with ${LIMIT_ENV[key]}=${key === 'maxDepth' ? Math.min(HARD_MAX_DEPTH, value * 2) : value * 2} ${cost}`;
}
