/**
 * The fast way in: plain values from js-yaml, with no source positions. The positioned
 * parse (the yaml library's CST, composer and Documents) is ~20 times slower and costs
 * ~100 bytes of heap per byte of YAML; a large Cluster needs its positions only when a
 * finding or an answer points into it, so `parseFiles` reads with this (after the faster
 * subset reader, policy/parse/subset-yaml.ts, for the texts that reader declines) and parses with
 * positions lazily (policy/parse/source-doc.ts).
 *
 * The two parsers must agree to the value, so this path declines — and the caller takes
 * the positioned path, which also gives the located findings — whenever the input holds
 * anything where they could differ or where the positioned path has something to say:
 * anchors and aliases (alias-expansion limits), tags, merge keys, tabs, any document the
 * fast parser rejects (syntax, duplicate keys), empty or null documents (told apart only
 * with positions), nesting that might approach the depth limit, more entries than the
 * node limit. test/unit/policy/fast-parse.test.ts holds the agreement over every shipped
 * policy, every golden case and generated policies in many YAML styles.
 */
import { CORE_SCHEMA, loadAll } from 'js-yaml';

/** Why the fast path declined a text (for tests and benchmarks), or the documents it read. */
export type FastParse = { ok: true; values: unknown[]; entries: number } | { ok: false; why: string };

/**
 * Characters that start constructs the fast path leaves to the positioned parser: `&`
 * anchors, `*` aliases, `!` tags, `<<` merge keys and tabs (YAML forbids them in
 * indentation; the two parsers word that differently). A match in a quoted string or a
 * comment only costs the fast path, never correctness.
 */
const DECLINE = /[&*!\t]|<</;

/**
 * Text that may hold a number past the range of a double, which js-yaml keeps as a string
 * and the yaml library reads as infinity (policy/parse/number-text.ts): a three-digit exponent,
 * or a run of 200 digits (hex and octal included). Quoted text and comments match too,
 * which only costs the fast path; a double's exponent stops at 308, so nothing shorter
 * can pass its range. A run is tried from its first digit only (the lookbehind): tried
 * from every digit, a text of 199-digit runs cost 199 steps a character (16 MB: 26 s).
 */
const HUGE_NUMBER = /[0-9.][eE][-+]?[0-9]{3}|(?<![0-9a-fA-F])[0-9a-fA-F]{200}/;

/**
 * A bound on how deeply the text can nest, read from the raw lines without parsing:
 * block nesting needs at least one more column of indentation per level (plus compact
 * `- ` entries on one line), and flow nesting one bracket each. Beyond `limit` the
 * positioned parser measures it exactly and gives the located `policy/too-deep`.
 */
function maxNestingBound(text: string, limit: number): number {
  let worst = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let end = text.indexOf('\n', lineStart);
    if (end < 0) end = text.length;
    let indent = 0;
    while (lineStart + indent < end && text.charCodeAt(lineStart + indent) === 32) indent++;
    let brackets = 0;
    let dashes = 0;
    for (let i = lineStart + indent; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 91 || c === 123)
        brackets++; // [ {
      else if (c === 45 && text.charCodeAt(i + 1) === 32) dashes++; // "- "
    }
    const bound = indent + brackets + dashes + 1;
    if (bound > worst) {
      worst = bound;
      if (worst > limit) return worst;
    }
    lineStart = end + 1;
  }
  return worst;
}

/** Counts collection entries (mapping pairs and list items) without recursion, stopping past `max`. */
function countEntries(values: unknown[], max: number): number {
  let entries = 0;
  const stack: unknown[] = [...values];
  while (stack.length > 0 && entries <= max) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      entries += v.length;
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) {
        entries++;
        const x = (v as Record<string, unknown>)[key];
        if (x !== null && typeof x === 'object') stack.push(x);
      }
    }
  }
  return entries;
}

/**
 * Reads `text` (line breaks already normalised) with js-yaml's YAML 1.2 core schema — the
 * schema the yaml library reads by default — or says why it would not.
 */
export function fastParse(text: string, limits: { maxDepth: number; maxEntries: number }): FastParse {
  if (DECLINE.test(text)) return { ok: false, why: 'anchors, aliases, tags, merge keys or tabs' };
  if (HUGE_NUMBER.test(text)) return { ok: false, why: 'a number that may pass the range of a double' };
  if (maxNestingBound(text, limits.maxDepth) > limits.maxDepth) return { ok: false, why: 'nesting may pass the depth limit' };
  let values: unknown[];
  try {
    values = loadAll(text, null, { schema: CORE_SCHEMA, json: false });
  } catch {
    return { ok: false, why: 'the fast parser rejected the text' };
  }
  if (values.some((v) => v === null || v === undefined)) return { ok: false, why: 'an empty or null document' };
  const entries = countEntries(values, limits.maxEntries);
  if (entries > limits.maxEntries) return { ok: false, why: 'more entries than the node limit' };
  return { ok: true, values, entries };
}
