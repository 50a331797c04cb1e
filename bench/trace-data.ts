/**
 * Where the public traces (`openb/`, `pai-2020/`, `fgd-results/`, ...) are, for the
 * benchmarks that replay them: one rule for all of them, so a fresh clone finds the data
 * wherever the others do.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Candidate folders, in order: beside a checkout (`../shared/data`), beside a worktree one
 * level further down, and this machine's shared copy (a clone made anywhere else, as CI
 * and the README's fresh-clone check do).
 */
const CANDIDATES = ['../shared/data', '../../shared/data', '/work/shared/data'];

/**
 * The traces' folder: `given` (a `--data DIR` flag) when set, else `$QUOTIENT_DATA`, else
 * the first candidate holding `probe` (a file or folder the benchmark needs, such as
 * `openb`). Falls back to `../shared/data` so the caller's "not found" message names the
 * documented place.
 */
export function traceDataDir(given: string | undefined, probe: string): string {
  if (given !== undefined) return given;
  if (process.env.QUOTIENT_DATA) return process.env.QUOTIENT_DATA;
  return CANDIDATES.find((d) => existsSync(join(d, probe))) ?? CANDIDATES[0]!;
}
