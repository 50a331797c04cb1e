/** Flag values shared by several commands, checked once: a bad value names the flag and what it takes (exit 2). */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';
import { MAX_SEED } from '../policy/parse/number-limits.js';
import { isRefusal, readSeed, readSimTime, shownValue, type Refusal } from '../policy/parse/number-text.js';
import { display } from '../model/display-text.js';
import { log } from './output.js';

/** `--kernel`: which kernel implementation answers. */
export function kernelFlag(value: string | undefined): 'wasm' | 'reference' {
  if (value === 'wasm' || value === 'reference') return value;
  throw new QuotientError('cli/bad-kernel', `unknown kernel "${value}"`, 'use --kernel wasm or --kernel reference');
}

/** `--workers`: a positive whole number of worker threads, capped to the cores this machine can run at once (said on stderr). */
export function workersFlag(value: string, cores = availableParallelism()): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new QuotientError('cli/bad-workers', `--workers must be a positive whole number, got "${value}"`, 'for example --workers 2');
  if (n <= cores) return n;
  // More threads than cores only add memory (each worker loads the policy and a kernel) and contention.
  log(display`quotient: --workers ${n} capped to ${cores}, the number of threads this machine can run at once`);
  return cores;
}

/** The most generated states `--runs` may ask for per promise: the size budget of one `quotient test`. */
export const MAX_RUNS = 100_000;

/** `--runs`: generated states per promise, 1 to MAX_RUNS. */
export function runsFlag(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new QuotientError('cli/bad-runs', `--runs must be a positive whole number, got "${value}"`, 'for example --runs 500');
  if (n > MAX_RUNS)
    throw new QuotientError(
      'cli/too-many-runs',
      `--runs ${n} is more than the budget of ${MAX_RUNS.toLocaleString('en-US')} states per promise`,
      `search longer by running again with other seeds (--seed), ${MAX_RUNS.toLocaleString('en-US')} runs each`,
    );
  return n;
}

/** The largest seed (number-limits.ts): fast-check and the simulator's generator take 32 bits, and a larger number would silently wrap onto a smaller seed. */
export { MAX_SEED };

/**
 * `--seed` of every command (`test`, `simulate`, `whatif --market`): a whole number from 0
 * to 2^32-1, one rule (number-text.ts's readSeed, which `--seeds` and `synthetic.seed`
 * follow too); absent, one is drawn from the clock.
 */
export function seedFlag(value: string | undefined, now = Date.now()): number {
  if (value === undefined) return now % 2 ** 31;
  const n = readSeed(value);
  if (isRefusal(n)) {
    throw new QuotientError('cli/bad-seed', `--seed must be a whole number from 0 to ${MAX_SEED}, got "${shownValue(value)}"`, 'use the seed a failure printed, or leave --seed out for a fresh one');
  }
  return n;
}

/**
 * A numeric flag's value as a number-text.ts reader read it, or exit 2 naming the flag:
 * `cli/out-of-range` when it is past its limit (the message says the limit), else `code`.
 */
export function numberFlag(flag: string, value: string, read: number | Refusal, code: string): number {
  if (!isRefusal(read)) return read;
  throw new QuotientError(read.pastLimit ? 'cli/out-of-range' : code, `${flag} "${shownValue(value)}" ${read.refused}`, read.hint);
}

/** `--until`: a simulated time after the start, at most number-limits.ts's MAX_TIME_MS. */
export function untilFlag(value: string): number {
  const t = numberFlag('--until', value, readSimTime(value, 'time'), 'cli/bad-until');
  if (t <= 0) throw new QuotientError('cli/bad-until', `--until "${shownValue(value)}" is the start: the run would end before anything happens`, 'give seconds (86400) or a duration (72h)');
  return t;
}

/** `--cycle`: the scheduler's cycle, a positive duration of at most MAX_TIME_MS. */
export function cycleFlag(value: string): number {
  return numberFlag('--cycle', value, readSimTime(value, 'duration'), 'cli/bad-cycle');
}

/**
 * Paths a variadic option swallowed: `quotient whatif -q NAME policies/x` gives the
 * path to `-q`. For each listed option in turn, values from the first one that is not
 * the option's own kind (a `key=value` pair, a name that is not on disk) on are paths,
 * as the user meant: they are taken out of the option and returned as the paths.
 */
export function takeBackPaths<O extends object>(given: string[], opts: O, owners: Partial<Record<keyof O & string, (value: string) => boolean>>): string[] {
  const fields = opts as Record<string, unknown>;
  let paths = given;
  for (const [key, isOwn] of Object.entries(owners) as Array<[string, (value: string) => boolean]>) {
    if (paths.length > 0) break;
    const values = fields[key] as string[] | undefined;
    if (!values) continue;
    const cut = values.findIndex((v) => !isOwn(v) && existsSync(v));
    if (cut < 0) continue;
    paths = values.slice(cut);
    fields[key] = values.slice(0, cut);
  }
  return paths;
}

/** Adds `--json` (described by `jsonHelp`) and `-o, --output`, read back by `formatOf`. */
export function outputOptions(cmd: Command, jsonHelp: string): Command {
  return cmd.option('--json', jsonHelp).option('-o, --output <format>', 'table | json | yaml', 'table');
}

/** Adds `--kernel`, read back by `kernelFlag`. */
export function kernelOption(cmd: Command): Command {
  return cmd.option('--kernel <backend>', 'wasm | reference (the pure-TypeScript twin)', 'wasm');
}

/**
 * One rule for `key=value` flags (`--set`, `--submit`): a key given twice is refused
 * (exit 2), never silently the last one. Returns a check to call on each key in turn.
 */
export function onceEach(flag: string, code: string, hint: string): (key: string) => void {
  const seen = new Set<string>();
  return (key) => {
    if (seen.has(key)) throw new QuotientError(code, `${flag} gives ${key} twice`, hint);
    seen.add(key);
  };
}

/** `key=value` items (`--submit`, `--set`). */
export const isPair = (v: string): boolean => v.includes('=');
/** A name (`-q`, `-p`) is anything that is not a path on disk. */
export const isName = (v: string): boolean => !existsSync(v);
