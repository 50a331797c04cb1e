/**
 * Hostile text for the escaping properties (issue 18 item 4): names made of the
 * characters a terminal obeys or hides, and the check that an output holds none of them
 * raw but the line feeds (and, with colours on, the colour sequences) Quotient wrote.
 */
import fc from 'fast-check';

/** Every character a name may use to drive a terminal or hide itself, one of each class at least. */
export const HOSTILE_CHARS: readonly string[] = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), // C0, with NUL, CR, LF, ESC
  '\u007f', // DEL
  '\u0080',
  '\u0085', // NEL: a line break in some terminals
  '\u009b', // CSI: ESC [ in one byte
  '\u009f',
  '\u061c', // Arabic letter mark
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e', // right-to-left override
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u2028', // line separator
  '\u2029', // paragraph separator
  '\u200b', // zero-width space
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
];

/** Sequences a real attack would send whole: conceal, clear screen, set the title, a forged line. */
const SEQUENCES = ['\u001b[8m', '\u001b[2J', '\u001b]0;pwned\u0007', '\r\u001b[K', '\nFORGED LINE'];

/** The mark put after every line feed of a hostile name: raw, `\nZQ` in an output means the name broke a line. */
export const AFTER_LINE_FEED = 'ZQ';

/**
 * A hostile name: a few plain characters and at least one hostile character or
 * sequence, every line feed followed by AFTER_LINE_FEED. `plain` narrows the plain
 * characters (a file name takes no `/`).
 */
export function hostileName(plain: readonly string[] = ['a', 'b', 'x', '-', '.', '<', '&', ' ']): fc.Arbitrary<string> {
  const piece = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...plain) }, { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_CHARS) }, { weight: 1, arbitrary: fc.constantFrom(...SEQUENCES) });
  return fc
    .tuple(fc.constantFrom(...plain.filter((c) => c !== ' ')), fc.array(piece, { minLength: 1, maxLength: 8 }), fc.constantFrom(...HOSTILE_CHARS, ...SEQUENCES))
    .map(([first, rest, bad]) => `${first}${rest.join('')}${bad}z`.replace(/\n/g, `\n${AFTER_LINE_FEED}`));
}

/** The colour sequences picocolors writes for the colours the CLI uses (cli/output.ts `colour`), and no other. */
// eslint-disable-next-line no-control-regex -- matching our own colour sequences
const OUR_COLOURS = /\u001b\[(?:1|2|22|31|32|33|35|36|39)m/g;

/** The characters no output may hold raw: C0 but the line feed, DEL, C1, bidi, separators, invisibles. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * Why `out` is not clean, or undefined: a raw character of RAW (colour sequences of our
 * own removed first, when `colours`), or a line feed followed by AFTER_LINE_FEED.
 */
export function dirtOf(out: string, colours = false): string | undefined {
  const text = colours ? out.replace(OUR_COLOURS, '') : out;
  const m = RAW.exec(text);
  if (m) return `raw U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: …${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + 10))}`;
  const forged = text.indexOf(`\n${AFTER_LINE_FEED}`);
  if (forged >= 0) return `a forged line at ${forged}: …${JSON.stringify(text.slice(Math.max(0, forged - 30), forged + 10))}`;
  return undefined;
}
