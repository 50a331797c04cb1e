/**
 * File-system failures as one line a person can act on (exit 2). Node's errors read
 * "EACCES: permission denied, scandir '/x'"; these say what Quotient was doing, on
 * which path, and what to do about it.
 */
import type { Stats } from 'node:fs';
import { QuotientError } from '../../errors.js';

/** What each errno means for a path Quotient tried to read. */
const MEANING: Record<string, [code: string, what: string, hint: string]> = {
  ENOENT: ['cli/no-such-file', 'does not exist (or was removed while it was being read)', 'check the path; if another program is rewriting the policy, run again when it is done'],
  EACCES: ['cli/permission-denied', 'cannot be read: permission denied', 'give the user running quotient read access (and search access to its folders)'],
  EPERM: ['cli/permission-denied', 'cannot be read: operation not permitted', 'give the user running quotient read access'],
  ELOOP: ['cli/link-loop', 'is a loop of symbolic links', 'remove the link that points back to itself'],
  ENOTDIR: ['cli/no-such-file', 'does not exist: a part of the path is not a folder', 'check the path'],
  ENAMETOOLONG: ['cli/no-such-file', 'is too long a path for this system', 'use a shorter path'],
  EISDIR: ['cli/not-a-file', 'is a folder where a file was expected', 'name the folder itself, or a file in it'],
  EMFILE: ['cli/too-many-open-files', 'cannot be opened: too many open files', 'raise the limit (ulimit -n) or name fewer files'],
  ENFILE: ['cli/too-many-open-files', 'cannot be opened: too many open files on this system', 'close other programs or raise the system limit'],
  EIO: ['cli/io-error', 'cannot be read: input/output error from the device', 'check the disk or the network file system'],
};

/** A QuotientError for a failed read of `path`; errors that are not file-system errors are returned as they are. */
export function fsFailure(e: unknown, path: string): unknown {
  if (e instanceof QuotientError) return e;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return e;
  const known = MEANING[code];
  if (known) return new QuotientError(known[0], `${path} ${known[1]}`, known[2]);
  return new QuotientError('cli/unreadable-file', `cannot read ${path}: ${(e as Error).message.split('\n')[0] ?? code}`, 'check the path and its permissions');
}

/** "a FIFO (named pipe)": what a non-regular file is, for a message. */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}
