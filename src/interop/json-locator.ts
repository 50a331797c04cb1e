/**
 * Positions in a JSON text, found when asked instead of built for every value. The
 * positioned YAML parse costs ~110 bytes of memory per byte and ~1 s per 4 MB; an
 * import of a 20,000-pod kubectl List needs a position for each node and job it writes
 * (the comment saying where it came from) and for each finding, not for every value.
 *
 * A path is followed from the top by reading just the containers on the way: the
 * children of a container (where each key and value starts and ends) are read in one
 * pass over it and kept when it is large (the List's `items`: read once, then every
 * item is found by its index), so a thousand lookups into one List read it once, and a
 * lookup into one item reads that item. Lines are counted once, on the first lookup.
 * The text must be valid JSON (`JSON.parse` took it).
 */
import type { PathSeg } from '../policy/parse/source-doc.js';
import { finishChildren, KEEP_CHARS, KEEP_CHILDREN, stringEnd, type Children } from './json-scan.js';

const [TAB, LF, CR, SPACE, DQUOTE, COMMA, COLON, LBRACKET, RBRACKET, LBRACE, RBRACE] = [9, 10, 13, 32, 34, 44, 58, 91, 93, 123, 125] as const;

const isSpace = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB;

/** Where the values of one JSON text are. */
export class JsonLocator {
  #lineStarts?: number[];
  /** The whole text's value, found on the first lookup. */
  #top?: [number, number];
  readonly #kept: Map<number, Children>;
  /** `kept`: children the scan already recorded (json-scan.ts), by where their container starts. */
  constructor(
    readonly text: string,
    kept: Map<number, Children> = new Map(),
  ) {
    this.#kept = kept;
  }

  /**
   * The start and end offsets of the value at `path` (of its key when `wantKey`), or of
   * the deepest value on the way when the path runs out (a missing field is reported at
   * the map that should hold it), as the YAML path's nodeAt does.
   */
  rangeAt(path: readonly PathSeg[], wantKey = false): [number, number] {
    const { start, end } = this.#find(path, wantKey);
    return [start, end];
  }

  /** The text of the value at `path` as the input spells it (`1e999`, `"8"`), or undefined when there is no such value. */
  sourceText(path: readonly PathSeg[]): string | undefined {
    const { start, end, found } = this.#find(path, false);
    return found ? this.text.slice(start, end) : undefined;
  }

  #find(path: readonly PathSeg[], wantKey: boolean): { start: number; end: number; found: boolean } {
    if (!this.#top) {
      // The text is one valid JSON value: it ends at its last character that is not a space.
      let end = this.text.length;
      while (end > 0 && isSpace(this.text.charCodeAt(end - 1))) end--;
      this.#top = [this.#skipSpace(0), end];
    }
    let [s, e] = this.#top;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const c = this.text.charCodeAt(s);
      if (c !== LBRACE && !(c === LBRACKET && typeof seg === 'number')) return { start: s, end: e, found: false };
      const kids = this.#children(s, e);
      let k: number;
      if (c === LBRACE) k = kids.byKey ? (kids.byKey.get(String(seg)) ?? -1) : kids.keys!.indexOf(String(seg));
      else k = (seg as number) < kids.valueStart.length ? (seg as number) : -1;
      if (k < 0) return { start: s, end: e, found: false };
      if (wantKey && i === path.length - 1 && c === LBRACE) return { start: kids.keyStart[k]!, end: kids.keyEnd[k]!, found: true };
      s = kids.valueStart[k]!;
      e = kids.valueEnd[k]!;
    }
    return { start: s, end: e, found: true };
  }

  /** Line and column (1-based) of an offset. */
  linePos(offset: number): { line: number; col: number } {
    const starts = (this.#lineStarts ??= lineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  }

  #skipSpace(i: number): number {
    while (isSpace(this.text.charCodeAt(i))) i++;
    return i;
  }

  /**
   * The children of the container from `s` to `e`, read in one pass over it that skips
   * strings whole and counts brackets, marking where each key and value at its own level
   * starts and ends (kept when large, so a List is read once however many items are asked).
   */
  #children(s: number, e: number): Children {
    const kept = this.#kept.get(s);
    if (kept) return kept;
    const t = this.text;
    const isMap = t.charCodeAt(s) === LBRACE;
    const kids: Children = { keyStart: [], keyEnd: [], valueStart: [], valueEnd: [] };
    let depth = 0;
    let expectKey = isMap;
    let start = -1;
    let last = -1;
    const close = (): void => {
      if (start < 0) return;
      kids.valueStart.push(start);
      kids.valueEnd.push(last);
      start = -1;
    };
    for (let j = s + 1; j < e - 1; j++) {
      const c = t.charCodeAt(j);
      if (c === DQUOTE) {
        const end = stringEnd(t, j);
        if (depth === 0) {
          if (expectKey) {
            kids.keyStart.push(j);
            kids.keyEnd.push(end);
            expectKey = false;
          } else {
            if (start < 0) start = j;
            last = end;
          }
        }
        j = end - 1;
        continue;
      }
      if (c === SPACE || c === LF || c === CR || c === TAB) continue;
      if (c === LBRACE || c === LBRACKET) {
        if (depth++ === 0 && start < 0) start = j;
        continue;
      }
      if (c === RBRACE || c === RBRACKET) {
        if (--depth === 0) last = j + 1;
        continue;
      }
      if (depth > 0 || c === COLON) continue;
      if (c === COMMA) {
        close();
        expectKey = isMap;
        continue;
      }
      // A number or literal at this level.
      if (start < 0) start = j;
      last = j + 1;
    }
    close();
    finishChildren(t, kids, isMap);
    if (kids.valueStart.length >= KEEP_CHILDREN || e - s >= KEEP_CHARS) this.#kept.set(s, kids);
    return kids;
  }
}

/** The offset of every line's first character; a lone CR ends a line too, as in YAML (source-doc.ts normaliseLineBreaks). */
function lineStarts(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return starts;
  }
  const breaks = /\r\n|\r|\n/g;
  for (let m = breaks.exec(text); m; m = breaks.exec(text)) starts.push(m.index + m[0].length);
  return starts;
}
