/**
 * `npm run prepare` (scripts/prepare.mjs) builds only when the build is older than its
 * sources: `npx quotient` installs the project into npx's cache and runs `prepare` there,
 * which rebuilt everything (~20 s) on the README's first command (issue 7 item 9).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'quotient-prepare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, secondsAgo: number): void {
  const p = join(dir, path);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, '');
  const t = Date.now() / 1000 - secondsAgo;
  utimesSync(p, t, t);
}

const check = () => spawnSync(process.execPath, [join(ROOT, 'scripts/prepare.mjs'), '--check', dir], { encoding: 'utf8' });

describe('scripts/prepare.mjs', () => {
  it('is what npm runs as prepare', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
  });

  it('says a build is needed when an output is missing or older than a source, and not otherwise', () => {
    for (const src of ['assembly/index.ts', 'asconfig.json', 'src/cli/main.ts', 'src/engine/whatif.ts', 'src/web/app.tsx', 'scripts/build-web.mjs', 'tsconfig.json', 'package.json']) file(src, 100);
    expect(check()).toMatchObject({ status: 1, stdout: 'stale: build/kernel.wasm is missing\n' });
    file('build/kernel.wasm', 50);
    file('dist/cli/main.js', 50);
    expect(check()).toMatchObject({ status: 1, stdout: 'stale: dist/web/index.html is missing\n' });
    file('dist/web/index.html', 50);
    expect(check()).toMatchObject({ status: 0, stdout: 'up to date\n' });
    // The web app's sources and its build script make dist/web; a newer one of them makes it stale.
    file('scripts/build-web.mjs', 20);
    expect(check()).toMatchObject({ status: 1, stdout: `stale: ${join('scripts', 'build-web.mjs')} is newer than dist/web/index.html\n` });
    file('dist/web/index.html', 15);
    file('src/engine/whatif.ts', 10);
    expect(check()).toMatchObject({ status: 1, stdout: `stale: ${join('src', 'engine', 'whatif.ts')} is newer than dist/cli/main.js\n` });
    file('dist/cli/main.js', 5);
    file('assembly/index.ts', 1);
    expect(check()).toMatchObject({ status: 1, stdout: `stale: ${join('assembly', 'index.ts')} is newer than build/kernel.wasm\n` });
  });
});
