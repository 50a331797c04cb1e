/**
 * The common subset of YAML, read directly: the fastest way in for the files policies
 * are (block mappings and lists, one-line flow `{ … }` and `[ … ]` collections, plain
 * and quoted one-line scalars, comments, `---` between documents). A 10,000-node Cluster
 * is 38,633 lines of `- { name: …, placement: [{ node: …, gpus: [0, 1] }] }`; js-yaml
 * spends ~1 s on it building and replaying events, this reads it in a fraction of that.
 *
 * It reads exactly what js-yaml's `loadAll` (CORE_SCHEMA) reads, or declines, and the
 * caller takes js-yaml (policy/parse/fast-parse.ts), then the positioned parse for findings.
 * Plain scalars are resolved by js-yaml's own CORE_SCHEMA resolvers, so `007`, `0x1F`,
 * `.inf`, `~` or `True` become what js-yaml makes of them. It declines, rather than
 * judge, anything outside the subset: block scalars (`|`, `>`), scalars or flow
 * collections over several lines, escapes in double quotes, anchors, aliases, tags,
 * complex keys (`?`), directives, `...`, keys that are not strings (`1:`, `true:`),
 * duplicate keys, keys an object inherits (`__proto__`, `constructor`), empty
 * documents, characters YAML does not allow or reads as line breaks, a byte-order mark,
 * and nesting or entries past the limits. test/unit/policy/subset-yaml.test.ts checks
 * the agreement with both parsers on generated text, odd spellings included.
 *
 * One room, read whole (past the ~500 lines a file is otherwise split at): it is one
 * recursive-descent reader over one cursor (the current line's start, end and indent,
 * advanced by `advance`), and every method — block, flow, key, scalar — reads and moves
 * that cursor and shares the interned strings and the scalar cache. Split by construct,
 * the cursor would become fields other files write, and the one rule that makes it safe
 * (decline anything not read exactly as js-yaml reads it) would be spread over them. Its
 * neighbours already stand alone: the fallback and the counting in fast-parse.ts, number
 * spellings in number-text.ts.
 */
import { CORE_SCHEMA } from 'js-yaml';
import { numberLeftAsText } from './number-text.js';

/** What the subset reader made of a text: its documents and entries, or undefined when it declined. */
export interface SubsetRead {
  values: unknown[];
  /** Collection entries (mapping pairs and list items), as countEntries in fast-parse.ts counts them. */
  entries: number;
  /**
   * Every key and string is printable ASCII: no character a name may not hold
   * (model/display-text.ts) can be in any of them, so the per-string check may be skipped.
   */
  asciiOnly: boolean;
}

/** Thrown inside the reader when the text leaves the subset; caught at the top (made once: declining costs no stack trace). */
const DECLINE = new Error('the text leaves the YAML subset');

const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const COMMA = 44;
const DQUOTE = 34;
const SQUOTE = 39;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;
const CR = 13;
const DOT = 46;
const BACKSLASH = 92;

/**
 * Characters that may not start a plain scalar or a plain key (YAML's indicators); `-`,
 * `?` and `:` may when a character that could continue the scalar follows (`-5`, `?x`).
 */
const INDICATOR = new Uint8Array(128);
for (const c of '?:,[]{}#&*!|>\'"%@`') INDICATOR[c.charCodeAt(0)] = 1;

/** Flow indicators: they end a plain scalar inside `{ }` and `[ ]`. */
const FLOW_END = new Uint8Array(128);
for (const c of ',[]{}') FLOW_END[c.charCodeAt(0)] = 1;

/** Printable ASCII and line breaks only. */
const NOT_ASCII = /[^\n\r\x20-\x7e]/;

/**
 * Characters the subset leaves to the parsers: controls (js-yaml refuses them), the C1
 * range with NEL, the Unicode line and paragraph separators (line breaks to some
 * readers), byte-order marks and non-characters, and lone surrogates.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const NOT_SUBSET = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Reads `text` (line breaks normalised) if it stays in the subset and within the limits. */
export function readSubset(text: string, limits: { maxDepth: number; maxEntries: number }): SubsetRead | undefined {
  const asciiOnly = !NOT_ASCII.test(text);
  if (!asciiOnly && NOT_SUBSET.test(text)) return undefined;
  // A carriage return is part of a line break only before a line feed (normaliseLineBreaks).
  if (text.includes('\r') && /\r(?!\n)/.test(text)) return undefined;
  const reader = new SubsetReader(text, limits.maxDepth, limits.maxEntries);
  try {
    return { values: reader.stream(), entries: reader.entries, asciiOnly };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

/** Whether a plain scalar starting with character `c` can resolve to anything but text: null (`~ n N`), bool (`t T f F`), numbers (`+ - .` digits). */
function mayResolve(c: number): boolean {
  return c === 126 || c === 110 || c === 78 || c === 116 || c === 84 || c === 102 || c === 70 || c === 43 || c === DASH || c === DOT || (c >= 48 && c <= 57);
}

/** Slots of the cache of plain scalars (a power of two), and the longest scalar it holds. */
const SCALAR_SLOTS = 1 << 14;
const SCALAR_MAX = 32;

/** Slots of the table of strings read so far (a power of two). */
const INTERN_SLOTS = 1 << 16;

/**
 * A recursive reader over lines. `ls`/`le` bound the current line (without its line
 * break), `ind` is its indentation; `eof` and `marker` (`---`) stop a document.
 * Recursion is bounded by `maxDepth`: every level checks it first.
 */
class SubsetReader {
  entries = 0;
  private ls = 0;
  private le = 0;
  private ind = 0;
  private next = 0;
  private eof = false;
  private marker = false;
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly maxEntries: number,
  ) {
    this.slots = Math.min(INTERN_SLOTS, 2 ** Math.max(6, Math.ceil(Math.log2(text.length / 16 + 1))));
    this.interned = new Array<string | undefined>(this.slots);
  }

  /**
   * Slots of the table below: a power of two, about one per 16 characters of text, at most
   * INTERN_SLOTS. A table of the largest size for every small file cost `check` of the
   * shipped examples more than reading them (a 64K-slot array made and filled per file).
   */
  private readonly slots: number;

  /**
   * Strings read before, by a hash of their characters: names, modules and node names
   * repeat thousands of times in a Cluster, and one string for each saves the
   * allocation (and the garbage collector's copying) of every repeat. Slots fill until
   * half the table is used; later strings are sliced as they come.
   */
  private readonly interned: Array<string | undefined>;
  private internedCount = 0;

  /** The text from `p` to `e`, as a string read before when there is one. */
  private intern(p: number, e: number): string {
    const t = this.text;
    const len = e - p;
    if (len > 64) return t.slice(p, e);
    let h = len;
    for (let i = p; i < e; i++) h = (Math.imul(h, 31) + t.charCodeAt(i)) | 0;
    let slot = (h ^ (h >>> 15)) & (this.slots - 1);
    for (let probe = 0; probe < 8; probe++) {
      const s = this.interned[slot];
      if (s === undefined) {
        const made = t.slice(p, e);
        if (this.internedCount < this.slots / 2) {
          this.interned[slot] = made;
          this.internedCount++;
        }
        return made;
      }
      if (s.length === len) {
        let i = 0;
        while (i < len && s.charCodeAt(i) === t.charCodeAt(p + i)) i++;
        if (i === len) return s;
      }
      slot = (slot + 1) & (this.slots - 1);
    }
    return t.slice(p, e);
  }

  /** The plain scalar from `p` to `e` (not empty), resolved as js-yaml's CORE_SCHEMA resolves it. */
  private plain(p: number, e: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(p);
    if (c >= 48 && c <= 57 && e - p <= 15) {
      let n = 0;
      let i = p;
      for (; i < e; i++) {
        const d = t.charCodeAt(i) - 48;
        if (d < 0 || d > 9) break;
        n = n * 10 + d;
      }
      if (i === e) return n;
    }
    if (e - p > SCALAR_MAX) return mayResolve(c) ? this.resolved(t.slice(p, e)) : t.slice(p, e);
    // A scalar read before (a quota, workspace, module, node name or start time repeats
    // thousands of times in a Cluster): its value again, one string for every repeat and
    // no second resolution. A slot holds the last text that hashed to it.
    let h = e - p;
    for (let i = p; i < e; i++) h = (Math.imul(h, 31) + t.charCodeAt(i)) | 0;
    const slot = (h ^ (h >>> 15)) & (SCALAR_SLOTS - 1);
    const seen = this.scalarText[slot];
    if (seen !== undefined && seen.length === e - p && t.startsWith(seen, p)) return this.scalarValue[slot];
    const s = t.slice(p, e);
    const v = mayResolve(c) ? this.resolved(s) : s;
    this.scalarText[slot] = s;
    this.scalarValue[slot] = v;
    return v;
  }

  /** A plain scalar's value as js-yaml's CORE_SCHEMA resolves it; declines a number js-yaml leaves as text (policy/parse/number-text.ts). */
  private resolved(s: string): unknown {
    const v: unknown = CORE_SCHEMA.resolveImplicitScalarTag(s).value;
    if (typeof v === 'string' && numberLeftAsText(v)) throw DECLINE;
    return v;
  }

  /** Plain scalars read lately, by a hash of their text, and what they resolved to (see plain). */
  private readonly scalarText = new Array<string | undefined>(SCALAR_SLOTS);
  private readonly scalarValue = new Array<unknown>(SCALAR_SLOTS);

  /** Every document of the stream. */
  stream(): unknown[] {
    const values: unknown[] = [];
    this.advance();
    // Comments alone before the first `---` are no document.
    let explicit = false;
    while (!this.eof) {
      if (this.marker) {
        explicit = true;
        this.advance();
      }
      // `---` with nothing after it is an empty (null) document: the caller's to judge.
      if (this.eof || this.marker) {
        if (explicit) throw DECLINE;
        continue;
      }
      values.push(this.block(this.ind, 0));
      if (!this.eof && !this.marker) throw DECLINE;
    }
    return values;
  }

  /**
   * Moves to the next line with content, skipping blank and comment lines; sets `marker`
   * on a `---` line and declines `...` and directives.
   */
  private advance(): void {
    const t = this.text;
    for (;;) {
      const start = this.next;
      if (start >= t.length) {
        this.eof = true;
        this.marker = false;
        return;
      }
      let end = t.indexOf('\n', start);
      if (end < 0) end = t.length;
      this.next = end + 1;
      if (end > start && t.charCodeAt(end - 1) === CR) end--;
      let i = start;
      while (i < end && t.charCodeAt(i) === SPACE) i++;
      if (i === end || t.charCodeAt(i) === HASH) continue;
      this.ls = start;
      this.le = end;
      this.ind = i - start;
      this.marker = false;
      if (i === start) {
        const c = t.charCodeAt(i);
        if ((c === DASH || c === DOT) && t.startsWith(c === DASH ? '---' : '...', i) && (i + 3 === end || t.charCodeAt(i + 3) === SPACE)) {
          if (c === DOT || !this.restIsBlank(i + 3)) throw DECLINE;
          this.marker = true;
        } else if (c === 37) throw DECLINE; // %YAML, %TAG
      }
      return;
    }
  }

  /** Where a comment (` #`) starts between `p` and `end`, or `end`. */
  private commentAt(p: number, end: number): number {
    const t = this.text;
    for (let i = p + 1; i < end; i++) if (t.charCodeAt(i) === HASH && t.charCodeAt(i - 1) === SPACE) return i - 1;
    return end;
  }

  /** True when the current line holds only spaces or a comment from `p` on. */
  private restIsBlank(p: number): boolean {
    const t = this.text;
    const start = p;
    while (p < this.le && t.charCodeAt(p) === SPACE) p++;
    return p === this.le || (t.charCodeAt(p) === HASH && p > start);
  }

  /** The block collection whose first line is the current one, at indentation `n`. */
  private block(n: number, depth: number): unknown {
    const t = this.text;
    const p = this.ls + n;
    const c = t.charCodeAt(p);
    if (c === DASH && (p + 1 === this.le || t.charCodeAt(p + 1) === SPACE)) return this.blockSeq(n, depth + 1, false);
    if (c === LBRACE || c === LBRACKET) {
      // A flow collection standing alone on its lines (a whole document `{}`); it ends there.
      const value = this.flow(p, depth + 1);
      if (!this.restIsBlank(this.flowEnd)) throw DECLINE;
      this.advance();
      if (!this.eof && !this.marker && this.ind >= n) throw DECLINE;
      return value;
    }
    return this.blockMap(n, p, depth + 1);
  }

  private enter(depth: number): void {
    if (depth > this.maxDepth) throw DECLINE;
  }

  private count(): void {
    if (++this.entries > this.maxEntries) throw DECLINE;
  }

  /** A block list at indentation `n`; `indentless`: the value of a key at the same indentation (`key:\n- a`). */
  private blockSeq(n: number, depth: number, indentless: boolean): unknown[] {
    this.enter(depth);
    const t = this.text;
    const out: unknown[] = [];
    for (;;) {
      this.count();
      out.push(this.valueAfter(this.ls + n + 1, n, depth, true));
      if (this.eof || this.marker || this.ind < n) return out;
      if (this.ind > n) throw DECLINE;
      const p = this.ls + n;
      if (t.charCodeAt(p) === DASH && (p + 1 === this.le || t.charCodeAt(p + 1) === SPACE)) continue;
      if (indentless) return out;
      throw DECLINE;
    }
  }

  /** A block mapping at indentation `n`, its first key at `p` on the current line (later keys start their lines). */
  private blockMap(n: number, p: number, depth: number): Record<string, unknown> {
    this.enter(depth);
    const t = this.text;
    const out: Record<string, unknown> = {};
    for (;;) {
      const key = this.blockKey(p);
      this.count();
      if (key in out || key === '<<') throw DECLINE;
      out[key] = this.valueAfter(this.keyEnd, n, depth, false);
      if (this.eof || this.marker || this.ind < n) return out;
      if (this.ind > n) throw DECLINE;
      p = this.ls + n;
      if (t.charCodeAt(p) === DASH && (p + 1 === this.le || t.charCodeAt(p + 1) === SPACE)) throw DECLINE;
    }
  }

  /** Where the `:` after the last key read ends (the value starts after it). */
  private keyEnd = 0;

  /** The key at `p` of a block mapping line, up to its `:` (which must be followed by a space or the line's end). */
  private blockKey(p: number): string {
    const t = this.text;
    const le = this.le;
    const c = t.charCodeAt(p);
    let key: string;
    let q: number;
    if (c === DQUOTE || c === SQUOTE) {
      q = this.quotedEnd(p);
      key = this.quotedValue(p, q);
      while (q < le && t.charCodeAt(q) === SPACE) q++;
      if (t.charCodeAt(q) !== COLON) throw DECLINE;
    } else {
      if (!this.plainStart(p, false)) throw DECLINE;
      q = p;
      for (;;) {
        q = t.indexOf(':', q);
        if (q < 0 || q >= le) throw DECLINE;
        if (q + 1 === le || t.charCodeAt(q + 1) === SPACE) break;
        q++;
      }
      // A comment before the colon: the line is a scalar, not a key.
      if (this.commentAt(p, q) < q) throw DECLINE;
      let e = q;
      while (e > p && t.charCodeAt(e - 1) === SPACE) e--;
      if (e - p > 1024) throw DECLINE;
      if (mayResolve(c) && typeof this.plain(p, e) !== 'string') throw DECLINE;
      key = this.intern(p, e);
    }
    if (q + 1 < le && t.charCodeAt(q + 1) !== SPACE) throw DECLINE;
    this.keyEnd = q + 1;
    return key;
  }

  /**
   * The value after an indicator (`key:` or `-`) ending at `p`, on the same line or,
   * when nothing follows it, in the block below. `n` is the indentation of the key or
   * dash; `item`: a list entry (which may hold a compact mapping, `- name: x`).
   * Leaves the reader on the next line with content.
   */
  private valueAfter(p: number, n: number, depth: number, item: boolean): unknown {
    const t = this.text;
    const le = this.le;
    const from = p;
    while (p < le && t.charCodeAt(p) === SPACE) p++;
    if (p === le || (t.charCodeAt(p) === HASH && p > from)) {
      this.advance();
      if (this.eof || this.marker) return null;
      if (this.ind > n) return this.block(this.ind, depth);
      if (!item && this.ind === n) {
        const q = this.ls + n;
        if (t.charCodeAt(q) === DASH && (q + 1 === this.le || t.charCodeAt(q + 1) === SPACE)) return this.blockSeq(n, depth + 1, true);
      }
      return null;
    }
    if (p === from) throw DECLINE;
    const c = t.charCodeAt(p);
    let value: unknown;
    if (c === LBRACE || c === LBRACKET) {
      value = this.flow(p, depth + 1);
      if (!this.restIsBlank(this.flowEnd)) throw DECLINE;
    } else if (c === DQUOTE || c === SQUOTE) {
      const q = this.quotedEnd(p);
      let r = q;
      while (r < le && t.charCodeAt(r) === SPACE) r++;
      if (item && t.charCodeAt(r) === COLON) return this.blockMap(p - this.ls, p, depth + 1);
      if (!this.restIsBlank(q)) throw DECLINE;
      value = this.quotedValue(p, q);
    } else {
      if (item && c === DASH && (p + 1 === le || t.charCodeAt(p + 1) === SPACE)) return this.blockSeq(p - this.ls, depth + 1, false);
      if (!this.plainStart(p, false)) throw DECLINE;
      // The scalar runs to a comment or the line's end; `: ` inside makes it a key.
      let e = this.commentAt(p, le);
      for (let k = p; k < e; k++) {
        if (t.charCodeAt(k) === COLON && (k + 1 === le || t.charCodeAt(k + 1) === SPACE)) {
          if (item) return this.blockMap(p - this.ls, p, depth + 1);
          throw DECLINE;
        }
      }
      while (t.charCodeAt(e - 1) === SPACE) e--;
      value = this.plain(p, e);
    }
    this.advance();
    if (!this.eof && !this.marker && this.ind > n) throw DECLINE;
    return value;
  }

  /** Where the last flow collection read ends (just after its closing bracket). */
  private flowEnd = 0;

  /** A flow collection opening at `p` that closes on the same line. */
  private flow(p: number, depth: number): unknown {
    this.enter(depth);
    const t = this.text;
    const le = this.le;
    const isMap = t.charCodeAt(p) === LBRACE;
    const close = isMap ? RBRACE : RBRACKET;
    const map: Record<string, unknown> | undefined = isMap ? {} : undefined;
    // A list's items gather on a shared stack and are copied out at the bracket: a list grown
    // by push keeps room for 16 items, and a Cluster holds ~80,000 lists of one to eight.
    const start = this.items.length;
    let size = 0;
    p++;
    for (;;) {
      while (p < le && t.charCodeAt(p) === SPACE) p++;
      if (p >= le) throw DECLINE;
      if (t.charCodeAt(p) === close) {
        // `[a, ]` is allowed by YAML; kept out of the subset, as is any other oddity.
        if (size > 0) throw DECLINE;
        this.flowEnd = p + 1;
        return map ?? this.listFrom(start);
      }
      let key: string | undefined;
      if (map) {
        key = this.flowScalar(p, true) as string;
        p = this.scalarEnd;
        if (t.charCodeAt(p) !== COLON || p + 1 >= le || t.charCodeAt(p + 1) !== SPACE) throw DECLINE;
        p += 2;
        while (p < le && t.charCodeAt(p) === SPACE) p++;
        if (key in map || key === '<<') throw DECLINE;
      }
      const c = t.charCodeAt(p);
      let value: unknown;
      if (c === LBRACE || c === LBRACKET) {
        value = this.flow(p, depth + 1);
        p = this.flowEnd;
      } else {
        value = this.flowScalar(p, false);
        p = this.scalarEnd;
        // `[a: 1]` (a one-pair mapping in a list) or `{a: b: c}`.
        if (t.charCodeAt(p) === COLON) throw DECLINE;
      }
      this.count();
      size++;
      if (map) map[key!] = value;
      else this.items.push(value);
      while (p < le && t.charCodeAt(p) === SPACE) p++;
      const d = t.charCodeAt(p);
      if (d === COMMA) p++;
      else if (d === close) {
        this.flowEnd = p + 1;
        return map ?? this.listFrom(start);
      } else throw DECLINE;
    }
  }

  /** Items of the flow lists open now, innermost last. */
  private readonly items: unknown[] = [];

  /** The items from `start` on, as a list of their own size; they leave the stack. */
  private listFrom(start: number): unknown[] {
    const out = this.items.slice(start);
    this.items.length = start;
    return out;
  }

  /** Where the last flow scalar read ends: after a closing quote, or after a plain scalar's last non-space. */
  private scalarEnd = 0;

  /** A scalar inside a flow collection at `p`: quoted, or plain up to a flow indicator or `: `. `key`: it must be a string. */
  private flowScalar(p: number, key: boolean): unknown {
    const t = this.text;
    const le = this.le;
    const c = t.charCodeAt(p);
    if (c === DQUOTE || c === SQUOTE) {
      const q = this.quotedEnd(p);
      let r = q;
      while (r < le && t.charCodeAt(r) === SPACE) r++;
      this.scalarEnd = r;
      return this.quotedValue(p, q);
    }
    if (!this.plainStart(p, true)) throw DECLINE;
    let e = p;
    for (; e < le; e++) {
      const d = t.charCodeAt(e);
      if (d < 128 && FLOW_END[d] === 1) break;
      if (d === COLON) {
        const f = e + 1 < le ? t.charCodeAt(e + 1) : SPACE;
        if (f === SPACE || (f < 128 && FLOW_END[f] === 1)) break;
      } else if (d === HASH && t.charCodeAt(e - 1) === SPACE) throw DECLINE;
    }
    if (e >= le) throw DECLINE;
    this.scalarEnd = e;
    while (t.charCodeAt(e - 1) === SPACE) e--;
    if (!key) return this.plain(p, e);
    if (e - p > 1024 || (mayResolve(c) && typeof this.plain(p, e) !== 'string')) throw DECLINE;
    return this.intern(p, e);
  }

  /** Whether a plain scalar may start at `p` (inside a flow collection: `flow`). */
  private plainStart(p: number, flow: boolean): boolean {
    const t = this.text;
    const c = t.charCodeAt(p);
    if (c === DASH || c === 63 || c === COLON) {
      if (p + 1 >= this.le) return false;
      const d = t.charCodeAt(p + 1);
      return d !== SPACE && !(flow && d < 128 && FLOW_END[d] === 1);
    }
    return c >= 128 || INDICATOR[c] !== 1;
  }

  /**
   * Just after the closing quote of the quoted scalar at `p`; declines escapes and quotes
   * left open at the line's end. Every search stops at the line's end: a search run on to
   * the end of the text (a `\` looked for after each double-quoted scalar) made a file of
   * such scalars quadratic (7.5 MB took 78 s to check).
   */
  private quotedEnd(p: number): number {
    const t = this.text;
    const le = this.le;
    const q = t.charCodeAt(p);
    if (q === DQUOTE) {
      for (let i = p + 1; i < le; i++) {
        const c = t.charCodeAt(i);
        if (c === DQUOTE) return i + 1;
        if (c === BACKSLASH) throw DECLINE;
      }
      throw DECLINE;
    }
    let i = p + 1;
    for (;;) {
      // Past the line's end the scalar is left open (or runs on over lines): declined, the
      // search costing at most one pass, as declining ends the read.
      const e = t.indexOf("'", i);
      if (e < 0 || e >= le) throw DECLINE;
      if (e + 1 < le && t.charCodeAt(e + 1) === SQUOTE) {
        i = e + 2;
        continue;
      }
      return e + 1;
    }
  }

  /** The text of the quoted scalar from `p` to `end` (`''` in single quotes is one quote). */
  private quotedValue(p: number, end: number): string {
    const s = this.text.slice(p + 1, end - 1);
    return this.text.charCodeAt(p) === SQUOTE && s.includes("''") ? s.replace(/''/g, "'") : s;
  }
}
