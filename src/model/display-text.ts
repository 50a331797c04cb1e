/**
 * Text from a policy or a file system, made safe to show. A terminal obeys control
 * characters: a name holding `ESC [2J` clears the screen, one holding U+202E shows its
 * text reversed (the kubectl CVE-2021-25743 and "Trojan Source" classes), one holding a
 * line feed forges an output line. Names with such characters are refused when a policy
 * is loaded, but traces, file names, flags and imports bring text too.
 *
 * So nothing is printed for people but a `Display`: text in which every character a
 * terminal obeys was either escaped (`escapeDisplay`) or written by Quotient itself (the
 * literal parts of a `display` template, line feeds that join lines, colour sequences
 * that the checked painters add). The type is branded: a plain string is not a
 * `Display`, so a renderer that interpolates input raw does not compile, and the sinks
 * (cli/output.ts `say`, `log`) take nothing else. This file is the one home of the
 * escaping; test/unit/cli/display-sites.test.ts keeps it so.
 */

/** Makes a `Display`: module-private, so only the functions of this file can. */
let made: (text: string) => Display;

/**
 * Text safe to print on a terminal. A class, not a plain string, so that the brand holds
 * at run time too: a `display` template tells a `Display` it may keep (line feeds and
 * colours included) from a string it must escape, and a string cast to `Display` is no
 * `Display`. Only escapeDisplay, `display` and the checked helpers below make one.
 */
export class Display {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }
  static {
    made = (text) => new Display(text);
  }
  /** The text, to write to a terminal or a file. */
  get text(): string {
    return this.#text;
  }
  /** The text: a `Display` in a plain template is plain text again (which no sink takes). */
  toString(): string {
    return this.#text;
  }
}

/** What a `display` template may interpolate: text (escaped) or something already shown. */
export type Shown = Display | string | number | boolean | bigint;

/**
 * The characters that must never reach a terminal raw, as a character class: C0
 * controls and DEL, C1 controls, the bidirectional marks, embeddings, overrides and
 * isolates, the Unicode line and paragraph separators (which break a line where none is
 * seen in an editor), and the invisible ones (zero-width space, non-joiner and joiner,
 * word joiner and invisible operators, the byte-order mark), with which two names that
 * differ print alike. The one definition: every set below is made from it.
 */
const UNSAFE_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';

const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, 'g');

/**
 * What free text (a description) may not hold: the same set but for tab and line feed,
 * and the zero-width non-joiner and joiner, which shape words of some scripts and emoji.
 */
const UNSAFE_IN_TEXT = new RegExp(`(?![\\t\\n\\u200c\\u200d])[${UNSAFE_CLASS}]`);

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

/** Each unsafe character as a visible escape: `\e`, `\n`, `\t`, `\0`, else `\u{202E}`. The result holds no unsafe character, so escaping twice changes nothing. */
export function escapeDisplay(text: string): Display {
  return made(escapeText(text));
}

/** What escapeDisplay does, on the text. */
function escapeText(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * A template whose interpolations are escaped: `display\`  ${job} (${quota})\``. The
 * literal parts are Quotient's own (their line feeds lay the text out); a `Display`
 * interpolated is kept as it is, a number as its digits, any other text escaped.
 */
export function display(literals: TemplateStringsArray, ...values: readonly Shown[]): Display {
  let out = literals[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out += (v instanceof Display ? v.text : escapeText(String(v))) + (literals[i + 1] ?? '');
  }
  return made(out);
}

/** `parts` joined by `separator` (a line feed by default): what `lines.join` is for `Display`. */
export function joinDisplay(parts: readonly Display[], separator?: Display): Display {
  return made(parts.map((p) => p.text).join(separator?.text ?? '\n'));
}

/** Every line of `text` indented by `spaces` spaces (a block shown inside another). */
export function indentDisplay(text: Display, spaces: number): Display {
  return made(text.text.replace(/^/gm, ' '.repeat(spaces)));
}

/**
 * Text of several lines that Quotient made itself (a YAML document it wrote, the help
 * text): its line feeds and tabs are kept as the layout, every other unsafe character is
 * escaped. Never for a value read from input, whose line feed would forge a line.
 */
export function escapeKeepingLines(text: string): Display {
  return made(keepingLines(text));
}

function keepingLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.split('\t').map(escapeText).join('\t'))
    .join('\n');
}

/**
 * Text that Quotient's own commands echo pieces of input in (Commander's error and
 * help messages quote the arguments they refuse): every occurrence of an `inputs` entry
 * that holds an unsafe character is escaped whole, line feed included, then the rest as
 * `escapeKeepingLines`. The longest inputs go first, so a piece is never escaped half.
 */
export function escapeEchoing(text: string, inputs: readonly string[]): Display {
  const risky = [...new Set(inputs.filter((i) => unsafeCharacter(i) !== undefined))].sort((a, b) => b.length - a.length);
  if (risky.length === 0) return made(keepingLines(text));
  const pieces: string[] = [];
  let rest = text;
  for (;;) {
    let at = -1;
    let found = '';
    for (const r of risky) {
      const i = rest.indexOf(r);
      if (i >= 0 && (at < 0 || i < at)) [at, found] = [i, r];
    }
    if (at < 0) break;
    pieces.push(keepingLines(rest.slice(0, at)), escapeText(found));
    rest = rest.slice(at + found.length);
  }
  pieces.push(keepingLines(rest));
  return made(pieces.join(''));
}

/** An SGR sequence (`ESC [ … m`): a colour or a weight, the only escape sequence Quotient writes. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * `painted`, the result of a colour function (picocolors) on `text`, as a `Display`,
 * after checking that it only added colour sequences: without them it is `text`
 * without them. Anything else is a bug in the painter, thrown.
 */
export function paintedDisplay(text: Display, painted: string): Display {
  if (painted !== text.text && painted.replace(SGR, '') !== text.text.replace(SGR, '')) throw new Error('a colour function changed the text it painted');
  return made(painted);
}

/**
 * Text laid out from `Display` pieces by code that adds only spaces, borders, line
 * feeds and colour sequences (a table drawn by cli-table3), as a `Display`, after
 * checking that it holds no other unsafe character. Only cli/fit-table.ts lays text out
 * (display-sites.test.ts checks): its cells are `Display`, so every line feed and
 * colour in them is Quotient's own.
 */
export function laidOutDisplay(text: string): Display {
  const stray = unsafeCharacter(text.replace(SGR, '').replace(/\n/g, ''));
  if (stray) throw new Error(`laid-out text holds ${codePoint(stray.char)} at ${stray.index}`);
  return made(text);
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

/** An SGR sequence, or one unsafe character: what `escapeTerminal` looks at. */
const TERMINAL = new RegExp(`${SGR.source}|[${UNSAFE_CLASS}]`, 'g');

/**
 * Text for a terminal that may carry our own colours: every unsafe character is escaped
 * except the line feeds and tabs that lay the text out and the SGR colour sequences
 * (`ESC [ … m`) that picocolors writes. The sinks' last line of defence, a no-op on a
 * `Display` (whose input was escaped before it was laid out or coloured).
 */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL, (m) => (m.length > 1 || m === '\n' || m === '\t' ? m : escapeOne(m)));
}

/** The unsafe characters a machine document may not hold raw: all but its layout's line feeds and tabs. */
const IN_DOCUMENT = new RegExp(`(?![\\t\\n])[${UNSAFE_CLASS}]`, 'g');

/**
 * A JSON or YAML document Quotient wrote, safe for a terminal: each unsafe character
 * but the line feeds and tabs of its layout as `\uXXXX`. JSON.stringify has escaped the
 * C0 controls of its strings already, so in JSON this escapes the rest (DEL, C1, bidi,
 * separators, invisibles), which any JSON parser reads back as the same character; in
 * a YAML double-quoted string `\uXXXX` is the same escape. (In a YAML comment or plain
 * scalar it is text: the writers quote such strings, and the importers rewrite or
 * refuse such names before.)
 */
export function escapeDocument(json: string): string {
  return json.replace(IN_DOCUMENT, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
