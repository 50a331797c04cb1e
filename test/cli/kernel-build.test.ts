/**
 * A missing, damaged or stale build/kernel.wasm is named as such with how to rebuild,
 * exit 2 — never "internal error … a bug in Quotient" (issue 7 item 9). The file is
 * swapped through QUOTIENT_KERNEL_WASM, so the real build is never touched.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'quotient-wasm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const real = readFileSync(join(ROOT, 'build/kernel.wasm'));
const cases: Array<[name: string, bytes: Buffer | undefined, says: RegExp]> = [
  ['truncated', real.subarray(0, Math.floor(real.length / 2)), /kernel build is damaged .*truncated or not a kernel.*extends past end/],
  ['garbage', Buffer.from('not a wasm file\n'), /kernel build is damaged .*expected magic word/],
  // A valid module without the kernel's layout constants: a build of other sources.
  ['stale', Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]), /kernel build is stale.*kernel\/layout-mismatch/],
  ['missing', undefined, /kernel is not built .*ENOENT/],
];

describe('a bad build/kernel.wasm', () => {
  it.each(cases)('%s: one clear line, how to rebuild, exit 2', (name, bytes, says) => {
    const file = join(dir, `${name}.wasm`);
    if (bytes) writeFileSync(file, bytes);
    for (const args of [
      ['whatif', 'policies/inference-preempts-training'],
      ['test', 'policies/self-level-preemption', '--runs', '2', '--seed', '1'],
    ]) {
      const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', QUOTIENT_KERNEL_WASM: file }, timeout: 120_000 });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(says);
      expect(r.stderr).toContain('hint: run `npm run build:kernel`');
      expect(r.stderr).not.toMatch(/internal error|a bug in Quotient|\n\s+at /);
    }
  });

  it('the real build, named through QUOTIENT_KERNEL_WASM, answers', () => {
    const r = spawnSync(process.execPath, [MAIN, 'whatif', 'policies/inference-preempts-training', '-q', 'team-a-inference'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', QUOTIENT_KERNEL_WASM: join(ROOT, 'build/kernel.wasm') },
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('PREEMPT');
  });
});
