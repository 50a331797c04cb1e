/** io/regular-file.ts: only a regular file is handed over; a FIFO, a folder, a device or nothing is undefined, without blocking. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withRegularFile } from '../../../src/io/regular-file.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-regular-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withRegularFile', () => {
  it('hands a regular file over with its size', () => {
    writeFileSync(join(dir, 'f'), 'hello');
    expect(withRegularFile(join(dir, 'f'), (_fd, size) => size)).toBe(5);
  });

  it('gives undefined for a FIFO (without blocking), a folder, a device, a missing file and a failing use', () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync('/dev/zero', join(dir, 'zero'));
    for (const name of ['fifo', '.', 'zero', 'missing'])
      expect(
        withRegularFile(join(dir, name), () => 1),
        name,
      ).toBeUndefined();
    expect(
      withRegularFile(join(dir, 'f'), () => {
        throw new Error('boom');
      }),
    ).toBeUndefined();
  });
});
