/**
 * The shape of a YAML document measured on its concrete syntax tree, before anything
 * recursive touches it. The yaml library's parser is iterative but its composer (and
 * everything after it: toJS, zod, the tree builders) recurses once per nesting level,
 * so a document 1,000 brackets deep overflows the stack. This walk uses an explicit
 * stack: it survives any depth, and finds the first place a limit is crossed.
 */
import type { CST } from 'yaml';

/** What the walk found: entries counted, and where nesting first went past the limit. */
export interface CstShape {
  /** Collection entries (mapping pairs and list items) in the document. */
  entries: number;
  /** Offset of the first collection nested deeper than `maxDepth`, if any. */
  tooDeepAt?: number;
  /** The deepest nesting seen (stops growing once past the limit: the walk goes no deeper). */
  depth: number;
}

/**
 * Measures one document token. Stops descending below `maxDepth + 1` (that is enough to
 * locate the problem) and stops counting once `maxEntries` is passed, so the walk is
 * bounded by the limits, not by the input.
 */
export function measureDocument(doc: CST.Document, maxDepth: number, maxEntries: number): CstShape {
  let entries = 0;
  let depth = 0;
  let tooDeepAt: number | undefined;
  const stack: Array<{ token: CST.Token; depth: number }> = [];
  if (doc.value) stack.push({ token: doc.value, depth: 0 });
  while (stack.length > 0 && entries <= maxEntries) {
    const top = stack.pop();
    if (!top) break;
    const { token } = top;
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    const level = top.depth + 1;
    if (level > depth) depth = level;
    if (level > maxDepth) {
      // The first such collection in document order is the most useful place to point.
      if (tooDeepAt === undefined || token.offset < tooDeepAt) tooDeepAt = token.offset;
      continue;
    }
    entries += token.items.length;
    for (const item of token.items) {
      if (item.key) stack.push({ token: item.key, depth: level });
      if (item.value) stack.push({ token: item.value, depth: level });
    }
  }
  return tooDeepAt === undefined ? { entries, depth } : { entries, depth, tooDeepAt };
}
