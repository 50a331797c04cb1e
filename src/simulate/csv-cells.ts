/**
 * Where each cell of one CSV record starts, so a finding about one field points at its
 * cell (docs/simulate.md "Jobs file"). csv-parse gives a record's text (`raw`) and the
 * line it ends on, not cell offsets; this re-reads that text with the same rules the
 * jobs reader gives csv-parse: `,` delimits, `"` quotes (`""` inside quotes is one quote,
 * so toggling on every quote stays right), `#` outside quotes starts a comment, and lines
 * that are blank or comments before the record are skipped (csv-parse puts them in `raw`).
 */

/** One cell's start: `line` counts line breaks from the record's first line (quoted cells may span lines); `column` is 1-based. */
export interface CellStart {
  line: number;
  column: number;
}

/** The cells of the first record in `raw`, and how many lines come before it (blank or comment lines). */
export interface RecordCells {
  /** Blank or comment lines skipped before the record starts. */
  skipped: number;
  /** Line breaks inside the record (in quoted cells): the record starts `span` lines before the one it ends on. */
  span: number;
  cells: CellStart[];
}

/** Reads the cell starts of the first record of `raw` (text from a record's start, or a file's). */
export function csvCells(raw: string): RecordCells {
  let i = 0;
  let skipped = 0;
  // Skip whole lines that csv-parse skips: blank (with trim, whitespace only) or a comment.
  for (;;) {
    const end = lineEnd(raw, i);
    const body = raw.slice(i, end).trim();
    if (end >= raw.length || (body !== '' && !body.startsWith('#'))) break;
    i = end + (raw.startsWith('\r\n', end) ? 2 : 1);
    skipped++;
  }
  const cells: CellStart[] = [];
  let line = 0;
  let lineStart = i;
  let quoted = false;
  cells.push({ line, column: i - lineStart + 1 });
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') quoted = !quoted;
    else if (quoted) {
      // A line break inside a quoted cell: the next characters are on the next line.
      if (c === '\n' || (c === '\r' && raw[i + 1] !== '\n')) {
        line++;
        lineStart = i + 1;
      }
    } else if (c === ',') cells.push({ line, column: i + 1 - lineStart + 1 });
    else if (c === '\n' || c === '\r' || c === '#') break;
  }
  return { skipped, span: line, cells };
}

/**
 * Points each finding about one field of a CSV record at that field's cell: the line and
 * column where the cell starts (a quoted cell `"a,b"` is one cell). `raw` is the record's
 * text, `endLine` the line it ends on (csv-parse's count), `columns` the header; a finding
 * about no cell of the record (a column the header lacks, the whole row) stays where it is.
 */
export function atCells(bad: Array<{ path: string; line: number; column: number }>, raw: string, endLine: number, columns: readonly string[]): void {
  const record = csvCells(raw);
  const first = endLine - record.span;
  for (const f of bad) {
    const at = f.path === '' ? -1 : columns.indexOf(f.path);
    const cell = at < 0 ? undefined : record.cells[at];
    if (cell) {
      f.line = first + cell.line;
      f.column = cell.column;
    }
  }
}

function lineEnd(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const r = text.indexOf('\r', from);
  const end = n < 0 ? r : r < 0 ? n : Math.min(n, r);
  return end < 0 ? text.length : end;
}
