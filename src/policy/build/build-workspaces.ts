/**
 * Workspace documents → workspaces. Checks: duplicate names, unknown quotas, custom
 * roles (declared once, never shadowing a built-in role), members and guests (each user
 * once, with a known role), and, through build-resource-policies.ts, the workspace's
 * resource caps and per-module admission settings. Quotas' `allowedRoles` are checked
 * here too: they can only be resolved once every workspace has declared its roles.
 */
import { BUILTIN_ROLES, MODULES, type Member, type Quota, type Workspace } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { uniqueDocs } from './unique-docs.js';
import { buildAdmission, buildResourceCaps } from './build-resource-policies.js';
import type { WorkspaceSpec } from '../validate/schema.js';
import { sourceAt, type SourceDoc } from '../parse/source-doc.js';
import type { TypedDoc } from '../validate/validate-schema.js';
import { closest } from '../validate/suggest.js';

/** Builds every Workspace document, checking its quotas, roles, members and policies. */
export function buildWorkspaces(c: Collector, docs: TypedDoc[], quotas: Quota[]): Workspace[] {
  const out: Workspace[] = [];
  const quotaNames = quotas.map((q) => q.name);
  // A set for the membership test: 100 workspaces naming quotas of a 1,011-quota tree made
  // `includes` about a million string comparisons (B7), and only a miss needs the list.
  const declared = new Set(quotaNames);
  for (const td of uniqueDocs(c, docs, 'Workspace', 'policy/duplicate-workspace', 'workspace names are unique; rename or merge them')) {
    const spec = td.spec as WorkspaceSpec;
    spec.quotas.forEach((q, i) => {
      if (!declared.has(q)) {
        c.error(td.sd, ['spec', 'quotas', i], 'policy/unknown-quota', `workspace "${td.name}" names quota "${q}", which no QuotaTree declares`, closest(q, quotaNames, 'quota'));
      }
    });
    const roles = buildRoles(c, td.sd, td.name, spec.roles ?? []);
    const known = [...BUILTIN_ROLES, ...roles];
    const members = buildMembers(c, td.sd, td.name, spec, known);
    const ws: Workspace = {
      name: td.name,
      quotas: [...new Set(spec.quotas)],
      modules: spec.modules ? [...new Set(spec.modules)] : [...MODULES],
      members,
      roles,
      resourcePolicies: [],
      admission: [],
      src: sourceAt(td.sd, []),
      membersSrc: sourceAt(td.sd, spec.members ? ['spec', 'members'] : []),
      quotasSrc: sourceAt(td.sd, ['spec', 'quotas']),
      modulesSrc: sourceAt(td.sd, spec.modules ? ['spec', 'modules'] : []),
    };
    ws.resourcePolicies = buildResourceCaps(c, td.sd, ws, spec.resourcePolicies ?? [], known);
    ws.admission = buildAdmission(c, td.sd, ws, spec.admission ?? [], known);
    out.push(ws);
  }
  checkQuotaRoles(c, quotas, out);
  return out;
}

/** Custom roles: unique, and not a built-in role's name. */
function buildRoles(c: Collector, sd: SourceDoc, ws: string, roles: string[]): string[] {
  const out: string[] = [];
  roles.forEach((r, i) => {
    if ((BUILTIN_ROLES as readonly string[]).includes(r)) {
      c.error(
        sd,
        ['spec', 'roles', i],
        'policy/duplicate-role',
        `custom role "${r}" of workspace "${ws}" has the name of a built-in role`,
        `admin, developer and operator exist already; remove "${r}" from roles or give the custom role another name`,
      );
    } else if (out.includes(r)) {
      c.error(sd, ['spec', 'roles', i], 'policy/duplicate-role', `role "${r}" is declared twice in workspace "${ws}"`, 'declare each custom role once');
    } else out.push(r);
  });
  return out;
}

/** Members, then guests (non-workspace members granted access): one entry per user, known roles. */
function buildMembers(c: Collector, sd: SourceDoc, ws: string, spec: WorkspaceSpec, known: string[]): Member[] {
  const out: Member[] = [];
  const lists = [
    ['members', spec.members ?? [], false],
    ['guests', spec.guests ?? [], true],
  ] as const;
  for (const [field, list, guest] of lists) {
    list.forEach((m, i) => {
      if (out.some((o) => o.user === m.user)) {
        c.error(
          sd,
          ['spec', field, i, 'user'],
          'policy/duplicate-member',
          `user "${m.user}" is listed twice in workspace "${ws}" (members and guests together)`,
          'give each user one entry and one role',
        );
        return;
      }
      if (!known.includes(m.role)) {
        c.error(
          sd,
          ['spec', field, i, 'role'],
          'policy/unknown-role',
          `role "${m.role}" of user "${m.user}" is neither a built-in role nor declared in workspace "${ws}"'s roles`,
          `use admin, developer or operator, or add "${m.role}" to spec.roles`,
        );
      }
      out.push({ user: m.user, role: m.role, guest, src: sourceAt(sd, ['spec', field, i]) });
    });
  }
  return out;
}

/** A quota's `allowedRoles` must name built-in roles or roles some workspace declares. */
function checkQuotaRoles(c: Collector, quotas: Quota[], workspaces: Workspace[]): void {
  const declared = new Set<string>([...BUILTIN_ROLES, ...workspaces.flatMap((w) => w.roles)]);
  for (const q of quotas) {
    for (const { value: r, src } of q.allowedRoles?.items ?? []) {
      if (!declared.has(r)) {
        c.errorAt(src, 'policy/unknown-role', `quota "${q.name}" allows role "${r}", which is neither built in nor declared by any workspace`, closest(r, [...declared], 'role'));
      }
    }
  }
}
