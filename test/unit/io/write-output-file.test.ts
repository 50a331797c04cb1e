/**
 * Files the user asks for by path (simulate --html, export --report) are written whole
 * through a temp file and a rename, never leave the temp behind, are written to (not
 * replaced) when the path is a device, and a failure is one QuotientError.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QuotientError } from '../../../src/errors.js';
import { writeOutputFile } from '../../../src/io/write-in-folder.js';

describe('writeOutputFile', () => {
  it('writes a new file and replaces an old one whole, leaving nothing else in the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'q-out-'));
    const path = join(dir, 'report.html');
    writeOutputFile(path, 'first');
    writeFileSync(join(dir, 'other.txt'), 'kept');
    writeOutputFile(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(readdirSync(dir).sort()).toEqual(['other.txt', 'report.html']);
  });

  it('writes to a device instead of replacing it', () => {
    writeOutputFile('/dev/null', 'nothing');
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('refuses a read-only file as scale --apply does, and leaves it as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'q-out-'));
    const path = join(dir, 'report.txt');
    writeFileSync(path, 'kept');
    chmodSync(path, 0o444);
    expect(() => writeOutputFile(path, 'new')).toThrow(/report\.txt is read-only \(mode 0444\); nothing was written/);
    expect(readFileSync(path, 'utf8')).toBe('kept');
  });

  it('turns a folder that does not exist into one clear error', () => {
    let caught: unknown;
    try {
      writeOutputFile('/nonexistent-quotient-folder/r.html', 'x');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(QuotientError);
    expect((caught as QuotientError).code).toBe('cli/unwritable-file');
    expect((caught as QuotientError).message).toMatch(/cannot write \/nonexistent-quotient-folder\/r\.html: ENOENT/);
  });
});
