/**
 * Writing a new file into a folder the user named (`test --save DIR`), and nowhere else:
 * the name must be a single plain component (safe-file-name.ts makes one), and the
 * content goes to an exclusive temp file in the folder that is then renamed to the
 * name — a rename replaces a symlink planted at that name instead of writing through
 * it to wherever it points.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { QuotientError } from '../errors.js';
import { writeNewFileDurably } from './durable.js';
import { refuseReadOnly } from './replace-files.js';

/** Writes `bytes` to `dir/name` and returns that path; `name` must be one plain component. */
export function writeInFolder(dir: string, name: string, bytes: Uint8Array): string {
  if (name === '' || name === '.' || name === '..' || basename(name) !== name || name.includes('/') || name.includes('\\')) {
    throw new QuotientError('io/unsafe-file-name', `refusing to write "${name}": not a plain file name inside ${dir}`, 'make file names with safeFileName (src/io/safe-file-name.ts)');
  }
  const path = join(dir, name);
  const temp = join(dir, `.${name}.quotient-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  writeNewFileDurably(temp, bytes);
  try {
    renameSync(temp, path);
  } catch (e) {
    unlinkSync(temp);
    throw e;
  }
  return path;
}

/**
 * Writes a file the user asked for by path (`simulate --html FILE`, `export --report
 * FILE`): a regular file whole or not at all, through writeInFolder's temp-and-rename, so a reader
 * never sees half a file; a read-only file is refused as `scale --apply` refuses one (the
 * rename would replace it anyway); any failure is one clear error, never a stack trace.
 * Callers write it before printing their document, so a failed write prints nothing.
 */
export function writeOutputFile(path: string, text: string): void {
  try {
    // A device or pipe (/dev/null, /dev/stdout, a FIFO) is written to, never replaced.
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isFile()) refuseReadOnly(path, path, existing.mode, 'then run the command again');
    if (existing && !existing.isFile()) writeFileSync(path, text);
    else writeInFolder(dirname(path), basename(path), Buffer.from(text, 'utf8'));
  } catch (e) {
    if (e instanceof QuotientError) throw e;
    throw new QuotientError('cli/unwritable-file', `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the folder exists and is writable');
  }
}
