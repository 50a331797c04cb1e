/**
 * scripts/check-chromium.mjs, npm test's pretest (issue 27 item 16): a fresh machine without
 * Chromium either gets it installed (root with apt-get) or stops at once with one line naming
 * the command, before the build and the tests. Run here with a fake environment: a Chromium
 * path that does not exist (QUOTIENT_CHROMIUM), and a PATH holding only a fake apt-get or none.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'quotient-chromium-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

/** Runs the script with only `bin` on PATH and Chromium expected at `chromium`. */
function check(chromium: string, bin: string): { status: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/check-chromium.mjs')], { encoding: 'utf8', env: { PATH: bin, QUOTIENT_CHROMIUM: chromium }, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

/** A folder holding a fake apt-get that logs its arguments and, on `install`, makes `chromium` (or fails when `fail`). */
function fakeApt(name: string, chromium: string, fail = false): { bin: string; log: string } {
  const bin = join(dir, name);
  const log = join(bin, 'apt.log');
  mkdirSync(bin, { recursive: true });
  const install = fail ? 'exit 100' : `printf '#!/bin/sh\\n' > '${chromium}'; /bin/chmod +x '${chromium}'`;
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "$@" >> '${log}'\nif [ "$1" = install ]; then ${install}; fi\nexit 0\n`);
  chmodSync(join(bin, 'apt-get'), 0o755);
  return { bin, log };
}

describe('scripts/check-chromium.mjs', () => {
  it('is the first step of npm test, before the build', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.pretest).toMatch(/^node scripts\/check-chromium\.mjs && /);
  });

  it('says nothing and passes when Chromium is there', () => {
    const chromium = join(dir, 'chromium-present');
    writeFileSync(chromium, '#!/bin/sh\n');
    chmodSync(chromium, 0o755);
    expect(check(chromium, join(dir, 'empty-bin'))).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('stops at once with one line naming the command when it cannot install (no apt-get)', () => {
    const r = check(join(dir, 'no-chromium'), join(dir, 'empty-bin'));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // The words are the behaviour: one line, and the command to run.
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toContain('apt-get install -y chromium');
    expect(r.ms).toBeLessThan(10_000);
  });

  it('installs it with apt-get as root (apt-get update, then install -y chromium); not as another user', () => {
    const chromium = join(dir, 'installed-chromium');
    const apt = fakeApt('apt-ok', chromium);
    const r = check(chromium, apt.bin);
    if (root) {
      expect(r.status, r.stderr).toBe(0);
      expect(readFileSync(apt.log, 'utf8')).toBe('update\ninstall -y chromium\n');
      expect(existsSync(chromium)).toBe(true);
    } else {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('sudo apt-get install -y chromium');
      expect(existsSync(apt.log)).toBe(false);
    }
  });

  it('stops with one line when the install fails', () => {
    const chromium = join(dir, 'never-chromium');
    const apt = fakeApt('apt-fails', chromium, true);
    const r = check(chromium, apt.bin);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toContain('apt-get install -y chromium');
    expect(existsSync(chromium)).toBe(false);
  });
});
