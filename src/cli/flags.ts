/** Flag values shared by several commands, checked once: a bad value names the flag and what it takes (exit 2). */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
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

/** `key=value` items (`--submit`, `--set`). */
export const isPair = (v: string): boolean => v.includes('=');
/** A name (`-q`, `-p`) is anything that is not a path on disk. */
export const isName = (v: string): boolean => !existsSync(v);
