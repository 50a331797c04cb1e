/**
 * Quota objects of Kueue, Koordinator or Volcano → one QuotaTree document. Each format's
 * reader (kueue.ts, koordinator.ts, volcano.ts) turns objects into flat quotas and
 * reports every field it cannot carry; orderTree then checks the tree as a whole.
 */
import type { InputFile } from '../policy/source-doc.js';
import { importedName, writableText } from './imported-name.js';
import { importKoordinator } from './koordinator.js';
import { importKueue } from './kueue.js';
import { readObjects, Report } from './located-json.js';
import { orderTree, quotaTreeYaml, type LocatedQuota, type ResourceNames, type TreeQuota } from './tree-quota.js';
import { importVolcano } from './volcano.js';

export const QUOTA_FORMATS = ['kueue', 'koordinator', 'volcano'] as const;
export type QuotaFormat = (typeof QUOTA_FORMATS)[number];

/** The quotas the files describe (empty with errors in the report when they cannot be read). */
export function importQuotas(format: QuotaFormat, files: InputFile[], names: ResourceNames): { quotas: TreeQuota[]; report: Report } {
  const report = new Report();
  const objects = readObjects(files, report);
  if (report.failed) return { quotas: [], report };
  const read = format === 'kueue' ? importKueue : format === 'koordinator' ? importKoordinator : importVolcano;
  const flat = read(objects, names, report);
  if (report.failed) return { quotas: [], report };
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
    return { quotas: [], report };
  }
  for (const q of flat) safeNames(q, format, report);
  return { quotas: orderTree(flat, report), report };
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

/** The QuotaTree document of imported quotas. */
export function importedTreeYaml(name: string, pool: string, quotas: TreeQuota[], files: InputFile[]): string {
  // File names are shown escaped, as names are: the comment they go into is on stdout.
  return quotaTreeYaml(name, pool, quotas, files.map((f) => writableText(f.path)).join(', '));
}
