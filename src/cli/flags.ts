/** Flag values shared by several commands, checked once: a bad value names the flag and what it takes (exit 2). */
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
