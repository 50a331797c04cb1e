/**
 * Quota objects of Kueue, Koordinator or Volcano → one QuotaTree document. Each format's
 * reader (kueue.ts, koordinator.ts, volcano.ts) turns objects into flat quotas and
 * reports every field it cannot carry; orderTree then checks the tree as a whole.
 */
import type { InputFile } from '../policy/parse/source-doc.js';
import { importedName, writableText } from './imported-name.js';
import { importKoordinator } from './koordinator.js';
import { importKueue } from './kueue.js';
import { readLocalQueues, workspacesOfLocalQueues, type ImportedWorkspace } from './kueue-local-queues.js';
import { readObjects, Report } from './located-json.js';
import { orderTree, quotaTreeYaml, type LocatedQuota, type ResourceNames, type TreeQuota } from './tree-quota.js';
import { workspacesYaml } from './write-workspaces.js';
import { importVolcano } from './volcano.js';

export const QUOTA_FORMATS = ['kueue', 'koordinator', 'volcano'] as const;
export type QuotaFormat = (typeof QUOTA_FORMATS)[number];

/** What an import of quota objects gives: the tree, and (Kueue's LocalQueues) a Workspace per namespace. */
export interface QuotasImport {
  quotas: TreeQuota[];
  workspaces: ImportedWorkspace[];
  report: Report;
}

/** The quotas the files describe (empty with errors in the report when they cannot be read). */
export function importQuotas(format: QuotaFormat, files: InputFile[], names: ResourceNames): QuotasImport {
  const report = new Report();
  const none = (): QuotasImport => ({ quotas: [], workspaces: [], report });
  const objects = readObjects(files, report);
  if (report.failed) return none();
  const read = format === 'kueue' ? importKueue : format === 'koordinator' ? importKoordinator : importVolcano;
  const flat = read(objects, names, report);
  if (report.failed) return none();
  if (flat.length === 0) {
    const first = files[0];
    report.findings.push({
      file: first?.path ?? '',
      line: 1,
      column: 1,
      code: 'interop/no-quotas',
      severity: 'error',
      path: '',
      message: `no ${format} quota objects in the input`,
      hint: format === 'kueue' ? 'give ClusterQueue and Cohort objects' : format === 'koordinator' ? 'give ElasticQuota objects' : 'give Queue objects',
    });
    return none();
  }
  for (const q of flat) safeNames(q, format, report);
  const quotas = orderTree(flat, report);
  if (report.failed || format !== 'kueue') return { quotas, workspaces: [], report };
  // A LocalQueue names its ClusterQueue by object name; the Workspace names the quota as imported.
  const byObject = new Map(flat.map((q) => [q.objectName ?? q.name, q.name]));
  const parents = new Set(flat.map((q) => q.parent));
  const leaves = new Set(flat.filter((q) => !parents.has(q.name)).map((q) => q.name));
  const workspaces = workspacesOfLocalQueues(readLocalQueues(objects, report), (cq) => (leaves.has(byObject.get(cq) ?? '') ? byObject.get(cq) : undefined), report);
  return report.failed ? none() : { quotas, workspaces, report };
}

/**
 * A quota's name and its parent's, as a policy may hold them (imported-name.ts: each
 * character a name may not hold written as its escape), so that the tree written checks
 * clean; a rewritten name is a located warning at its object. The parent is rewritten by
 * the same rule, so it still names its quota.
 */
function safeNames(q: LocatedQuota, format: QuotaFormat, report: Report): void {
  const name = importedName(q.name);
  if (name.rewritten) {
    report.warn(q.sd, q.path, 'interop/unsafe-name', `${format} quota "${name.name}": ${name.rewritten}`, 'rename the object (or its quotient.dev/name annotation), or keep the escaped name');
    q.name = name.name;
  }
  if (q.parent !== null) q.parent = importedName(q.parent).name;
}

/** The QuotaTree document of imported quotas, then the Workspace documents (Kueue's namespaces). */
export function importedTreeYaml(name: string, pool: string, quotas: TreeQuota[], files: InputFile[], workspaces: ImportedWorkspace[] = []): string {
  // File names are shown escaped, as names are: the comment they go into is on stdout.
  const tree = quotaTreeYaml(name, pool, quotas, files.map((f) => writableText(f.path)).join(', '));
  return workspaces.length ? `${tree}---\n${workspacesYaml(workspaces)}` : tree;
}
