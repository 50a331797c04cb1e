/**
 * Workspace documents an import writes (Kueue's namespaces, kueue-local-queues.ts), each
 * with a comment saying which LocalQueues made it. Names go through importedName, as the
 * quotas' do, so that the documents check clean.
 */
import { Document } from 'yaml';
import { API_VERSION } from '../policy/validate/schema.js';
import { importedName, writableText } from './imported-name.js';
import type { ImportedWorkspace } from './kueue-local-queues.js';

/** The Workspaces as YAML documents separated by `---`. */
export function workspacesYaml(workspaces: ImportedWorkspace[]): string {
  return workspaces
    .map((w) => {
      const doc = new Document({ apiVersion: API_VERSION, kind: 'Workspace', metadata: { name: importedName(w.name).name }, spec: { quotas: w.quotas } });
      doc.commentBefore = w.notes.map((n) => ` ${writableText(n)}`).join('\n');
      return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
    })
    .join('---\n');
}
