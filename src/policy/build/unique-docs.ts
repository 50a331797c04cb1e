/** The documents of one kind, each name once: a repeated name is a located finding. */
import type { Collector } from '../collector.js';
import type { Kind } from '../validate/schema.js';
import type { TypedDoc } from '../validate/validate-schema.js';

/**
 * The `kind` documents in file order, without the ones whose `metadata.name` an earlier
 * one already took (each of those gets `code` at its name, with `hint`). Names are
 * checked before building, so a duplicate is reported even when the first document
 * has other errors.
 */
export function uniqueDocs(c: Collector, docs: TypedDoc[], kind: Kind, code: string, hint: string): TypedDoc[] {
  const seen = new Set<string>();
  const out: TypedDoc[] = [];
  for (const td of docs) {
    if (td.kind !== kind) continue;
    if (seen.has(td.name)) {
      c.error(td.sd, ['metadata', 'name'], code, `${kind} "${td.name}" is declared twice`, hint);
      continue;
    }
    seen.add(td.name);
    out.push(td);
  }
  return out;
}
