/**
 * Tables for people that fit the terminal: columns are as wide as their widest cell
 * unless the table would be wider than the terminal; then the widest columns are
 * narrowed, and their cells wrap onto more lines. Wrapping, never cutting: every
 * character of every cell is still printed (and `--json` has every field anyway).
 */
import Table from 'cli-table3';

/** The narrowest a column is made: a wrapped column narrower than this is unreadable. */
const MIN_COLUMN = 8;

/**
 * The width to fit: the terminal's columns when stdout is one, else `COLUMNS` when set
 * (a script or test may ask for a width), else 120, a width most people read comfortably.
 */
export function terminalWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env >= 40 ? env : 120;
}

/**
 * A bordered table of `rows` under `head` that fits in `width` characters once indented
 * by `indent` (the indent is added here).
 */
export function fitTable(head: string[], rows: Array<Array<string | number>>, width: number, indent = '  '): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  // Each column's natural width: its longest line, plus one space of padding each side.
  const widths = head.map((_, c) => Math.max(...cells.map((r) => Math.max(...(r[c] ?? '').split('\n').map((l) => l.length)))) + 2);
  // Borders: one character before each column and one after the last.
  const room = width - indent.length - (head.length + 1);
  let total = widths.reduce((s, w) => s + w, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_COLUMN + 2) break; // as narrow as columns go; the terminal wraps the rest
    widths[widest]!--;
    total--;
  }
  const t = new Table({ head, style: { head: [], border: [] }, colWidths: widths, wordWrap: true, wrapOnWordBoundary: false });
  for (const r of rows) t.push(r);
  return t.toString().replace(/^/gm, indent);
}
