/**
 * Where each quota, workspace and pool name of a policy is declared and referenced, by
 * field: the answer to go-to-definition, find-references and rename. A declaration is
 * the field that names the object (a quota's `name` in the QuotaTree, a Workspace's
 * `metadata.name`, the pool's `name`); a reference is a field whose value must be such a
 * name (`quota:`, a Workspace's `quotas:`, `workspace:`, `pool:`, a ScaleQuota's `set` keys).
 */
import { isScalar } from 'yaml';
import { eachScalar, fieldsOf, parseYamlDocs, type Seg } from './yaml-tree.js';

export type NameKind = 'quota' | 'workspace' | 'pool';

export interface NameSite {
  kind: NameKind;
  name: string;
  declaration: boolean;
  /** The file's display path (as findings name it). */
  file: string;
  /** The scalar's span in the file, quotes included. */
  start: number;
  end: number;
  /** Its field path in the document. */
  path: Seg[];
}

/** The kind of name a field holds, and whether it declares it; undefined for other fields. */
export function nameField(docKind: string | undefined, path: readonly Seg[], isKey: boolean): { kind: NameKind; declaration: boolean } | undefined {
  const fields = fieldsOf(path);
  const last = path.filter((s) => typeof s === 'string').at(-1);
  if (isKey) return docKind === 'ScaleQuota' && fields.startsWith('spec.set.') && path.length === 3 ? { kind: 'quota', declaration: false } : undefined;
  if (docKind === 'QuotaTree' && /^spec\.quotas(\.children)*\.name$/.test(fields)) return { kind: 'quota', declaration: true };
  if (docKind === 'QuotaTree' && (fields === 'spec.pool.name' || fields === 'spec.pools.name')) return { kind: 'pool', declaration: true };
  if (docKind === 'Workspace' && fields === 'metadata.name') return { kind: 'workspace', declaration: true };
  if (last === 'quota' || (last === 'quotas' && typeof path.at(-1) === 'number')) return { kind: 'quota', declaration: false };
  if (last === 'workspace' || (last === 'workspaces' && typeof path.at(-1) === 'number')) return { kind: 'workspace', declaration: false };
  if (last === 'pool' && !fields.startsWith('spec.pool')) return { kind: 'pool', declaration: false };
  return undefined;
}

/** A file's parsed sites, kept while its text is unchanged (a large Cluster is parsed once). */
const memo = new Map<string, { text: string; sites: NameSite[] }>();

/** The name sites of one file. */
export function fileNameSites(file: string, text: string): NameSite[] {
  const kept = memo.get(file);
  if (kept && kept.text === text) return kept.sites;
  const sites: NameSite[] = [];
  for (const d of parseYamlDocs(text))
    eachScalar(d.doc.contents, [], (node, path, isKey) => {
      if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return;
      const field = nameField(d.kind, path, isKey);
      if (field) sites.push({ ...field, name: node.value, file, start: node.range[0], end: node.range[1], path });
    });
  memo.set(file, { text, sites });
  return sites;
}

/**
 * The name sites of every file of a policy. `declarationsOnly`: only files that can declare
 * a name (a QuotaTree's or a Workspace's), so completing a name never parses a large Cluster.
 */
export function policyNameSites(files: ReadonlyArray<{ path: string; text: string }>, declarationsOnly = false): NameSite[] {
  return files.flatMap((f) => (declarationsOnly && !/\b(QuotaTree|Workspace)\b/.test(f.text) ? [] : fileNameSites(f.path, f.text)));
}
