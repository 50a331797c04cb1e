/**
 * The compiled-policy cache through the CLI: `check` and `whatif` print the same bytes warm
 * as cold (tables and --json, file:line:col included), `--no-cache` and QUOTIENT_NO_CACHE
 * write nothing, an unwritable folder changes nothing, and writers racing on one entry
 * leave a valid one.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotient, ROOT } from '../helpers/run-cli.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const SHIPPED = readdirSync(join(ROOT, 'policies')).filter((d) => statSync(join(ROOT, 'policies', d)).isDirectory());
const tempDir = tempDirs('quotient-cli-cache-');

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.policy')) : []);
/** How many loads of a `--timings` run the cache served. */
const hits = (stderr: string): number => stderr.split('\n').filter((l) => l.startsWith('timings: cache ')).length;

describe('the compiled-policy cache, through the CLI', () => {
  it('check and whatif print the same bytes warm as cold, for every shipped policy (table and --json)', () => {
    const dir = tempDir();
    const env = { QUOTIENT_CACHE_DIR: dir };
    for (const args of [
      ['check', 'policies/'],
      ['check', 'policies/', '--json'],
      ...SHIPPED.flatMap((n) => [
        ['whatif', `policies/${n}`, '--json'],
        ['whatif', `policies/${n}`],
      ]),
    ]) {
      const cold = quotient([...args, '--no-cache'], undefined, env);
      expect(cold.status, args.join(' ')).not.toBe(2);
      const writing = quotient(args, undefined, env);
      const warm = quotient([...args, '--timings'], undefined, env);
      for (const r of [writing, warm]) {
        expect(r.stdout, args.join(' ')).toBe(cold.stdout);
        expect(r.status, args.join(' ')).toBe(cold.status);
      }
      expect(hits(warm.stderr), `${args.join(' ')} was served by the cache`).toBeGreaterThan(0);
    }
    expect(entries(dir)).toHaveLength(SHIPPED.length);
  });

  it('--no-cache and QUOTIENT_NO_CACHE=1 neither read nor write it', () => {
    const dir = join(tempDir(), 'c');
    expect(quotient(['check', 'policies/', '--no-cache'], undefined, { QUOTIENT_CACHE_DIR: dir }).status).toBe(0);
    expect(quotient(['check', 'policies/'], undefined, { QUOTIENT_CACHE_DIR: dir, QUOTIENT_NO_CACHE: '1' }).status).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(quotient(['check', 'policies/'], undefined, { QUOTIENT_CACHE_DIR: dir }).status).toBe(0);
    expect(entries(dir)).toHaveLength(SHIPPED.length);
    const off = quotient(['check', 'policies/', '--no-cache', '--timings'], undefined, { QUOTIENT_CACHE_DIR: dir });
    expect(hits(off.stderr)).toBe(0);
  });

  it('--no-cache before the command, as a program option, runs the command and leaves the cache alone', () => {
    const dir = join(tempDir(), 'c');
    const plain = quotient(['check', 'policies/', '--json', '--no-cache']);
    const before = quotient(['--no-cache', 'check', 'policies/', '--json'], undefined, { QUOTIENT_CACHE_DIR: dir });
    expect(before).toEqual(plain);
    expect(before.stdout).toContain('"kind": "CheckReport"');
    expect(existsSync(dir)).toBe(false);
  });

  it('lives in $XDG_CACHE_HOME/quotient when QUOTIENT_CACHE_DIR is not set', () => {
    const xdg = tempDir();
    expect(quotient(['check', 'policies/team-isolation'], undefined, { QUOTIENT_CACHE_DIR: undefined, XDG_CACHE_HOME: xdg }).status).toBe(0);
    expect(entries(join(xdg, 'quotient'))).toHaveLength(1);
  });

  it('an unwritable cache folder fails nothing and prints nothing', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), 'x');
    const cold = quotient(['check', 'policies/', '--json', '--no-cache']);
    const r = quotient(['check', 'policies/', '--json'], undefined, { QUOTIENT_CACHE_DIR: join(parent, 'file', 'quotient') });
    expect(r).toEqual(cold);
  });

  it('writers racing on one entry leave a valid one', async () => {
    const dir = tempDir();
    const run = (): Promise<number | null> =>
      new Promise((done) => {
        const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'check', 'policies/queued-jobs', '--json'], {
          cwd: ROOT,
          env: { ...process.env, QUOTIENT_CACHE_DIR: dir },
          stdio: 'ignore',
        });
        child.on('close', done);
      });
    const codes = await Promise.all(Array.from({ length: 6 }, run));
    expect(codes.every((c) => c === codes[0] && c !== 2)).toBe(true);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(entries(dir)).toHaveLength(1);
    const cold = quotient(['check', 'policies/queued-jobs', '--json', '--no-cache']);
    const warm = quotient(['check', 'policies/queued-jobs', '--json', '--timings'], undefined, { QUOTIENT_CACHE_DIR: dir });
    expect(warm.stdout).toBe(cold.stdout);
    expect(hits(warm.stderr)).toBe(1);
  });

  it('does not use a folder others may write to: one warning line on stderr, the same output, nothing written', () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const env = { QUOTIENT_CACHE_DIR: dir };
    const cold = quotient(['check', 'policies/team-isolation', '--no-cache'], undefined, env);
    const r = quotient(['check', 'policies/team-isolation'], undefined, env);
    expect(r.status).toBe(cold.status);
    expect(r.stdout).toBe(cold.stdout);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('quotient: warning: '));
    expect(warnings).toEqual([
      `quotient: warning: the cache folder ${dir} is writable by every user (mode 777): the compiled-policy cache is not used (chmod 700 it if it is yours, or set QUOTIENT_CACHE_DIR to a folder of your own)`,
    ]);
    expect(entries(dir)).toEqual([]);
  });
});
