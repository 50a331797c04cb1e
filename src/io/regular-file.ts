/**
 * Looking into a file that may have been swapped: opened without blocking (a FIFO put at
 * the name would hang a plain open) and checked to be a regular file on the open
 * descriptor, so a device, a folder or a link to one is never read.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';

/**
 * `use(fd, size)` on the regular file at `path`; undefined when it cannot be opened, is not
 * a regular file, or `use` fails (a file that cannot be read is no file to these callers).
 */
export function withRegularFile<T>(path: string, use: (fd: number, size: number) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const s = fstatSync(fd);
    return s.isFile() ? use(fd, s.size) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
