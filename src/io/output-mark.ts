/**
 * How quotient knows a file is its own output, and so may be replaced by the next run
 * (docs/cli.md "Output files"): every file it writes for the user (`simulate --html`,
 * `export --report`, `test --save`) carries one mark line at its top, in the comment
 * syntax of its kind:
 *
 *   <!doctype html>
 *   <!-- quotient-output: written by quotient; ... -->          (HTML: right after the doctype)
 *   # quotient-output: written by quotient; ...                  (text and YAML: the first line)
 *
 * A file is quotient's own when its first or second line starts with the mark (in either
 * syntax). Any other existing file is the user's: it is never replaced without `--force`.
 */
import { readSync } from 'node:fs';
import { withRegularFile } from './regular-file.js';

/** The kinds of output file, by the comment syntax their mark takes. */
export type OutputKind = 'html' | 'text' | 'yaml';

const WORDS = 'quotient-output: written by quotient, which replaces this file when asked to write it again';
const HTML_MARK = `<!-- ${WORDS} -->`;
const HASH_MARK = `# ${WORDS}`;
const STARTS = ['<!-- quotient-output:', '# quotient-output:'];
/** How much of a file is read to look for the mark. */
const HEAD_BYTES = 1024;

/** `text` with the mark put where its kind keeps it. */
export function markOutput(kind: OutputKind, text: string): string {
  if (kind !== 'html') return `${HASH_MARK}\n${text}`;
  const doctype = /^<!doctype html>\n?/i.exec(text);
  // After the doctype: a comment before it is legal, but some old browsers then render in quirks mode.
  return doctype ? `${doctype[0].endsWith('\n') ? doctype[0] : `${doctype[0]}\n`}${HTML_MARK}\n${text.slice(doctype[0].length)}` : `${HTML_MARK}\n${text}`;
}

/** True when the bytes begin like a marked file. */
export function hasOutputMark(head: string): boolean {
  return head.split('\n', 2).some((line) => STARTS.some((s) => line.startsWith(s)));
}

/** True when the regular file at `path` carries the mark; false for anything unreadable or not a regular file. */
export function carriesOutputMark(path: string): boolean {
  return (
    withRegularFile(path, (fd) => {
      const head = Buffer.alloc(HEAD_BYTES);
      const n = readSync(fd, head, 0, HEAD_BYTES, 0);
      return hasOutputMark(head.subarray(0, n).toString('utf8'));
    }) ?? false
  );
}
