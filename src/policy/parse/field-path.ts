/** A field's path in a document (`spec.quotas[0].min.gpu`): its segments, and how users read it. */

/** One step of a path: a mapping key or a list index. */
export type PathSeg = string | number;

/** Formats a path as users read it: `spec.quotas[0].min.gpu`. */
export function formatPath(path: readonly PathSeg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}
