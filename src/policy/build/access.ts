/**
 * Who may submit what where (SEMANTICS 10, docs/teams.md): the workspace must be
 * associated with the quota and allow the module (build-job.ts `workspaceRefusal`); the
 * submitting user, when the job names one, must be a member or guest of the workspace;
 * the quota's own `allowedModules` and `allowedRoles` must admit the job. The same
 * refusal is a located error for a running job and a `reject` answer for a submission.
 */
import { nearest } from '../validate/suggest.js';
import type { JobSpec, Member, Quota, Workspace } from '../../model/policy.js';
import type { Source } from '../../model/source.js';
import { workspaceRefusal } from './build-job.js';

/** Why a job may not run, with the rule it breaks and where that rule is written. */
export interface AccessRefusal {
  code: string;
  /** The job field the finding points at. */
  field: 'quota' | 'module' | 'submittedBy';
  /** e.g. `workspace-b/members`, `Quota1.1/allowedRoles`. */
  rule: string;
  src: Source;
  message: string;
  hint: string;
}

/** The member or guest entry of `user` in `ws`, if any. */
export function memberOf(ws: Workspace, user: string | undefined): Member | undefined {
  return user === undefined ? undefined : ws.members.find((m) => m.user === user);
}

/** The first rule of SEMANTICS 10 the job breaks, or undefined when it may run. */
export function accessRefusal(job: Pick<JobSpec, 'name' | 'workspace' | 'quota' | 'module' | 'submittedBy'>, ws: Workspace, quota: Quota): AccessRefusal | undefined {
  const base = workspaceRefusal(job, ws);
  if (base) return { ...base, rule: `${ws.name}/${base.field === 'quota' ? 'quotas' : 'modules'}`, src: base.field === 'quota' ? ws.quotasSrc : ws.modulesSrc };
  const member = memberOf(ws, job.submittedBy);
  if (job.submittedBy !== undefined && !member) {
    return {
      code: 'policy/not-a-member',
      field: 'submittedBy',
      rule: `${ws.name}/members`,
      src: ws.membersSrc,
      message: `user "${job.submittedBy}" is neither a member nor a guest of workspace "${ws.name}"`,
      hint: (() => {
        const typo = nearest(
          job.submittedBy,
          ws.members.map((m) => m.user),
        );
        return typo ? `did you mean user "${typo}"?` : `submit from a workspace ${job.submittedBy} belongs to, or add them to ${ws.name}'s members or guests`;
      })(),
    };
  }
  const am = quota.allowedModules;
  if (am && !am.values.includes(job.module)) {
    return {
      code: 'policy/quota-module-not-allowed',
      field: 'module',
      rule: `${quota.name}/allowedModules`,
      src: am.src,
      message: `quota "${quota.name}" allows only modules ${am.values.join(', ')}, not ${job.module}`,
      hint: `use one of ${am.values.join(', ')}, or add ${job.module} to ${quota.name}'s allowedModules`,
    };
  }
  const ar = quota.allowedRoles;
  if (ar && member && !ar.values.includes(member.role)) {
    return {
      code: 'policy/quota-role-not-allowed',
      field: 'submittedBy',
      rule: `${quota.name}/allowedRoles`,
      src: ar.src,
      message: `quota "${quota.name}" allows only roles ${ar.values.join(', ')}, and "${job.submittedBy}" is ${member.guest ? 'a guest' : 'a member'} of ${ws.name} with role ${member.role}`,
      hint: `ask a user with role ${ar.values.join(' or ')} to submit, or add ${member.role} to ${quota.name}'s allowedRoles`,
    };
  }
  return undefined;
}
