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
  const open: string[] = [];
  let entries = 0;
  let flow = 0;
  let quote: '"' | "'" | undefined;
  // Lines more indented than this belong to a block scalar (`|`, `>`), not to the structure.
  let scalarIndent = -1;
  let at = 0;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    let i = at;
    while (i < end && text[i] === ' ') i++;
    const indent = i - at;
    const blank = i >= end || text[i] === '#' || text[i] === '\r';
    if (quote === undefined && flow === 0) {
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
      while (text[i] === '-' && (text[i + 1] === ' ' || i + 1 >= end)) {
        i += 2;
        while (i < end && text[i] === ' ') i++;
        blocks.push(i - at);
        entries++;
      }
      if (blocks.length > limit) return { deepAt: at + indent, entries };
      if (entries > maxEntries) return { entriesOverAt: at + indent, entries };
    }
    // The rest of the line: quotes, comments, brackets.
    let tokenStart = true;
    for (; i < end; i++) {
      const c = text[i];
      if (quote !== undefined) {
        if (quote === '"' && c === '\\') i++;
        else if (c === quote) {
          if (quote === "'" && text[i + 1] === "'") i++;
          else quote = undefined;
        }
        continue;
      }
      if (c === '#' && (i === at || text[i - 1] === ' ' || text[i - 1] === '\t')) break;
      if ((c === '"' || c === "'") && tokenStart) quote = c;
      else if ((c === '[' || c === '{') && (flow > 0 || tokenStart)) {
        flow++;
        open.push(c);
        if (blocks.length + flow > limit) return { deepAt: i, entries };
        // A list's first item (an empty list has none: `[]`).
        if (c === '[' && text[i + 1] !== ']') entries++;
      } else if ((c === ']' || c === '}') && flow > 0) {
        flow--;
        open.pop();
      } else if (c === ',' && open[open.length - 1] === '[') entries++;
      else if (c === ':' && (text[i + 1] === ' ' || i + 1 >= end || text[i + 1] === '\r')) entries++;
      else if ((c === '|' || c === '>') && flow === 0 && tokenStart) scalarIndent = indent;
      if (entries > maxEntries) return { entriesOverAt: i, entries };
      // A new token starts after a space, an indicator or a bracket.
      tokenStart = c === ' ' || c === '\t' || c === ',' || c === '[' || c === '{' || (c === ':' && flow > 0) || (c === '-' && tokenStart);
    }
    at = end + 1;
  }
  return { entries };
}
