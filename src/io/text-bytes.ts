/**
 * Lossless text for files Quotient rewrites. `readFileSync(path, 'utf8')` turns every
 * byte that is not valid UTF-8 into U+FFFD, so writing that text back would silently
 * change the user's bytes (a Latin-1 `é` in a comment becomes `EF BF BD`). Here each
 * such byte b becomes the lone surrogate U+DC00 + b instead (Python's
 * "surrogateescape"), which valid UTF-8 can never produce, and encoding turns it back
 * into b. Invariant: `encodeLossless(decodeLossless(bytes))` equals `bytes`, byte for
 * byte, for every input (test/unit/io/text-bytes.test.ts).
 */

const FATAL = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8, keeping every invalid byte as an escape (U+DC80..U+DCFF); a BOM stays U+FEFF. */
export function decodeLossless(bytes: Uint8Array): string {
  try {
    return FATAL.decode(bytes);
  } catch {
    // Not valid UTF-8: decode sequence by sequence.
  }
  let out = '';
  let i = 0;
  const n = bytes.length;
  const at = (k: number): number => (k < n ? (bytes[k] ?? 0x100) : 0x100);
  const cont = (b: number): boolean => b >= 0x80 && b <= 0xbf;
  while (i < n) {
    const b0 = at(i);
    let len = 0;
    if (b0 < 0x80) len = 1;
    else if (b0 >= 0xc2 && b0 <= 0xdf) len = cont(at(i + 1)) ? 2 : 0;
    else if (b0 >= 0xe0 && b0 <= 0xef) {
      const b1 = at(i + 1);
      // E0 needs A0..BF (no overlong forms), ED needs 80..9F (no surrogates).
      const ok1 = b0 === 0xe0 ? b1 >= 0xa0 && b1 <= 0xbf : b0 === 0xed ? b1 >= 0x80 && b1 <= 0x9f : cont(b1);
      len = ok1 && cont(at(i + 2)) ? 3 : 0;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      const b1 = at(i + 1);
      // F0 needs 90..BF (no overlong forms), F4 needs 80..8F (nothing above U+10FFFF).
      const ok1 = b0 === 0xf0 ? b1 >= 0x90 && b1 <= 0xbf : b0 === 0xf4 ? b1 >= 0x80 && b1 <= 0x8f : cont(b1);
      len = ok1 && cont(at(i + 2)) && cont(at(i + 3)) ? 4 : 0;
    }
    if (len === 0) {
      out += String.fromCharCode(0xdc00 + b0);
      i += 1;
    } else {
      out += Buffer.from(bytes.subarray(i, i + len)).toString('utf8');
      i += len;
    }
  }
  return out;
}

// A lone U+DC80..U+DCFF: an escaped byte. (A low surrogate after a high one is half of a real character.)
const ESCAPE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;
const HAS_ESCAPE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** Encodes text made by decodeLossless back to the exact bytes (escapes become their byte). */
export function encodeLossless(text: string): Buffer {
  if (!HAS_ESCAPE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(ESCAPE)) {
    const k = m.index;
    parts.push(Buffer.from(text.slice(last, k), 'utf8'), Buffer.from([m[0].charCodeAt(0) - 0xdc00]));
    last = k + 1;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** True when the bytes are valid UTF-8 (nothing needed escaping). */
export function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    FATAL.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
