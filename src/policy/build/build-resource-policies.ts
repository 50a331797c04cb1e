/**
 * A workspace's resource policies and per-module admission settings (SEMANTICS 10,
 * docs/teams.md). Caps are built per quota: a cap without `quota` stands for one cap
 * on each of the workspace's quotas, because usage is counted per quota.
 * Checks: exactly one subject (role or user), the subject exists in the workspace, the
 * quota is associated with the workspace, ranges and quantities; one admission entry
 * per module, durations, roles, unique template names.
 */
import type { ModuleAdmission, ResourceCap, ResourceSpecTemplate, Workspace } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { parseDurationField, parseRange, parseResources } from './parse-fields.js';
import type { WorkspaceSpec } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';

type CapInput = NonNullable<WorkspaceSpec['resourcePolicies']>[number];
type AdmissionInput = NonNullable<WorkspaceSpec['admission']>[number];

/** Builds the caps of one workspace; `known` are the role names it may use. */
export function buildResourceCaps(c: Collector, sd: SourceDoc, ws: Workspace, inputs: CapInput[], known: string[]): ResourceCap[] {
  const out: ResourceCap[] = [];
  inputs.forEach((input, i) => {
    const path: PathSeg[] = ['spec', 'resourcePolicies', i];
    let ok = true;
    if ((input.role === undefined) === (input.user === undefined)) {
      c.error(
        sd,
        path,
        'policy/cap-subject',
        `resource policy ${i} of workspace "${ws.name}" must name exactly one of role or user`,
        'write `role: developer` to cap everyone of a role, or `user: alice` to cap one user',
      );
      ok = false;
    } else if (input.role !== undefined && !known.includes(input.role)) {
      c.error(
        sd,
        [...path, 'role'],
        'policy/unknown-role',
        `resource policy ${i} of workspace "${ws.name}" caps role "${input.role}", which is neither built in nor declared in spec.roles`,
        closest(input.role, known, 'role'),
      );
      ok = false;
    } else if (input.user !== undefined && !ws.members.some((m) => m.user === input.user)) {
      c.error(
        sd,
        [...path, 'user'],
        'policy/unknown-user',
        `resource policy ${i} of workspace "${ws.name}" caps user "${input.user}", who is not a member or guest of it`,
        closest(
          input.user,
          ws.members.map((m) => m.user),
          'user',
        ),
      );
      ok = false;
    }
    if (input.quota !== undefined && !ws.quotas.includes(input.quota)) {
      c.error(
        sd,
        [...path, 'quota'],
        'policy/cap-quota-not-in-workspace',
        `resource policy ${i} of workspace "${ws.name}" caps quota "${input.quota}", which the workspace is not associated with`,
        `use one of ${ws.quotas.join(', ')}`,
      );
      ok = false;
    }
    const priority = input.priority === undefined ? { lo: 1, hi: 9 } : parseRange(c, sd, [...path, 'priority'], input.priority);
    const max = parseResources(c, sd, [...path, 'max'], input.max);
    if (!ok || !priority || !max) return;
    const subject = input.role !== undefined ? { role: input.role } : { user: input.user! };
    for (const quota of input.quota !== undefined ? [input.quota] : ws.quotas) {
      out.push({ workspace: ws.name, index: i, subject, quota, priority, max, src: sourceAt(sd, path) });
    }
  });
  return out;
}

/** Builds the per-module admission settings of one workspace. */
export function buildAdmission(c: Collector, sd: SourceDoc, ws: Workspace, inputs: AdmissionInput[], known: string[]): ModuleAdmission[] {
  const out: ModuleAdmission[] = [];
  inputs.forEach((input, i) => {
    const path: PathSeg[] = ['spec', 'admission', i];
    if (out.some((a) => a.module === input.module) || inputs.slice(0, i).some((a) => a.module === input.module)) {
      c.error(sd, [...path, 'module'], 'policy/duplicate-admission', `workspace "${ws.name}" gives admission settings for ${input.module} twice`, 'merge the two entries into one');
      return;
    }
    let ok = true;
    const maxRuntime = input.maxRuntime === undefined ? undefined : parseDurationField(c, sd, [...path, 'maxRuntime'], input.maxRuntime);
    if (input.maxRuntime !== undefined && maxRuntime === undefined) ok = false;
    const priorities: ModuleAdmission['priorities'] = [];
    (input.priorities ?? []).forEach((p, pi) => {
      const pPath: PathSeg[] = [...path, 'priorities', pi];
      if (!known.includes(p.role)) {
        c.error(
          sd,
          [...pPath, 'role'],
          'policy/unknown-role',
          `admission for ${input.module} in workspace "${ws.name}" names role "${p.role}", which is neither built in nor declared in spec.roles`,
          closest(p.role, known, 'role'),
        );
        ok = false;
        return;
      }
      if (priorities.some((q) => q.role === p.role)) {
        c.error(sd, [...pPath, 'role'], 'policy/duplicate-role', `admission for ${input.module} in workspace "${ws.name}" gives role "${p.role}" two priority ranges`, 'give each role one range');
        ok = false;
        return;
      }
      const range = parseRange(c, sd, [...pPath, 'priority'], p.priority);
      if (!range) ok = false;
      else priorities.push({ role: p.role, priority: range, src: sourceAt(sd, pPath) });
    });
    const specs: ResourceSpecTemplate[] = [];
    (input.resourceSpecs ?? []).forEach((t, ti) => {
      const tPath: PathSeg[] = [...path, 'resourceSpecs', ti];
      if (specs.some((s) => s.name === t.name)) {
        c.error(
          sd,
          [...tPath, 'name'],
          'policy/duplicate-spec',
          `resource specification "${t.name}" is listed twice for ${input.module} in workspace "${ws.name}"`,
          'template names are unique per module',
        );
        ok = false;
        return;
      }
      const resources = parseResources(c, sd, tPath, t);
      if (!resources) ok = false;
      else specs.push({ name: t.name, resources });
    });
    if (!ok) return;
    out.push({
      workspace: ws.name,
      module: input.module,
      maxRuntime,
      maxRuntimeSrc: input.maxRuntime === undefined ? undefined : sourceAt(sd, [...path, 'maxRuntime']),
      priorities,
      resourceSpecs: specs,
      resourceSpecsSrc: input.resourceSpecs ? sourceAt(sd, [...path, 'resourceSpecs']) : undefined,
      src: sourceAt(sd, path),
    });
  });
  return out;
}
