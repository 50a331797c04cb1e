/** Reading one foreign input file, or stdin for `-`. */
import { readFileSync } from 'node:fs';
import { QuotientError } from '../errors.js';
import { noteReadFile } from '../io/input-registry.js';
import type { InputFile } from '../policy/parse/source-doc.js';

/** The file's text (`-` reads stdin); an unreadable path is a QuotientError (exit 2). */
export function readInput(path: string): InputFile {
  noteReadFile(path === '-' ? '/dev/stdin' : path);
  try {
    return path === '-' ? { path: '<stdin>', text: readFileSync(0, 'utf8') } : { path, text: readFileSync(path, 'utf8') };
  } catch (e) {
    throw new QuotientError('cli/unreadable-file', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path and its permissions');
  }
}
