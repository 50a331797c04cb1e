/**
 * Text from a policy or a file system, made safe to show. A terminal obeys control
 * characters: a name holding `ESC [2J` clears the screen, one holding U+202E shows its
 * text reversed (the kubectl CVE-2021-25743 and "Trojan Source" classes). Names with
 * such characters are refused when a policy is loaded; everything printed for people
 * still goes through `escapeDisplay`, so nothing read from input reaches a terminal raw.
 */

/**
 * The characters that must never reach a terminal raw: C0 controls and DEL, C1 controls,
 * the bidirectional marks, embeddings, overrides and isolates, and the Unicode line and
 * paragraph separators (which break a line where none is seen in an editor).
 */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same set, without tab and line feed: what free text (a description) may hold. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** UNSAFE without the global flag: `exec` keeps no state between calls, so one object serves every check (loading checks every string). */
const UNSAFE_ONE = new RegExp(UNSAFE.source);

/** The first character of `text` that a name may not hold, if any (`freeText`: tabs and line feeds allowed). */
export function unsafeCharacter(text: string, freeText = false): { index: number; char: string } | undefined {
  const re = freeText ? UNSAFE_IN_TEXT : UNSAFE_ONE;
  const m = re.exec(text);
  return m ? { index: m.index, char: m[0] } : undefined;
}

/** `U+001B`: how a character is named in a message. */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Each unsafe character as a visible escape: `\e`, `\n`, `\t`, `\0`, else `\u{202E}`. */
export function escapeDisplay(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

function escapeOne(char: string): string {
  switch (char) {
    case '\u001b':
      return '\\e';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\u0000':
      return '\\0';
    default:
      return `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;
  }
}

/**
 * Text for a terminal that may carry our own colours: every unsafe character is escaped
 * except the line feeds and tabs that lay the text out and the SGR colour sequences
 * (`ESC [ … m`) that picocolors writes. The last line of defence: renderers escape
 * values themselves, so an input's own colour sequence arrives here already escaped.
 */
export function escapeTerminal(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this matches
  return text.replace(/\u001b\[[0-9;]*m|[\n\t]|[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (m) =>
    m.length > 1 || m === '\n' || m === '\t' ? m : escapeOne(m),
  );
}

/**
 * JSON text safe for a terminal: JSON.stringify escapes C0 controls, this escapes the
 * rest of the unsafe set (DEL, C1, bidi, separators) as `\uXXXX`, which any JSON parser
 * reads back as the same character.
 */
export function escapeJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
