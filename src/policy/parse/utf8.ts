/**
 * Policy bytes as UTF-8 text, or where they stop being UTF-8. Node's `readFileSync(…,
 * 'utf8')` turns every invalid byte into U+FFFD without a word, so a Latin-1 name would
 * load as a different name; this finds the first invalid byte so it can be a finding.
 */

/** The first byte that is not UTF-8: its byte offset, its value, and where it sits in the decoded text. */
export interface InvalidUtf8 {
  byteOffset: number;
  byte: number;
  /** Offset in the decoded text (UTF-16 code units) of the replacement character. */
  offset: number;
  line: number;
  column: number;
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes `bytes` (a byte-order mark is kept, as yaml expects it); `invalid` is set when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): { text: string; invalid?: InvalidUtf8 } {
  try {
    return { text: fatal.decode(bytes) };
  } catch {
    const at = firstInvalid(bytes);
    const before = lenient.decode(bytes.subarray(0, at));
    const lines = before.split(/\r\n|\r|\n/);
    const last = lines[lines.length - 1] ?? '';
    return {
      text: lenient.decode(bytes),
      invalid: { byteOffset: at, byte: bytes[at] ?? 0, offset: before.length, line: lines.length, column: last.length + 1 },
    };
  }
}

/** The offset of the first byte that does not begin or continue a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalid(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      // No overlong forms (E0 A0..) and no surrogates (ED ..9F).
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
