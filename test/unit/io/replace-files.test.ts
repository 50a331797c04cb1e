/**
 * Replacing a policy's files (src/io/replace-files.ts, journal.ts, file-lock.ts,
 * settle-folder.ts): all or nothing, symlinks written through, hard links and read-only
 * files refused, mode kept, a file saved by someone else never overwritten, one writer
 * at a time, and an interrupted write finished or undone by the next reader.
 */
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { digestOf } from '../../../src/io/digest.js';
import { acquireLock, LOCK_NAME, tryLock } from '../../../src/io/file-lock.js';
import { JOURNAL_NAME, newJournal, writeJournal } from '../../../src/io/journal.js';
import { readForReplace, replaceFiles } from '../../../src/io/replace-files.js';
import { policyFolder, settleFolder } from '../../../src/io/settle-folder.js';
import { coded } from '../../helpers/codes.js';

const root = mkdtempSync(join(tmpdir(), 'quotient-replace-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dir = '';
let n = 0;
beforeEach(() => {
  dir = join(root, `case-${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.yaml'), 'a: old\n');
  writeFileSync(join(dir, 'b.yaml'), 'b: old\n');
});

const read = (f: string) => readFileSync(join(dir, f), 'utf8');
const ours = () => readdirSync(dir).filter((f) => f.startsWith('.'));
const change = (f: string, text: string) => ({ file: readForReplace(join(dir, f)), bytes: Buffer.from(text) });

describe('replaceFiles', () => {
  it('replaces every file, keeps each mode and leaves nothing behind', () => {
    chmodSync(join(dir, 'b.yaml'), 0o640);
    replaceFiles(dir, [change('a.yaml', 'a: new\n'), change('b.yaml', 'b: new\n')], 'test');
    expect([read('a.yaml'), read('b.yaml')]).toEqual(['a: new\n', 'b: new\n']);
    expect(statSync(join(dir, 'b.yaml')).mode & 0o777).toBe(0o640);
    expect(ours()).toEqual([]);
  });

  it('writes a symlink through to its target and keeps the link', () => {
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'c.yaml'), 'c: old\n');
    symlinkSync(join(dir, 'real', 'c.yaml'), join(dir, 'c.yaml'));
    replaceFiles(dir, [change('c.yaml', 'c: new\n')], 'test');
    expect(statSync(join(dir, 'c.yaml')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'real', 'c.yaml'), 'utf8')).toBe('c: new\n');
    expect(readdirSync(join(dir, 'real'))).toEqual(['c.yaml']);
    expect(ours()).toEqual([]);
  });

  it('refuses a hard-linked file and a read-only one, before writing anything', () => {
    linkSync(join(dir, 'a.yaml'), join(dir, 'a-link.yaml'));
    expect(() => readForReplace(join(dir, 'a.yaml'))).toThrow(coded('io/hard-linked'));
    chmodSync(join(dir, 'b.yaml'), 0o444);
    expect(() => readForReplace(join(dir, 'b.yaml'))).toThrow(coded('io/read-only'));
  });

  it('never overwrites a file someone else saved after it was read, and then writes none', () => {
    const a = change('a.yaml', 'a: new\n');
    const b = change('b.yaml', 'b: new\n');
    writeFileSync(join(dir, 'b.yaml'), 'b: theirs\n');
    expect(() => replaceFiles(dir, [a, b], 'test')).toThrow(coded('io/changed-on-disk'));
    expect([read('a.yaml'), read('b.yaml')]).toEqual(['a: old\n', 'b: theirs\n']);
    expect(ours()).toEqual([]);
  });

  it('leaves the first file unchanged when the second cannot be written', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'c.yaml'), 'c: old\n');
    const a = change('a.yaml', 'a: new\n');
    const c = { file: readForReplace(join(dir, 'sub', 'c.yaml')), bytes: Buffer.from('c: new\n') };
    // The second file's folder is gone by write time: its temp file cannot be made.
    rmSync(join(dir, 'sub'), { recursive: true });
    expect(() => replaceFiles(dir, [a, c], 'test')).toThrow(coded('io/cannot-write'));
    expect(read('a.yaml')).toBe('a: old\n');
    expect(ours()).toEqual([]);
  });
});

describe('recovery of an interrupted write', () => {
  function interrupted(state: 'prepared' | 'committed', renamed: boolean) {
    const temp = join(dir, '.a.yaml.quotient-999999-00ff00ff.tmp');
    writeFileSync(temp, 'a: new\n');
    const entries = [{ shown: 'a.yaml', target: join(dir, 'a.yaml'), temp, before: digestOf(Buffer.from('a: old\n')), after: digestOf(Buffer.from('a: new\n')) }];
    writeJournal(dir, { ...newJournal('test', entries), pid: 999999, state });
    if (renamed) {
      writeFileSync(join(dir, 'a.yaml'), readFileSync(temp));
      rmSync(temp);
    }
  }

  it('rolls a prepared journal back: old content, no temp file', () => {
    interrupted('prepared', false);
    expect(settleFolder(dir).join()).toMatch(/rolled back an interrupted write/);
    expect(read('a.yaml')).toBe('a: old\n');
    expect(ours()).toEqual([]);
  });

  it('rolls a committed journal forward, whether or not the rename happened', () => {
    interrupted('committed', false);
    expect(settleFolder(dir).join()).toMatch(/completed an interrupted write/);
    expect(read('a.yaml')).toBe('a: new\n');
    expect(ours()).toEqual([]);
    interrupted('committed', true);
    settleFolder(dir);
    expect(read('a.yaml')).toBe('a: new\n');
    expect(ours()).toEqual([]);
  });

  it('stops, keeping the journal, when a file was changed after the crash', () => {
    interrupted('committed', false);
    writeFileSync(join(dir, 'a.yaml'), 'a: edited after the crash\n');
    expect(() => settleFolder(dir)).toThrow(coded('io/journal-conflict'));
    expect(read('a.yaml')).toBe('a: edited after the crash\n');
    expect(existsSync(join(dir, JOURNAL_NAME))).toBe(true);
  });

  it('removes a stale lock and temp files of dead processes, and touches nothing in a clean folder', () => {
    writeFileSync(join(dir, LOCK_NAME), JSON.stringify({ pid: 999999, host: hostname(), since: '', command: 'x' }));
    writeFileSync(join(dir, '.b.yaml.quotient-999999.tmp'), 'junk');
    const notes = settleFolder(dir).join('\n');
    expect(notes).toMatch(/stale lock/);
    expect(notes).toMatch(/\.b\.yaml\.quotient-999999\.tmp/);
    expect(ours()).toEqual([]);
    expect(settleFolder(dir)).toEqual([]);
  });
});

describe('the folder lock', () => {
  it('lets one holder in at a time and names it to the next', () => {
    const lock = acquireLock(dir, 'first');
    const second = tryLock(dir, 'second');
    expect('holder' in second ? second.holder : undefined).toMatchObject({ pid: process.pid, command: 'first' });
    expect(() => acquireLock(dir, 'third')).toThrow(coded('io/locked'));
    // The text is the behaviour here: the refusal names the holder (pid, host, command).
    expect(() => acquireLock(dir, 'third')).toThrow(/locked by pid \d+ on .*, first/);
    lock.release();
    expect(existsSync(join(dir, LOCK_NAME))).toBe(false);
  });

  it('puts the lock and journal of loose files in the folder they share', () => {
    expect(policyFolder(['/x/p/a.yaml', '/x/p/sub/b.yaml'])).toBe('/x/p');
    expect(policyFolder(['/x/p/a.yaml'])).toBe('/x/p');
  });
});
