/**
 * The field path of a node of a positioned YAML document, read from the ancestors the
 * yaml library's `visit` hands each visitor: findings made while walking the syntax tree
 * (a duplicate key, a recursive alias) name the field as the schema's findings do.
 */
import type { Document, Node as YamlNode, Pair } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import type { PathSeg } from './field-path.js';

/** The field path of `node`, read from its ancestors (a pair gives its key, a list the item's index). */
export function pathTo(ancestors: readonly (Document | YamlNode | Pair)[], node: YamlNode): PathSeg[] {
  const { isPair, isScalar, isSeq } = yamlLibrary();
  const path: PathSeg[] = [];
  for (let i = 0; i < ancestors.length; i++) {
    const at = ancestors[i];
    const child = i + 1 < ancestors.length ? ancestors[i + 1] : node;
    if (isSeq(at)) path.push(at.items.indexOf(child));
    else if (isPair(at)) path.push(isScalar(at.key) ? String(at.key.value) : String(at.key));
  }
  return path;
}

/**
 * One step of a walk over a document with an explicit stack, linked to its parent
 * instead of carrying a copy of its path: a document of hundreds of thousands of values
 * spells a path out only for the few a finding is about (`linkedPath`).
 */
export interface LinkedStep {
  seg: PathSeg | undefined;
  parent: LinkedStep | undefined;
}

/** The path from the walk's root to `step` (a step without a segment ends it). */
export function linkedPath(step: LinkedStep | undefined): PathSeg[] {
  const segs: PathSeg[] = [];
  for (let at = step; at && at.seg !== undefined; at = at.parent) segs.push(at.seg);
  return segs.reverse();
}
