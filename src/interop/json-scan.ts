/**
 * One pass over a JSON text before `JSON.parse` builds it: the nesting depth, the number
 * of values (what the parsed value costs in memory: ~30-60 bytes each, where a byte of
 * text may be a whole value, `[{},{},…]`), and duplicate keys, which `JSON.parse` keeps
 * silently (the last wins) where the YAML path reports them. Iterative, allocation-free
 * for ordinary objects, and linear: each character is looked at once, a key compared
 * with at most 32 earlier keys of its object (a Set takes over past that).
 *
 * It assumes nothing about the text being valid: on text `JSON.parse` then refuses it
 * still ends, and what it said is not used.
 */
import type { PathSeg } from '../policy/parse/source-doc.js';

/**
 * The children of one container: where each key (of a map) and each value starts and
 * ends, and for a large map each key's index. The scan records them for the large
 * containers of the top two levels (a List's `items`); the locator reads others when asked.
 */
export interface Children {
  keys?: string[];
  byKey?: Map<string, number>;
  keyStart: number[];
  keyEnd: number[];
  valueStart: number[];
  valueEnd: number[];
}

/** Containers with this many children, or this many characters, keep their children once read. */
export const KEEP_CHILDREN = 64;
export const KEEP_CHARS = 64 * 1024;

/** Keys of a map's children, read from the text once it is kept (and an index of them when there are many). */
export function finishChildren(text: string, kids: Children, isMap: boolean): Children {
  if (!isMap) return kids;
  kids.keys = kids.keyStart.map((start, n) => keyText(text, start, kids.keyEnd[n]!));
  if (kids.keys.length >= KEEP_CHILDREN) {
    // The first of a repeated key, as JSON.parse keeps the last: duplicates are refused before positions are asked.
    kids.byKey = new Map();
    kids.keys.forEach((k, n) => kids.byKey!.has(k) || kids.byKey!.set(k, n));
  }
  return kids;
}

/** What the scan found: the first problem, if any, and the children of the large containers of the top two levels, by where they start. */
export interface JsonScan {
  problem?: JsonProblem;
  children: Map<number, Children>;
}

/** Where a limit was passed or a key repeated, and the path to it. */
export type JsonProblem = { kind: 'too-deep'; at: number } | { kind: 'too-many-values'; at: number } | { kind: 'duplicate-key'; at: number; key: string; firstAt: number; path: PathSeg[] };

const [TAB, LF, CR, SPACE, DQUOTE, COMMA, COLON, BACKSLASH, LBRACKET, RBRACKET, LBRACE, RBRACE] = [9, 10, 13, 32, 34, 44, 58, 92, 91, 93, 123, 125] as const;

/** Keys of one object compared one by one up to this many; a Set of them past it. */
const LINEAR_KEYS = 32;

/** The first problem of `text` under the limits, if any, and the children of its large top containers. */
export function scanJson(text: string, limits: { maxDepth: number; maxValues: number }): JsonScan {
  const n = text.length;
  // Per open container (index = depth - 1): 1 for an object, 0 for a list; for an object
  // where its keys start on the key stacks, and a Set of them once it has many.
  const isObject: number[] = [];
  const keysFrom: number[] = [];
  const keySets: Array<Set<string> | undefined> = [];
  // Every key of the open objects, innermost last: its start (the quote) and end (after the quote), and a hash.
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  const keyHash: number[] = [];
  // Per open list, the index of the current item (for the path of a duplicate key).
  const itemIndex: number[] = [];
  // The children of the open containers of the top two levels (index = depth), as the locator reads them.
  const children = new Map<number, Children>();
  const rec: Array<Children | undefined> = [undefined, undefined, undefined];
  const recAt = [0, 0, 0];
  const pending = [-1, -1, -1];
  const last = [0, 0, 0];
  const closeValue = (d: number): void => {
    if (pending[d]! < 0) return;
    rec[d]!.valueStart.push(pending[d]!);
    rec[d]!.valueEnd.push(last[d]!);
    pending[d] = -1;
  };
  const value = (d: number, start: number, end: number): void => {
    if (pending[d]! < 0) pending[d] = start;
    last[d] = end;
  };
  let depth = 0;
  let values = 0;
  let expectKey = false;
  const done = (problem?: JsonProblem): JsonScan => (problem ? { problem, children } : { children });
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB || c === COLON) continue;
    if (c === DQUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return done();
      if (expectKey && depth > 0 && isObject[depth - 1] === 1) {
        const dup = checkKey(i, end);
        if (dup) return done(dup);
        if (depth <= 2) {
          rec[depth]!.keyStart.push(i);
          rec[depth]!.keyEnd.push(end);
        }
        expectKey = false;
      } else {
        if (++values > limits.maxValues) return done({ kind: 'too-many-values', at: i });
        if (depth > 0 && depth <= 2) value(depth, i, end);
      }
      i = end - 1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) {
      if (++values > limits.maxValues) return done({ kind: 'too-many-values', at: i });
      if (depth > 0 && depth <= 2 && pending[depth]! < 0) pending[depth] = i;
      if (++depth > limits.maxDepth) return done({ kind: 'too-deep', at: i });
      isObject[depth - 1] = c === LBRACE ? 1 : 0;
      keysFrom[depth - 1] = keyStart.length;
      keySets[depth - 1] = undefined;
      itemIndex[depth - 1] = 0;
      expectKey = c === LBRACE;
      if (depth <= 2) {
        rec[depth] = { keyStart: [], keyEnd: [], valueStart: [], valueEnd: [] };
        recAt[depth] = i;
        pending[depth] = -1;
      }
      continue;
    }
    if (c === RBRACE || c === RBRACKET) {
      if (depth === 0) return done();
      if (depth <= 2) {
        closeValue(depth);
        const kids = rec[depth]!;
        if (kids.valueStart.length >= KEEP_CHILDREN || i + 1 - recAt[depth]! >= KEEP_CHARS) children.set(recAt[depth]!, finishChildren(text, kids, isObject[depth - 1] === 1));
        rec[depth] = undefined;
      }
      depth--;
      if (depth > 0 && depth <= 2) last[depth] = i + 1;
      const from = keysFrom[depth]!;
      keyStart.length = from;
      keyEnd.length = from;
      keyHash.length = from;
      keySets[depth] = undefined;
      expectKey = false;
      continue;
    }
    if (c === COMMA) {
      if (depth > 0) {
        if (depth <= 2) closeValue(depth);
        if (isObject[depth - 1] === 1) expectKey = true;
        else itemIndex[depth - 1]!++;
      }
      continue;
    }
    // A number, true, false or null: one value, to the next delimiter.
    if (++values > limits.maxValues) return done({ kind: 'too-many-values', at: i });
    const start = i;
    while (i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d === COMMA || d === RBRACE || d === RBRACKET || d === SPACE || d === LF || d === CR || d === TAB || d === COLON || d === DQUOTE || d === LBRACE || d === LBRACKET) break;
      i++;
    }
    if (depth > 0 && depth <= 2) value(depth, start, i + 1);
  }
  return done();

  /** Records the key from `start` (its opening quote) to `end` (after its closing quote); a duplicate of an earlier key of its object is the problem. */
  function checkKey(start: number, end: number): JsonProblem | undefined {
    const from = keysFrom[depth - 1]!;
    const h = hashKey(text, start, end);
    const set = keySets[depth - 1];
    let firstAt = -1;
    if (set) {
      const key = keyText(text, start, end);
      if (set.has(key)) firstAt = findKey(from, key);
      else set.add(key);
    } else {
      for (let k = from; k < keyStart.length; k++) {
        if (keyHash[k] === h && keyText(text, keyStart[k]!, keyEnd[k]!) === keyText(text, start, end)) {
          firstAt = keyStart[k]!;
          break;
        }
      }
      if (firstAt < 0 && keyStart.length - from >= LINEAR_KEYS) {
        const made = new Set<string>();
        for (let k = from; k < keyStart.length; k++) made.add(keyText(text, keyStart[k]!, keyEnd[k]!));
        made.add(keyText(text, start, end));
        keySets[depth - 1] = made;
      }
    }
    if (firstAt >= 0) return { kind: 'duplicate-key', at: start, key: keyText(text, start, end), firstAt, path: pathHere() };
    keyStart.push(start);
    keyEnd.push(end);
    keyHash.push(h);
    return undefined;
  }

  /** Where the key `key` first appears among the keys of the innermost object from `from`. */
  function findKey(from: number, key: string): number {
    for (let k = from; k < keyStart.length; k++) if (keyText(text, keyStart[k]!, keyEnd[k]!) === key) return keyStart[k]!;
    return -1;
  }

  /** The path of the object being read: its keys and item indices from the top. */
  function pathHere(): PathSeg[] {
    const path: PathSeg[] = [];
    for (let d = 0; d < depth - 1; d++) {
      if (isObject[d] === 1) {
        // The key whose value holds the next level is the last key recorded at this level.
        const k = (d + 1 < depth ? keysFrom[d + 1]! : keyStart.length) - 1;
        if (k >= keysFrom[d]!) path.push(keyText(text, keyStart[k]!, keyEnd[k]!));
      } else path.push(itemIndex[d]!);
    }
    return path;
  }
}

/** Just after the closing quote of the string opening at `start`, or -1 when it never closes. */
export function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The text of the JSON string from `start` (its quote) to `end` (after its quote), escapes read. */
export function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return raw;
  }
}

/** A hash of the key from `start` (its quote) to `end` (after its quote): of its text with escapes read, so two spellings of one key hash alike. */
function hashKey(text: string, start: number, end: number): number {
  let h = 0;
  for (let i = start + 1; i < end - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) return hashString(keyText(text, start, end));
    h = (Math.imul(h, 31) + c) | 0;
  }
  return h;
}

function hashString(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
