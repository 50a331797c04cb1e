/** Workspace documents → workspaces. Checks: duplicate names, unknown quotas. */
import { MODULES, type Quota, type Workspace } from '../model/policy.js';
import type { Collector } from './collector.js';
import type { WorkspaceSpec } from './schema.js';
import { sourceAt } from './source-doc.js';
import type { TypedDoc } from './validate-schema.js';
import { closest } from './suggest.js';

/** Builds every Workspace document, checking its quotas exist. */
export function buildWorkspaces(c: Collector, docs: TypedDoc[], quotas: Quota[]): Workspace[] {
  const out: Workspace[] = [];
  const quotaNames = quotas.map((q) => q.name);
  for (const td of docs) {
    if (td.kind !== 'Workspace') continue;
    const spec = td.spec as WorkspaceSpec;
    if (out.some((w) => w.name === td.name)) {
      c.error(td.sd, ['metadata', 'name'], 'policy/duplicate-workspace', `workspace "${td.name}" is declared twice`, 'workspace names are unique; rename or merge them');
      continue;
    }
    spec.quotas.forEach((q, i) => {
      if (!quotaNames.includes(q)) {
        c.error(td.sd, ['spec', 'quotas', i], 'policy/unknown-quota', `workspace "${td.name}" names quota "${q}", which no QuotaTree declares`, closest(q, quotaNames, 'quota'));
      }
    });
    const seen = new Set<string>();
    (spec.members ?? []).forEach((m, i) => {
      if (seen.has(m.user)) c.error(td.sd, ['spec', 'members', i, 'user'], 'policy/duplicate-member', `user "${m.user}" is listed twice in workspace "${td.name}"`, 'give each member one role');
      seen.add(m.user);
    });
    out.push({
      name: td.name,
      quotas: [...new Set(spec.quotas)],
      modules: spec.modules ? [...new Set(spec.modules)] : [...MODULES],
      members: spec.members ?? [],
      src: sourceAt(td.sd, []),
    });
  }
  return out;
}
