/**
 * A trie over sequences of primitive values (numbers, strings, symbols as markers),
 * walked one value at a time: a cache keyed by a sequence without building a string for it. The eligibility
 * tables name each row by the rules that pass and the facts they read, and each table by
 * its rows (eligibility-table.ts); B7 looks ~73,000 rows up, where joining and hashing a
 * fresh string per lookup cost more than the rows themselves.
 *
 * Two sequences reach the same node exactly when they are equal element by element
 * under SameValueZero (Map's equality): the callers must make each sequence parse one way
 * (e.g. a terminator between a variable-length part and what follows).
 */
export interface TrieNode<T> {
  next?: Map<unknown, TrieNode<T>>;
  value?: T;
}

/** The child of `node` under `key`, made empty when absent. */
export function trieStep<T>(node: TrieNode<T>, key: unknown): TrieNode<T> {
  const next = (node.next ??= new Map<unknown, TrieNode<T>>());
  let child = next.get(key);
  if (!child) {
    child = {};
    next.set(key, child);
  }
  return child;
}
