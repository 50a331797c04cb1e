/**
 * `quotient scale --apply`, the write: under the policy folder's lock, check that every
 * file still holds what the answer was computed from, plan the edits (write-min.ts),
 * prove the new texts load to exactly the intended policy (prove-write.ts), then
 * replace the changed files all or nothing (io/replace-files.ts). Any failure before the
 * commit point writes nothing and is a QuotientError (exit 2) naming the file.
 */
import { readFileSync } from 'node:fs';
import { QuotientError } from '../../errors.js';
import { digestOf } from '../../io/digest.js';
import { lockBarrier } from '../../io/durable.js';
import { acquireLock } from '../../io/file-lock.js';
import { readForReplace, replaceFiles } from '../../io/replace-files.js';
import { policyFolder } from '../../io/settle-folder.js';
import { decodeLossless, encodeLossless } from '../../io/text-bytes.js';
import { proveScaleWrite } from './prove-write.js';
import { decodePolicyBytes } from '../parse/read-files.js';
import type { InputFile } from '../parse/source-doc.js';
import { planScaleWrite, type ScaleWrite } from './write-min.js';

/** The command named in the lock and the journal. */
const COMMAND = 'quotient scale --apply';

/**
 * Writes `w` into the files of one policy (as loaded: `files` carry the digest of the
 * bytes they were read from) and returns the paths changed. `now` is the time the
 * policy was loaded at (its snapshot's default `at`).
 */
export function applyScaling(files: InputFile[], w: ScaleWrite, now = Date.now()): string[] {
  const dir = policyFolder(files.map((f) => f.path));
  lockBarrier();
  const lock = acquireLock(dir, COMMAND);
  try {
    // Check before anything: the files still hold the bytes the answer came from.
    const current = files.map((f) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(f.path);
      } catch (e) {
        throw new QuotientError('io/unreadable', `cannot read ${f.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; nothing was written`, 'check the path and its permissions');
      }
      const same = f.digest !== undefined ? digestOf(bytes) === f.digest : decodePolicyBytes(bytes) === f.text;
      if (!same) throw new QuotientError('io/changed-on-disk', `${f.path} was changed by someone else since quotient read it; nothing was written`, 'run the command again on the saved files');
      return { input: f, bytes };
    });
    // Edits are planned on lossless text, so bytes that are not UTF-8 come back as they were.
    const planned = planScaleWrite(
      current.map((c) => ({ path: c.input.path, text: decodeLossless(c.bytes) })),
      w,
    );
    const changes = current.flatMap((c) => {
      const text = planned.get(c.input.path);
      // A file whose values are already the new ones is not rewritten.
      if (text === undefined || text === decodeLossless(c.bytes)) return [];
      const file = readForReplace(c.input.path);
      if (file.digest !== digestOf(c.bytes))
        throw new QuotientError('io/changed-on-disk', `${c.input.path} was changed by someone else since quotient read it; nothing was written`, 'run the command again on the saved files');
      return [{ file, bytes: encodeLossless(text) }];
    });
    const after = current.map((c) => {
      const change = changes.find((x) => x.file.shown === c.input.path);
      return change ? { ...c.input, text: decodePolicyBytes(change.bytes) } : c.input;
    });
    proveScaleWrite(
      current.map((c) => ({ ...c.input, text: decodePolicyBytes(c.bytes) })),
      after,
      w,
      now,
    );
    replaceFiles(dir, changes, COMMAND);
    return changes.map((c) => c.file.shown);
  } finally {
    lock.release();
  }
}
