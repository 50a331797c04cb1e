/**
 * Duplicate keys of a positioned YAML document, found in one walk. The yaml library's
 * composer can check them itself (`uniqueKeys`), but it compares each key with every
 * earlier key of its mapping: a mapping of 20,000 keys took 18 s to parse with
 * positions, 40,000 keys 83 s. The composer runs with `uniqueKeys: false` and this
 * adds the same `DUPLICATE_KEY` errors (a scalar key whose value equals an earlier
 * key's, as the composer's default compares them), each remembering the key's name,
 * where it first appeared and its field path, so that the finding made from it
 * (yaml-findings.ts) needs no second walk.
 */
import type { Document, YAMLError } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import { linkedPath, type LinkedStep } from './node-path.js';
import type { PathSeg } from './field-path.js';

/** What a duplicate-key error is about. */
export interface DuplicateKey {
  name: string;
  /** Offset of the key's first appearance in its mapping. */
  first: number;
  path: PathSeg[];
}

const INFO = new WeakMap<YAMLError, DuplicateKey>();

/** The key a DUPLICATE_KEY error of `addDuplicateKeyErrors` is about. */
export function duplicateKeyInfo(err: YAMLError): DuplicateKey | undefined {
  return INFO.get(err);
}

/** Appends a DUPLICATE_KEY error to `doc.errors` for every repeated key of every mapping of `doc`. */
export function addDuplicateKeyErrors(doc: Document.Parsed): void {
  const { isMap, isPair, isScalar, isSeq, YAMLParseError } = yamlLibrary();
  // Paths are spelled out for duplicates only.
  interface Entry extends LinkedStep {
    node: unknown;
  }
  const stack: Entry[] = [{ node: doc.contents, seg: undefined, parent: undefined }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const node = entry.node;
    if (isSeq(node)) node.items.forEach((item, i) => stack.push({ node: item, seg: i, parent: entry }));
    else if (isMap(node)) {
      const seen = new Map<unknown, number>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const seg = isScalar(key) ? String(key.value) : String(key);
        if (isScalar(key) && key.range && !Number.isNaN(key.value)) {
          const first = seen.get(key.value);
          if (first === undefined) seen.set(key.value, key.range[0]);
          else {
            const err = new YAMLParseError([key.range[0], key.range[1]], 'DUPLICATE_KEY', 'Map keys must be unique');
            INFO.set(err, { name: seg, first, path: [...linkedPath(entry), seg] });
            doc.errors.push(err);
          }
        } else if (key !== null && typeof key === 'object') stack.push({ node: key, seg: undefined, parent: entry });
        stack.push({ node: pair.value, seg, parent: entry });
      }
    }
  }
}
