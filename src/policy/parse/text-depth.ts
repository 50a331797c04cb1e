/**
 * Nesting depth estimated on the raw text, before the yaml parser sees it. The parser
 * is mostly iterative, but closing a deep block (its `step` and `blockMap` call each
 * other once per level) recurses, and 1,800 levels overflowed the stack in a test
 * worker. This scan is one pass with a few counters: block levels from indentation
 * and `- ` indicators, flow levels from brackets outside quotes and comments. It can
 * overcount a little (a plain scalar continued on a deeper line), never by much, so it
 * is used with a margin above the real limit, which the syntax-tree walk
 * (`cst-shape.ts`) then applies exactly.
 */

const [SPACE, TAB, CR, HASH, DQUOTE, SQUOTE, BACKSLASH, LBRACKET, RBRACKET, LBRACE, RBRACE, COMMA, COLON, PIPE, GT, DASH] = [32, 9, 13, 35, 34, 39, 92, 91, 93, 123, 125, 44, 58, 124, 62, 45] as const;

/** Characters the scan below does nothing with, outside quotes, but end a token start (1): all but space, tab and the indicators it reads. */
const PLAIN = new Uint8Array(128).fill(1);
for (const c of [SPACE, TAB, CR, HASH, DQUOTE, SQUOTE, LBRACKET, RBRACKET, LBRACE, RBRACE, COMMA, COLON, PIPE, GT, DASH]) PLAIN[c] = 0;

/** The offset where the estimated nesting first passes `limit`, if it does. */
export function textDepthOver(text: string, limit: number): number | undefined {
  return scanText(text, limit, Number.MAX_SAFE_INTEGER).deepAt;
}

/** What the scan found: where nesting passed its limit, where entries passed theirs, and the entries counted. */
export interface TextShape {
  deepAt?: number;
  entriesOverAt?: number;
  entries: number;
}

/**
 * One pass over the text: the nesting estimate (above) and the entries the syntax tree
 * will hold (a `- ` item, a `key:` pair, an item of a flow list), so that a policy of a
 * million jobs is refused before the parser spends minutes and gigabytes building it.
 * Stops at the first limit passed.
 */
export function scanText(text: string, limit: number, maxEntries: number): TextShape {
  const blocks: number[] = [];
  // The open flow collections, innermost last: '[' lists count their items, '{' maps their keys.
  const open: number[] = [];
  let entries = 0;
  let flow = 0;
  // The quote character of an open quoted scalar, or 0.
  let quote = 0;
  // Lines more indented than this belong to a block scalar (`|`, `>`), not to the structure.
  let scalarIndent = -1;
  let at = 0;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    let i = at;
    while (i < end && text.charCodeAt(i) === SPACE) i++;
    const indent = i - at;
    const blank = i >= end || text.charCodeAt(i) === HASH || text.charCodeAt(i) === CR;
    if (quote === 0 && flow === 0) {
      if (scalarIndent >= 0 && (blank || indent > scalarIndent)) {
        at = end + 1;
        continue;
      }
      scalarIndent = -1;
      if (blank) {
        at = end + 1;
        continue;
      }
      if (indent === 0 && (text.startsWith('---', i) || text.startsWith('...', i))) {
        blocks.length = 0;
        at = end + 1;
        continue;
      }
      while (blocks.length > 0 && (blocks[blocks.length - 1] ?? 0) > indent) blocks.pop();
      if (blocks.length === 0 || (blocks[blocks.length - 1] ?? 0) < indent) blocks.push(indent);
      // `- - x`: each indicator opens a list whose item starts two columns on.
      while (text.charCodeAt(i) === DASH && (text.charCodeAt(i + 1) === SPACE || i + 1 >= end)) {
        i += 2;
        while (i < end && text.charCodeAt(i) === SPACE) i++;
        blocks.push(i - at);
        entries++;
      }
      if (blocks.length > limit) return { deepAt: at + indent, entries };
      if (entries > maxEntries) return { entriesOverAt: at + indent, entries };
    }
    // The rest of the line: quotes, comments, brackets (on char codes: this loop sees every byte of a policy).
    let tokenStart = true;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (quote !== 0) {
        if (quote === DQUOTE && c === BACKSLASH) i++;
        else if (c === quote) {
          if (quote === SQUOTE && text.charCodeAt(i + 1) === SQUOTE) i++;
          else quote = 0;
        }
        continue;
      }
      // Letters, digits and most punctuation change nothing but end a token start: skip them in one test.
      if (c >= 128 || PLAIN[c] === 1) {
        tokenStart = false;
        continue;
      }
      if (c === HASH && (i === at || text.charCodeAt(i - 1) === SPACE || text.charCodeAt(i - 1) === TAB)) break;
      if ((c === DQUOTE || c === SQUOTE) && tokenStart) quote = c;
      else if ((c === LBRACKET || c === LBRACE) && (flow > 0 || tokenStart)) {
        flow++;
        open.push(c);
        if (blocks.length + flow > limit) return { deepAt: i, entries };
        // A list's first item (an empty list has none: `[]`).
        if (c === LBRACKET && text.charCodeAt(i + 1) !== RBRACKET) entries++;
      } else if ((c === RBRACKET || c === RBRACE) && flow > 0) {
        flow--;
        open.pop();
      } else if (c === COMMA && open[open.length - 1] === LBRACKET) entries++;
      else if (c === COLON && (i + 1 >= end || text.charCodeAt(i + 1) === SPACE || text.charCodeAt(i + 1) === CR)) entries++;
      else if ((c === PIPE || c === GT) && flow === 0 && tokenStart) scalarIndent = indent;
      if (entries > maxEntries) return { entriesOverAt: i, entries };
      // A new token starts after a space, an indicator or a bracket.
      tokenStart = c === SPACE || c === TAB || c === COMMA || c === LBRACKET || c === LBRACE || (c === COLON && flow > 0) || (c === DASH && tokenStart);
    }
    at = end + 1;
  }
  return { entries };
}
