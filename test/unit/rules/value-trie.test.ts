import { describe, expect, it } from 'vitest';
import { trieStep, type TrieNode } from '../../../src/rules/value-trie.js';

describe('trieStep', () => {
  const walk = (root: TrieNode<string>, keys: unknown[]) => keys.reduce<TrieNode<string>>((n, k) => trieStep(n, k), root);

  it('reaches one node for equal sequences and another for any difference', () => {
    const root: TrieNode<string> = {};
    walk(root, [1, 'a', true]).value = 'x';
    expect(walk(root, [1, 'a', true]).value).toBe('x');
    expect(walk(root, [1, 'a', false]).value).toBeUndefined();
    expect(walk(root, ['1', 'a', true]).value).toBeUndefined();
  });

  it('compares values as Map does (SameValueZero): 0 and -0 meet, NaN meets NaN', () => {
    const root: TrieNode<number> = {};
    trieStep(root, 0).value = 1;
    expect(trieStep(root, -0).value).toBe(1);
    trieStep(root, Number.NaN).value = 2;
    expect(trieStep(root, Number.NaN).value).toBe(2);
  });
});
