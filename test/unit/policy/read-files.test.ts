/**
 * Reading files: every file-system failure maps to one line naming the path (exit 2),
 * and bytes that are not UTF-8 are found, not replaced. The errno cases a test cannot
 * produce on every machine (EACCES for root, EIO) are checked on the mapping itself
 * with the error Node would throw; the CLI test produces a real EACCES.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { QuotientError } from '../../../src/errors.js';
import { fsFailure } from '../../../src/policy/parse/fs-failure.js';
import { readBundles, readOne, readSourceText } from '../../../src/policy/parse/read-files.js';
import { decodeUtf8, firstInvalid } from '../../../src/policy/parse/utf8.js';
import { coded } from '../../helpers/codes.js';

/** The error Node throws for a failed call, as fs makes it. */
function errno(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failure, ${syscall} '${path}'`), { code, syscall, path, errno: -1 });
}

describe('fsFailure', () => {
  it.each([
    ['EACCES', 'scandir', 'cli/permission-denied', /^p cannot be read: permission denied$/],
    ['ENOENT', 'open', 'cli/no-such-file', /^p does not exist \(or was removed while it was being read\)$/],
    ['ELOOP', 'stat', 'cli/link-loop', /^p is a loop of symbolic links$/],
    ['EIO', 'read', 'cli/io-error', /input\/output error/],
    ['EWEIRD', 'read', 'cli/unreadable-file', /^cannot read p: EWEIRD: failure, read 'p'$/],
  ])('maps %s from %s to one line with code %s', (code, syscall, want, message) => {
    const e = fsFailure(errno(code, syscall, 'p'), 'p');
    expect(e).toBeInstanceOf(QuotientError);
    expect((e as QuotientError).code).toBe(want);
    // The text is the behaviour here: each errno as one line in words, never Node's raw text.
    expect((e as QuotientError).message).toMatch(message);
    expect((e as QuotientError).message).not.toContain('\n');
    expect((e as QuotientError).hint).not.toBe('');
  });

  it('passes through what is not a file-system error (a bug stays a bug)', () => {
    const bug = new TypeError('x is undefined');
    expect(fsFailure(bug, 'p')).toBe(bug);
  });
});

describe('utf8', () => {
  it('accepts UTF-8 of every length and keeps a byte-order mark', () => {
    const text = '\uFEFFa é € 𝄞';
    expect(decodeUtf8(Buffer.from(text, 'utf8'))).toEqual({ text });
  });

  it.each([
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['Latin-1 é', [0x63, 0x61, 0x66, 0xe9, 0x0a], 3],
    ['an overlong slash', [0xc0, 0xaf], 0],
    ['a surrogate', [0x61, 0xed, 0xa0, 0x80], 1],
    ['a sequence cut short at the end', [0x61, 0xe2, 0x82], 1],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
  ])('finds %s', (_name, bytes, at) => {
    expect(firstInvalid(Uint8Array.from(bytes))).toBe(at);
    expect(decodeUtf8(Uint8Array.from(bytes)).invalid?.byteOffset).toBe(at);
  });

  it('locates the bad byte by line and column of the text as read', () => {
    const bytes = Buffer.concat([Buffer.from('a: 1\r\nb: "é'), Buffer.from([0xff]), Buffer.from('"\n')]);
    expect(decodeUtf8(bytes).invalid).toMatchObject({ line: 2, column: 6, offset: 11, byte: 0xff });
  });
});

describe('readBundles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'quotient-read-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says a file removed after it was listed is gone, in one line', () => {
    expect(() => readOne(join(dir, 'gone.yaml'))).toThrow(coded('cli/no-such-file'));
  });

  it('keeps what it read, for the renderers to quote', () => {
    writeFileSync(join(dir, 'a.yaml'), 'x: 1\n');
    const [b] = readBundles([join(dir, 'a.yaml')], dir);
    expect(b?.files.map((f) => f.text)).toEqual(['x: 1\n']);
    expect(readSourceText(join(dir, 'a.yaml'))).toBe('x: 1\n');
  });

  it('does not read past the byte limit: the file that crosses it carries a finding, later files are not read', () => {
    const sub = join(dir, 'big');
    rmSync(sub, { recursive: true, force: true });
    writeFileSync(join(dir, 'z1.yaml'), 'a'.repeat(600));
    writeFileSync(join(dir, 'z2.yaml'), 'b'.repeat(600));
    writeFileSync(join(dir, 'z3.yaml'), 'c'.repeat(10));
    const [b] = readBundles(
      ['z1.yaml', 'z2.yaml', 'z3.yaml'].map((f) => join(dir, f)),
      dir,
      { maxBytes: 1000, maxDepth: 100, maxNodes: 1000 },
    );
    expect(b?.files.map((f) => [f.text.length, f.findings?.map((x) => x.code)])).toEqual([
      [600, undefined],
      [0, ['policy/too-large']],
      [0, undefined],
    ]);
  });

  /** The bundles of `paths` as [label, files], and the notes written to stderr meanwhile. */
  function bundlesOf(paths: string[]): { bundles: Array<[string, string[]]>; notes: string } {
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bundles = readBundles(paths).map((b): [string, string[]] => [b.label, b.files.map((f) => f.path)]);
      return { bundles, notes: spy.mock.calls.map((c) => String(c[0])).join('') };
    } finally {
      spy.mockRestore();
    }
  }

  it('reads a file named twice, or again through a link, once, and says so', () => {
    const twice = join(dir, 'twice');
    mkdirSync(twice);
    const file = join(twice, 'q.yaml');
    writeFileSync(file, 'x: 1\n');
    symlinkSync(file, join(twice, 'link.yml'));
    const { bundles, notes } = bundlesOf([file, file, join(twice, 'link.yml')]);
    expect(bundles).toEqual([[file, [file]]]);
    expect(notes).toBe(`quotient: ${file} is named more than once; it is read once\nquotient: ${join(twice, 'link.yml')} is the same file as ${file}; it is read once\n`);
  });

  it('makes a folder named twice, or inside a folder of policies also named, one policy', () => {
    const root = join(dir, 'policies');
    for (const name of ['a', 'b']) {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, 'p.yaml'), 'x: 1\n');
    }
    const a = join(root, 'a');
    expect(bundlesOf([a, `${a}/`]).bundles).toEqual([[a, [join(a, 'p.yaml')]]]);
    for (const paths of [
      [root, a],
      [a, root],
    ]) {
      const { bundles, notes } = bundlesOf(paths);
      expect(bundles.map(([label]) => label).sort()).toEqual([a, join(root, 'b')]);
      expect(notes).toBe(`quotient: ${a} is named more than once; it is checked once\n`);
    }
  });
});
