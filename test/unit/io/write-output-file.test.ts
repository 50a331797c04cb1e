/**
 * The one writer of files the user names (src/io/write-in-folder.ts): written whole
 * through a temp file, never over an input of the command nor into its policy folder
 * (io/output-is-input), over an existing file only when it is quotient's own output
 * (its mark) or with --force, with the old file's mode kept, a device written to and
 * never replaced, and every failure one QuotientError.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { QuotientError } from '../../../src/errors.js';
import { forgetReadInputs, noteReadFile, noteReadFolder } from '../../../src/io/input-registry.js';
import { hasOutputMark, markOutput } from '../../../src/io/output-mark.js';
import { checkOutputFile, checkOutputFolder, saveInFolder, writeOutputFile, type OutputFileOptions } from '../../../src/io/write-in-folder.js';

const root = mkdtempSync(join(tmpdir(), 'q-out-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dir = '';
let n = 0;
beforeEach(() => {
  forgetReadInputs();
  dir = join(root, `case-${n++}`);
  mkdirSync(dir);
});

const HTML: OutputFileOptions = { flag: '--html', kind: 'html' };
const TEXT: OutputFileOptions = { flag: '--report', kind: 'text' };

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(QuotientError);
    return (e as QuotientError).code;
  }
  return undefined;
}

/** A pid that ran and is gone. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid ?? 999_999;
}

describe('writeOutputFile', () => {
  it('writes a new file with its mark and replaces its own output whole, leaving nothing else in the folder', () => {
    const path = join(dir, 'report.html');
    writeOutputFile(path, '<!doctype html>\n<p>first', HTML);
    expect(readFileSync(path, 'utf8')).toMatch(/^<!doctype html>\n<!-- quotient-output: .*-->\n<p>first$/);
    writeFileSync(join(dir, 'other.txt'), 'kept');
    writeOutputFile(path, '<!doctype html>\n<p>second', HTML);
    expect(readFileSync(path, 'utf8')).toContain('<p>second');
    expect(readdirSync(dir).sort()).toEqual(['other.txt', 'report.html']);
  });

  it('refuses to replace a file quotient did not write, unless --force', () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'mine\n');
    expect(codeOf(() => writeOutputFile(path, 'table', TEXT))).toBe('io/not-quotient-output');
    expect(readFileSync(path, 'utf8')).toBe('mine\n');
    writeOutputFile(path, 'table', { ...TEXT, force: true });
    expect(readFileSync(path, 'utf8')).toBe(markOutput('text', 'table'));
  });

  it('keeps the mode of a replaced file (0600 stays 0600, forced or its own) and gives a new one the umask mode', () => {
    const own = join(dir, 'own.html');
    writeOutputFile(own, 'x', HTML);
    expect(statSync(own).mode & 0o777).toBe(0o666 & ~process.umask());
    chmodSync(own, 0o600);
    writeOutputFile(own, 'y', HTML);
    expect(statSync(own).mode & 0o777).toBe(0o600);
    const foreign = join(dir, 'private.html');
    writeFileSync(foreign, 'secret', { mode: 0o640 });
    chmodSync(foreign, 0o640);
    writeOutputFile(foreign, 'z', { ...HTML, force: true });
    expect(statSync(foreign).mode & 0o777).toBe(0o640);
  });

  it('writes to a device instead of replacing it', () => {
    writeOutputFile('/dev/null', 'nothing', TEXT);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('refuses a read-only file as scale --apply does, even with --force, and leaves it as it was', () => {
    const path = join(dir, 'report.txt');
    writeFileSync(path, markOutput('text', 'kept'));
    chmodSync(path, 0o444);
    expect(codeOf(() => writeOutputFile(path, 'new', { ...TEXT, force: true }))).toBe('io/read-only');
    expect(readFileSync(path, 'utf8')).toBe(markOutput('text', 'kept'));
  });

  it('turns a folder that does not exist or a loop of links into one clear error, and an empty path into a flag error', () => {
    expect(codeOf(() => writeOutputFile('/nonexistent-quotient-folder/r.html', 'x', HTML))).toBe('cli/unwritable-file');
    expect(codeOf(() => writeOutputFile('', 'x', HTML))).toBe('cli/empty-path');
    // A loop of links at the name: the check before the run fails as clearly as the write.
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    expect(codeOf(() => checkOutputFile(join(dir, 'loop-a'), HTML))).toBe('cli/unwritable-file');
    expect(codeOf(() => writeOutputFile(join(dir, 'loop-a'), 'x', HTML))).toBe('cli/unwritable-file');
  });

  it('refuses a file the command read, by any name that leads to it (a symlink, a hard link, another spelling), even with --force', () => {
    const input = join(dir, 'jobs.csv');
    writeFileSync(input, 'job,gpu\n');
    noteReadFile(input);
    symlinkSync(input, join(dir, 'link.html'));
    linkSync(input, join(dir, 'hard.html'));
    for (const target of [input, join(dir, 'link.html'), join(dir, 'hard.html'), join(dir, '.', 'x', '..', 'jobs.csv')]) {
      expect(
        codeOf(() => writeOutputFile(target, 'x', { ...HTML, force: true })),
        target,
      ).toBe('io/output-is-input');
    }
    expect(readFileSync(input, 'utf8')).toBe('job,gpu\n');
    expect(lstatSync(join(dir, 'link.html')).isSymbolicLink()).toBe(true);
  });

  it('refuses any file of a policy folder the command read, and a new YAML file there; a new report there is fine', () => {
    const policy = join(dir, 'policy');
    mkdirSync(join(policy, 'sub'), { recursive: true });
    writeFileSync(join(policy, 'quotas.yaml'), 'q\n');
    writeFileSync(join(policy, 'prices.csv'), 'p\n');
    noteReadFolder(policy);
    noteReadFile(join(policy, 'quotas.yaml'), 'policy');
    for (const target of ['quotas.yaml', 'prices.csv', 'new.yaml', 'sub/new.yml', 'sub']) {
      expect(
        codeOf(() => writeOutputFile(join(policy, target), 'x', { ...TEXT, force: true })),
        target,
      ).toBe('io/output-is-input');
    }
    writeOutputFile(join(policy, 'report.txt'), 'x', TEXT);
    // Its own output in the folder is not the policy's: the next run replaces it.
    writeOutputFile(join(policy, 'report.txt'), 'y', TEXT);
    expect(readFileSync(join(policy, 'report.txt'), 'utf8')).toBe(markOutput('text', 'y'));
    expect(readdirSync(policy).sort()).toEqual(['prices.csv', 'quotas.yaml', 'report.txt', 'sub']);
  });

  it('refuses a new YAML file beside a policy file named on its own, not other files there', () => {
    writeFileSync(join(dir, 'p.yaml'), 'q\n');
    noteReadFile(join(dir, 'p.yaml'), 'policy');
    expect(codeOf(() => writeOutputFile(join(dir, 'out.yaml'), 'x', TEXT))).toBe('io/output-is-input');
    writeOutputFile(join(dir, 'out.html'), 'x', HTML);
    expect(existsSync(join(dir, 'out.yaml'))).toBe(false);
  });

  it('sweeps the temp files a dead run left in the folder, and nothing else', () => {
    const dead = deadPid();
    const stale = `.r.html.quotient-${dead}-0123abcd.tmp`;
    const live = `.r.html.quotient-${process.ppid}-0123abcd.tmp`;
    const other = '.r.html.quotient-x.tmp';
    for (const name of [stale, live, other]) writeFileSync(join(dir, name), 'half');
    const victim = join(root, `victim-${n}.txt`);
    writeFileSync(victim, 'keep');
    const link = `.v.quotient-${dead}-0123abce.tmp`;
    symlinkSync(victim, join(dir, link));
    writeOutputFile(join(dir, 'r.html'), 'x', HTML);
    expect(readdirSync(dir).sort()).toEqual([live, other, link, 'r.html'].sort());
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });

  it('leaves the temp files of a folder under an unfinished journal to its recovery', () => {
    const stale = `.a.yaml.quotient-${deadPid()}-0123abcd.tmp`;
    writeFileSync(join(dir, '.quotient-journal.json'), '{}');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', stale), 'new content');
    writeOutputFile(join(dir, 'sub', 'r.html'), 'x', HTML);
    expect(existsSync(join(dir, 'sub', stale))).toBe(true);
  });
});

describe('saveInFolder', () => {
  it('passes over a name taken by an input, a file quotient did not write or a link, and replaces its own earlier save', () => {
    writeFileSync(join(dir, 'a.yaml'), 'input\n');
    noteReadFile(join(dir, 'a.yaml'));
    writeFileSync(join(dir, 'b.yaml'), 'mine\n');
    symlinkSync(join(dir, 'b.yaml'), join(dir, 'c.yaml'));
    const a = saveInFolder(dir, 'a.yaml', 'cex a\n');
    const b = saveInFolder(dir, 'b.yaml', 'cex b\n');
    const c = saveInFolder(dir, 'c.yaml', 'cex c\n');
    expect([a.path, b.path, c.path]).toEqual([join(dir, 'a-2.yaml'), join(dir, 'b-2.yaml'), join(dir, 'c-2.yaml')]);
    expect(a.passed.map((p) => p.path)).toEqual([join(dir, 'a.yaml')]);
    expect([readFileSync(join(dir, 'a.yaml'), 'utf8'), readFileSync(join(dir, 'b.yaml'), 'utf8')]).toEqual(['input\n', 'mine\n']);
    expect(lstatSync(join(dir, 'c.yaml')).isSymbolicLink()).toBe(true);
    const again = saveInFolder(dir, 'b.yaml', 'cex b again\n');
    expect(again).toEqual({ path: join(dir, 'b-2.yaml'), passed: [{ path: join(dir, 'b.yaml'), why: 'a file quotient did not write' }] });
    expect(readFileSync(again.path, 'utf8')).toBe(markOutput('yaml', 'cex b again\n'));
  });

  it('never takes a name another save of the run will take', () => {
    writeFileSync(join(dir, 'x.yaml'), 'mine\n');
    expect(saveInFolder(dir, 'x.yaml', 'cex\n', new Set(['x.yaml', 'x-2.yaml'])).path).toBe(join(dir, 'x-3.yaml'));
  });

  it('refuses a folder that is, or is in, a policy folder the command read', () => {
    const policy = join(dir, 'policy');
    mkdirSync(policy);
    noteReadFolder(policy);
    for (const d of [policy, join(policy, 'cex'), join(policy, 'a', 'b')])
      expect(
        codeOf(() => checkOutputFolder(d, '--save')),
        d,
      ).toBe('io/output-is-input');
    expect(codeOf(() => checkOutputFolder(join(dir, 'cex'), '--save'))).toBeUndefined();
    expect(codeOf(() => checkOutputFolder('', '--save'))).toBe('cli/empty-path');
    expect(readdirSync(policy)).toEqual([]);
  });
});

describe('the output mark', () => {
  it('is found on the first line, or the second after an HTML doctype, and nowhere else', () => {
    expect(hasOutputMark(markOutput('yaml', 'a: 1\n'))).toBe(true);
    expect(hasOutputMark(markOutput('html', '<!doctype html>\n<html>'))).toBe(true);
    expect(markOutput('html', '<!doctype html>\n<html>').startsWith('<!doctype html>\n<!-- quotient-output:')).toBe(true);
    expect(hasOutputMark(`a\nb\n${markOutput('text', 'x')}`)).toBe(false);
    expect(hasOutputMark('see # quotient-output: in the docs')).toBe(false);
  });
});
