/**
 * YAML aliases that point back into the node their anchor names (`- &q { children: [*q] }`).
 * The yaml library composes them without complaint and `toJS` gives an object that holds
 * itself; everything after it that walks the value (the schema check, the builders) then
 * never ends, and Node dies out of memory. Such a document is refused at the alias,
 * before anything reads its value.
 *
 * An alias can only name an anchor defined before it, so a value holds itself exactly
 * when some alias lies inside the node it names: a cycle through other aliases always
 * has one alias inside its own target (node ranges nest), so looking at each alias's
 * ancestors finds every cycle. Only documents whose text holds `*` are walked: the fast
 * parsers decline every such text, so a policy they read costs nothing here.
 */
import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import type { Finding } from '../../errors.js';
import { pathTo } from './node-path.js';
import { formatPath } from './field-path.js';

/** The hint every `policy/recursive-alias` finding carries. */
const HINT = 'an alias cannot refer to the node that contains it; copy the values instead';

/** One finding per alias of `doc` (read from `text`) that lies inside the node its anchor names (none for a document without aliases). */
export function recursiveAliasFindings(file: string, text: string, lines: LineCounter, doc: Document.Parsed): Finding[] {
  const { isAlias, visit } = yamlLibrary();
  const out: Finding[] = [];
  // The node each anchor names at this point of the walk: a later `&q` replaces an earlier
  // one, as Alias.resolve reads it (the last anchor of that name before the alias).
  const anchored = new Map<string, YamlNode>();
  visit(doc, {
    Node(_key, node, ancestors) {
      if (!isAlias(node)) {
        if (node.anchor) anchored.set(node.anchor, node);
        return undefined;
      }
      const target = anchored.get(node.source);
      if (target === undefined || !ancestors.includes(target)) return undefined;
      const start = node.range?.[0] ?? 0;
      const pos = lines.linePos(start);
      // The node's range starts at its content; its `&q` is written just before that (maybe a line above).
      const contentAt = target.range?.[0] ?? 0;
      const anchorAt = text.lastIndexOf(`&${node.source}`, contentAt);
      const anchorLine = lines.linePos(anchorAt >= 0 ? anchorAt : contentAt).line;
      const path = formatPath(pathTo(ancestors, node));
      out.push({
        file,
        line: pos.line,
        column: pos.col,
        start,
        end: node.range?.[1] ?? start,
        code: 'policy/recursive-alias',
        severity: 'error',
        path,
        message: `the alias *${node.source} at ${path || 'the document'} refers to the node anchored &${node.source} on line ${anchorLine}, which contains it: its value would hold itself without end`,
        hint: HINT,
      });
      return undefined;
    },
  });
  return out;
}
