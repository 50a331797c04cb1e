/**
 * File names made from names users wrote (a Promise's name for `test --save`, and any
 * file named after a policy object): one helper, so no name can escape the folder it is
 * written to or collide with another.
 *
 *   - Only the portable characters `A-Z a-z 0-9 _ -` and inner `.` are kept; every other
 *     character (`/`, `\`, `:`, spaces, controls, non-ASCII) and `%` itself become
 *     `%XX` per UTF-8 byte, so the mapping is one-to-one and `../../x` is
 *     `..%2F..%2Fx`, a plain name in the folder.
 *   - A leading or trailing `.` is encoded too: no hidden file, no `.` or `..`, nothing
 *     Windows strips.
 *   - Windows' reserved device names (CON, NUL, COM1, ...) get a `_` prefix.
 *   - A name longer than 200 bytes is cut and ends with a hash of the whole name, so it
 *     fits every file system's 255-byte limit and stays unique.
 *
 * `uniqueFileNames` also keeps names apart that differ only in case (macOS and Windows
 * file systems would merge them).
 */
import { createHash } from 'node:crypto';

const KEEP = /[A-Za-z0-9_-]/;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const MAX = 200;

function encodeChar(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** A safe file name for `name`, with `ext` (e.g. `.yaml`) appended. */
export function safeFileName(name: string, ext = ''): string {
  const chars = [...name];
  let out = chars.map((ch, i) => (KEEP.test(ch) || (ch === '.' && i > 0 && i < chars.length - 1) ? ch : encodeChar(ch))).join('');
  if (out === '') out = '_';
  if (RESERVED.test(out)) out = `_${out}`;
  if (out.length > MAX) {
    // Cut on a character boundary (never inside a %XX), then a hash of the full name keeps it unique.
    let cut = MAX - 17;
    while (out[cut - 1] === '%' || out[cut - 2] === '%') cut--;
    out = `${out.slice(0, cut)}-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
  }
  return out + ext;
}

/**
 * Safe file names for several names written to one folder: names that would still
 * collide (the same name twice, or names differing only in case) get `-2`, `-3`, ...
 * in the order given.
 */
export function uniqueFileNames(names: string[], ext = ''): string[] {
  const taken = new Set<string>();
  return names.map((n) => {
    const base = safeFileName(n);
    let candidate = base + ext;
    for (let k = 2; taken.has(candidate.toLowerCase()); k++) candidate = `${base}-${k}${ext}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}
