/**
 * Names an import takes from another tool's objects, made safe to write. Kubernetes
 * names cannot hold control or bidirectional characters, but label values of other
 * tools, annotations and hand-made inputs can; a policy may not (policy/control-character),
 * so an import that copied them would write a document `quotient check` refuses, and
 * raw escapes on stdout besides. The rule is rewrite, not refuse: each character a name
 * may not hold (model/display-text.ts, the one rule) is written as its visible escape
 * (`\e`, `\0`, `\u{202E}`), as every message already shows it, and a lone surrogate
 * (which no UTF-8 file can hold) likewise; the import says so in a located warning and
 * in the object's comment. So import → check always round-trips, and the name still
 * shows what the input held.
 */
import { codePoint, escapeDisplay, unsafeCharacter } from '../model/display-text.js';

/** A name as imported: safe to write, and, when it had to be rewritten, why. */
export interface ImportedName {
  name: string;
  /** Set when the input's name held a character a name may not hold: which, and where. */
  rewritten?: string;
}

/** Lone surrogates (half of a pair without the other half). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * Text from an input made safe to write into a document or a comment: each character a
 * name may not hold, and each lone surrogate, as its escape (a file's name, a note
 * quoting the input).
 */
export function writableText(text: string): string {
  return escapeDisplay(text).text.replace(LONE_SURROGATES, (c) => `\\u{${codePoint(c).slice(2)}}`);
}

/** `raw` made safe to write as a name (see the module comment). */
export function importedName(raw: string): ImportedName {
  const unsafe = unsafeCharacter(raw);
  const lone = LONE_SURROGATE.exec(raw);
  if (!unsafe && !lone) return { name: raw };
  const first = unsafe && (!lone || unsafe.index < lone.index) ? unsafe : { index: lone!.index, char: lone![0] };
  const name = writableText(raw);
  return {
    name,
    rewritten: `the input's name holds ${codePoint(first.char)} at position ${first.index + 1}, which a name may not hold: it is written as "${name}", each such character as its escape`,
  };
}
