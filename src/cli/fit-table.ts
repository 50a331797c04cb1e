/**
 * Tables for people that fit the terminal: columns are as wide as their widest cell
 * unless the table would be wider than the terminal; then the widest columns are
 * narrowed, and their cells wrap onto more lines. Wrapping, never cutting: every
 * character of every cell is still printed (and `--json` has every field anyway).
 * Cells wrap at spaces; only a word longer than its column is broken inside, so a name
 * a reader (or a script's grep) looks for stays on one line wherever it fits.
 */
import Table from 'cli-table3';
import { Display, escapeDisplay, laidOutDisplay, type Shown } from '../model/display-text.js';

/** The narrowest a column is made: a wrapped column narrower than this is unreadable. */
const MIN_COLUMN = 8;

/** One space of padding each side of a cell's text. */
const PADDING = 2;

/** The width of a table written to a file, where no terminal gives one: what most people read comfortably. */
export const FILE_WIDTH = 120;

/**
 * The width to fit: the terminal's columns when `stream` (stdout unless the table goes to
 * stderr) is one, else `COLUMNS` when set (a script or test may ask for a width), else 120.
 */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number {
  if (stream.isTTY && stream.columns > 0) return stream.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env >= 40 ? env : FILE_WIDTH;
}

/** Characters as a terminal counts them (code points, not UTF-16 units). */
const textWidth = (s: string): number => [...s].length;

/**
 * `text` wrapped to lines of at most `max` characters: at spaces where it can, and a word
 * longer than `max` broken into pieces of `max`. Its own line breaks are kept; the spaces
 * a break replaces are the only characters dropped.
 */
export function wrapWords(text: string, max: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const joined = line === '' ? word : `${line} ${word}`;
      if (textWidth(joined) <= max) {
        line = joined;
        continue;
      }
      if (line !== '') out.push(line);
      // A word wider than the column is broken, its last piece starting the next line:
      // after a `/`, `-` or `:` in its second half when one is there (a path
      // breaks between its folders), else at the column's edge.
      const chars = [...word];
      while (chars.length > max) out.push(chars.splice(0, breakPoint(chars, max)).join(''));
      line = chars.join('');
    }
    out.push(line);
  }
  return out;
}

/** Characters a long word (a path, a rule name) is best broken after. */
const SOFT_BREAK = new Set(['/', '-', ':']);

/** How many of `chars` (more than `max`) go on this line: up to the last soft break in the second half of `max`, else `max`. */
function breakPoint(chars: string[], max: number): number {
  for (let i = max; i > max / 2; i--) if (SOFT_BREAK.has(chars[i - 1]!)) return i;
  return max;
}

/** The widest line of a cell, and the widest single word in it (what it can wrap down to without breaking a word). */
function measure(cell: string): { line: number; word: number } {
  const lines = cell.split('\n');
  return { line: Math.max(...lines.map(textWidth)), word: Math.max(...lines.flatMap((l) => l.split(' ')).map(textWidth)) };
}

/**
 * Column widths (padding included) that fit `room`, or undefined when none do. First the
 * widest columns are narrowed down to their longest word (wrapping at spaces only), then
 * columns of short words below MIN_COLUMN; when that is not enough, every column but the
 * first further, breaking words, down to MIN_COLUMN. The first column names the row (a victim, a quota, a question: what a
 * reader or a script's grep scans for), so its words are never broken: a table that
 * cannot fit without that is not drawn as a table (see `records`).
 */
function fitWidths(cells: string[][], columns: number, room: number): number[] | undefined {
  const sizes = Array.from({ length: columns }, (_, c) => cells.map((r) => measure(r[c] ?? '')));
  const widths = sizes.map((s) => Math.max(...s.map((m) => m.line)) + PADDING);
  const floorMin = MIN_COLUMN + PADDING;
  const words = sizes.map((s, c) => Math.min(widths[c]!, Math.max(...s.map((m) => m.word)) + PADDING));
  const wordFloors = words.map((w, c) => Math.min(widths[c]!, Math.max(floorMin, w)));
  const breakFloors = widths.map((w, c) => (c === 0 ? words[0]! : Math.min(w, floorMin)));
  let total = widths.reduce((s, w) => s + w, 0);
  // Passes, each only when the one before could not fit: words whole and columns at
  // least MIN_COLUMN; words whole, a column of short words below MIN_COLUMN; words broken.
  for (const floors of [wordFloors, words, breakFloors]) {
    while (total > room) {
      // The widest column that may still be narrowed under this pass's floors.
      let widest = -1;
      for (let c = 0; c < columns; c++) if (widths[c]! > floors[c]! && (widest < 0 || widths[c]! > widths[widest]!)) widest = c;
      if (widest < 0) break;
      widths[widest]!--;
      total--;
    }
  }
  return total <= room ? widths : undefined;
}

/** What separates two `key: value` pairs on one line of a record. */
const PAIR_SEPARATOR = ' · ';

/**
 * The rows as records, for a table too wide for `width` even narrowed (9 columns in 80
 * characters): each row's first cell as a title, then its other cells as `key: value`
 * pairs packed onto as few lines as fit, a pair never split across lines unless it is
 * wider than a line by itself (then it wraps, its later lines indented under it). A
 * victim takes 2-3 lines at 80 columns instead of one per column. Every cell is still
 * printed whole.
 */
function records(head: string[], rows: string[][], width: number, indent: string): string {
  const lead = `${indent}  `;
  const room = Math.max(MIN_COLUMN, width - lead.length);
  const lines: string[] = [];
  for (const row of rows) {
    for (const l of wrapWords(row[0] ?? '', Math.max(MIN_COLUMN, width - indent.length))) lines.push(`${indent}${l}`);
    let line = '';
    const flush = (): void => {
      if (line !== '') lines.push(`${lead}${line}`);
      line = '';
    };
    for (let c = 1; c < head.length; c++) {
      const pair = `${head[c]!}: ${row[c] ?? ''}`.trimEnd();
      const joined = line === '' ? pair : `${line}${PAIR_SEPARATOR}${pair}`;
      if (textWidth(joined) <= room && !pair.includes('\n')) {
        line = joined;
        continue;
      }
      flush();
      if (textWidth(pair) <= room && !pair.includes('\n')) {
        line = pair;
        continue;
      }
      // A pair wider than a line: wrapped on lines of its own, continued two further in.
      wrapWords(pair, room - 2).forEach((l, i) => lines.push(`${lead}${i === 0 ? '' : '  '}${l}`));
    }
    flush();
  }
  return lines.join('\n');
}

/** A cell's text: a `Display` as it is, a number as its digits, any other text escaped (its line feeds too). */
function cellText(cell: Shown): string {
  return (cell instanceof Display ? cell : escapeDisplay(String(cell))).text;
}

/**
 * A bordered table of `rows` under `head` that fits in `width` characters once indented
 * by `indent` (the indent is added here); when no narrowing fits, the rows as records.
 * Cells are escaped (`cellText`), so a line feed in a cell is one a renderer wrote.
 */
export function fitTable(head: readonly Shown[], rows: ReadonlyArray<readonly Shown[]>, width: number, indent: '' | '  ' = '  '): Display {
  const heads = head.map(cellText);
  const body = rows.map((r) => r.map(cellText));
  const cells = [heads, ...body];
  // Borders: one character before each column and one after the last.
  const room = width - indent.length - (heads.length + 1);
  const widths = fitWidths(cells, heads.length, room);
  if (!widths) return laidOutDisplay(records(heads, body, width, indent));
  const wrap = (r: string[]): string[] => r.map((cell, c) => wrapWords(cell, widths[c]! - PADDING).join('\n'));
  // Cells arrive wrapped; cli-table3's own wrapping stays on (breaking, never cutting) as
  // a safety net should it count a character wider than we do (an East Asian wide one).
  const t = new Table({ head: wrap(heads), style: { head: [], border: [] }, colWidths: widths, wordWrap: true, wrapOnWordBoundary: false });
  for (const r of body) t.push(wrap(r));
  return laidOutDisplay(t.toString().replace(/^/gm, indent));
}
