/**
 * `quotient import kueue` (the default, `--rules kueue`): Kueue's objects as a QuotaTree
 * that follows Kueue's rules (kueue-rules.ts writes it, every clause as Kueue wrote it)
 * and a Workspace per namespace of the LocalQueues. The objects are first read by the
 * PAI-rules reader (kueue.ts) for its located errors only — a quantity that is not one,
 * the other API version's field, a cohort cycle — so that a bad input fails here, at its
 * line, and not later in `quotient check`. That reader's warnings say what PAI's rules
 * approximate; they do not apply to a Kueue-rules tree and are not shown.
 */
import type { InputFile } from '../policy/parse/source-doc.js';
import { importQuotas } from './import-quotas.js';
import { kueueQuotaNames, kueueRulesTreeYaml } from './kueue-rules.js';
import { readLocalQueues, workspacesOfLocalQueues, type ImportedWorkspace } from './kueue-local-queues.js';
import { readObjects, Report } from './located-json.js';
import { workspacesYaml } from './write-workspaces.js';

const KNOWN_KINDS = ['ClusterQueue', 'Cohort', 'ResourceFlavor', 'LocalQueue', 'WorkloadPriorityClass'];

export interface KueueRulesImport {
  /** The QuotaTree then the Workspaces, as YAML documents; undefined when the input failed. */
  yaml?: string;
  clusterQueues: number;
  workspaces: ImportedWorkspace[];
  report: Report;
}

/** Kueue's objects in `files` → a `rules: kueue` QuotaTree named `tree` on pool `pool`, and its Workspaces. */
export function importKueueRules(files: InputFile[], tree: string, pool: string, gpu: string, runtimeDefault?: string): KueueRulesImport {
  const strict = importQuotas('kueue', files, { gpu });
  const report = new Report();
  const none = (): KueueRulesImport => ({ clusterQueues: 0, workspaces: [], report });
  if (strict.report.failed) {
    report.findings.push(...strict.report.findings.filter((f) => f.severity === 'error'));
    return none();
  }
  const objects = readObjects(files, report);
  for (const o of objects) {
    // Nothing is dropped unsaid: another group's object, or a Kueue kind no answer reads.
    if (!o.apiVersion.startsWith('kueue.x-k8s.io/'))
      report.warn(
        o.sd,
        [...o.path, 'apiVersion'],
        'interop/skipped-object',
        `${o.kind} ${o.name} (${o.apiVersion || 'no apiVersion'}) is not a Kueue object; it is skipped`,
        'kueue objects have apiVersion kueue.x-k8s.io/v1beta1 or v1beta2',
      );
    else if (!KNOWN_KINDS.includes(o.kind))
      report.warn(
        o.sd,
        [...o.path, 'kind'],
        'interop/skipped-object',
        `${o.kind} ${o.name} is not read (ClusterQueue, Cohort, ResourceFlavor, LocalQueue and WorkloadPriorityClass are)`,
        "Workloads are the Cluster's jobs: quotient import kubectl --kueue reads them",
      );
  }
  const yaml = kueueRulesTreeYaml(objects, tree, pool, report, runtimeDefault);
  if (yaml === undefined || report.failed) return none();
  // A LocalQueue names its ClusterQueue by object name; the Workspace names the quota as the tree does (kueue-rules.ts).
  const names = kueueQuotaNames(objects);
  const cqs = new Set(objects.filter((o) => o.apiVersion.startsWith('kueue.x-k8s.io/') && o.kind === 'ClusterQueue').map((o) => o.name));
  const workspaces = workspacesOfLocalQueues(readLocalQueues(objects, report), (cq) => (cqs.has(cq) ? names.get(cq) : undefined), report);
  if (report.failed) return none();
  return { yaml: workspaces.length ? `${yaml}---\n${workspacesYaml(workspaces)}` : yaml, clusterQueues: cqs.size, workspaces, report };
}
