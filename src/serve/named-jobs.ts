/**
 * The running jobs a policy's files name, read leniently (any document that parses,
 * whatever else is wrong): a broken edit's findings may name jobs the last good version
 * does not have, and a caller who may not see them must not read their names either.
 */
import { parseAllDocuments } from 'yaml';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { NamedJob } from './engine-messages.js';

/** Every `spec.jobs[].name` and `spec.queue[].name` of the Cluster documents of `files` that can be read, with its workspace and quota ('' when unreadable) and where its entry is. */
export function namedJobs(files: readonly InputFile[]): NamedJob[] {
  const out: NamedJob[] = [];
  for (const f of files) {
    let docs: ReturnType<typeof parseAllDocuments>;
    try {
      docs = parseAllDocuments(f.text, { uniqueKeys: false });
    } catch {
      continue;
    }
    for (const d of Array.isArray(docs) ? docs : []) {
      let v: unknown;
      try {
        v = d.toJS({ maxAliasCount: 100 });
      } catch {
        continue;
      }
      const doc = v as { kind?: unknown; spec?: { jobs?: unknown; queue?: unknown } } | null;
      if (!doc || doc.kind !== 'Cluster' || !doc.spec) continue;
      for (const list of ['jobs', 'queue'] as const) {
        const entries = doc.spec[list];
        if (!Array.isArray(entries)) continue;
        for (const [i, j] of (entries as unknown[]).entries()) {
          const job = j as { name?: unknown; workspace?: unknown; quota?: unknown } | null;
          if (job && typeof job.name === 'string' && job.name !== '')
            out.push({
              name: job.name,
              workspace: typeof job.workspace === 'string' ? job.workspace : '',
              quota: typeof job.quota === 'string' ? job.quota : '',
              at: { file: f.path, path: `spec.${list}[${i}]` },
            });
        }
      }
    }
  }
  return out;
}
