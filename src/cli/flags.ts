/** Flag values shared by several commands, checked once: a bad value names the flag and what it takes (exit 2). */
import { existsSync } from 'node:fs';
import { QuotientError } from '../errors.js';

/** `--kernel`: which kernel implementation answers. */
export function kernelFlag(value: string | undefined): 'wasm' | 'reference' {
  if (value === 'wasm' || value === 'reference') return value;
  throw new QuotientError('cli/bad-kernel', `unknown kernel "${value}"`, 'use --kernel wasm or --kernel reference');
}

/** `--workers`: a positive whole number of worker threads. */
export function workersFlag(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new QuotientError('cli/bad-workers', `--workers must be a positive whole number, got "${value}"`, 'for example --workers 2');
  return n;
}

/**
 * Paths a variadic option swallowed: `quotient whatif -q NAME policies/x` gives the
 * path to `-q`. Values from the first one that is not the option's own kind (a
 * `key=value` pair, a name that is not on disk) on are paths, as the user meant.
 */
export function rescuePaths(paths: string[], values: string[] | undefined, isOwn: (value: string) => boolean): { paths: string[]; values: string[] | undefined } {
  if (paths.length > 0 || !values) return { paths, values };
  const cut = values.findIndex((v) => !isOwn(v) && existsSync(v));
  if (cut < 0) return { paths, values };
  return { paths: values.slice(cut), values: values.slice(0, cut) };
}

/** `key=value` items (`--submit`, `--set`). */
export const isPair = (v: string): boolean => v.includes('=');
/** A name (`-q`, `-p`) is anything that is not a path on disk. */
export const isName = (v: string): boolean => !existsSync(v);
