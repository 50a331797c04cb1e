/**
 * Bad input to the team fields (issue 4: roles, members and guests, quota
 * allowedModules / allowedRoles, resource policies, per-module admission, submittedBy,
 * maxRuntime, ScaleQuota): each case is a variant of a valid base policy, with `«`
 * right before the token the finding must point at. Cases match code and location.
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';
import type { Finding } from '../../../src/errors.js';
import { clusterDoc, policyDoc, policyText, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const FILE = 'teams.yaml';

const BASE = policyText(
  quotaTreeDoc(
    rootQuotaEntry(
      16,
      `        - name: A
          min: { gpu: 8 }
          allowedRoles: [admin, developer]
        - name: B
          min: { gpu: 8 }
          allowedModules: [DLC]
`,
    ),
  ),
  workspaceDoc(['A', 'B'], {
    more: `  roles: [labeler]
  members:
    - { user: ann, role: admin }
    - { user: dan, role: developer }
  guests:
    - { user: gus, role: labeler }
  resourcePolicies:
    - { role: developer, quota: A, priority: 1-6, max: { gpu: 8 } }
  admission:
    - module: DLC
      maxRuntime: 24h
      priorities:
        - { role: developer, priority: 1-6 }
      resourceSpecs:
        - { name: one, gpu: 1 }
        - { name: four, gpu: 4 }
`,
  }),
  clusterDoc(`  nodes:
    - { name: n-0, gpus: 8, pool: p }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - name: j1
      workspace: ws
      submittedBy: dan
      quota: A
      module: DLC
      priority: 5
      pods: 1
      resources: { gpu: 4 }
`),
  policyDoc('ScaleQuota', 's', '  set: { A: 10, B: 6 }\n'),
);

const { variant, load } = markedPolicy(BASE, FILE);

const cases: Array<{ name: string; yaml: string; code: string; path?: string }> = [
  { name: 'a member with an undeclared role', yaml: variant(['{ user: ann, role: admin }', '{ user: ann, role: «admn }']), code: 'policy/unknown-role', path: 'spec.members[0].role' },
  { name: 'a guest who is also a member', yaml: variant(['{ user: gus, role: labeler }', '{ user: «dan, role: labeler }']), code: 'policy/duplicate-member', path: 'spec.guests[0].user' },
  { name: 'a custom role with a built-in name', yaml: variant(['roles: [labeler]', 'roles: [labeler, «admin]']), code: 'policy/duplicate-role', path: 'spec.roles[1]' },
  { name: 'a custom role declared twice', yaml: variant(['roles: [labeler]', 'roles: [labeler, «labeler]']), code: 'policy/duplicate-role' },
  {
    name: "a quota's allowedRoles naming an unknown role",
    yaml: variant(['allowedRoles: [admin, developer]', 'allowedRoles: [admin, developer, «dev]']),
    code: 'policy/unknown-role',
    path: 'spec.quotas[0].children[0].allowedRoles[2]',
  },
  { name: "a quota's allowedModules naming an unknown module", yaml: variant(['allowedModules: [DLC]', 'allowedModules: [«PAI]']), code: 'policy/unknown-module' },
  { name: 'an empty allowedRoles', yaml: variant(['allowedRoles: [admin, developer]', 'allowedRoles: «[]']), code: 'policy/empty' },
  {
    name: 'a resource policy with both role and user',
    yaml: variant(['    - { role: developer, quota: A', '    - «{ user: dan, role: developer, quota: A']),
    code: 'policy/cap-subject',
    path: 'spec.resourcePolicies[0]',
  },
  { name: 'a resource policy with neither role nor user', yaml: variant(['    - { role: developer, quota: A', '    - «{ quota: A']), code: 'policy/cap-subject' },
  {
    name: 'a resource policy for a user outside the workspace',
    yaml: variant(['    - { role: developer, quota: A', '    - { user: «zed, quota: A']),
    code: 'policy/unknown-user',
    path: 'spec.resourcePolicies[0].user',
  },
  { name: 'a resource policy for an unknown role', yaml: variant(['    - { role: developer, quota: A', '    - { role: «intern, quota: A']), code: 'policy/unknown-role' },
  {
    name: 'a resource policy on a quota the workspace lacks',
    yaml: variant(['quota: A, priority: 1-6', 'quota: «Root, priority: 1-6']),
    code: 'policy/cap-quota-not-in-workspace',
    path: 'spec.resourcePolicies[0].quota',
  },
  { name: 'a resource policy with a reversed priority range', yaml: variant(['quota: A, priority: 1-6', 'quota: A, priority: «6-1']), code: 'policy/reversed-range' },
  { name: 'a misspelt resource policy field', yaml: variant(['priority: 1-6, max', '«prioritee: 1-6, max']), code: 'policy/unknown-field', path: 'spec.resourcePolicies[0].prioritee' },
  { name: 'a resource policy cap with a bad memory quantity', yaml: variant(['max: { gpu: 8 } }', 'max: { gpu: 8, memory: «lots } }']), code: 'policy/bad-quantity' },
  {
    name: 'admission settings for one module twice',
    yaml: variant(['        - { name: four, gpu: 4 }\n', '        - { name: four, gpu: 4 }\n    - module: «DLC\n']),
    code: 'policy/duplicate-admission',
    path: 'spec.admission[1].module',
  },
  { name: 'an admission maxRuntime that is not a duration', yaml: variant(['maxRuntime: 24h', 'maxRuntime: «a-day']), code: 'policy/bad-duration', path: 'spec.admission[0].maxRuntime' },
  { name: 'an admission priority for an unknown role', yaml: variant(['        - { role: developer, priority: 1-6 }', '        - { role: «devs, priority: 1-6 }']), code: 'policy/unknown-role' },
  {
    name: 'a role given two admission priority ranges',
    yaml: variant(['        - { role: developer, priority: 1-6 }', '        - { role: developer, priority: 1-6 }\n        - { role: «developer, priority: 1-3 }']),
    code: 'policy/duplicate-role',
  },
  { name: 'a resource specification name listed twice', yaml: variant(['{ name: four, gpu: 4 }', '{ name: «one, gpu: 4 }']), code: 'policy/duplicate-spec' },
  { name: 'a running job submitted by a non-member', yaml: variant(['      submittedBy: dan', '      submittedBy: «mallory']), code: 'policy/not-a-member', path: 'spec.jobs[0].submittedBy' },
  {
    name: "a running job of a module its quota's allowedModules excludes",
    yaml: variant(['      quota: A\n      module: DLC', '      quota: B\n      module: «DSW']),
    code: 'policy/quota-module-not-allowed',
    path: 'spec.jobs[0].module',
  },
  {
    name: "a running job by a role its quota's allowedRoles excludes",
    yaml: variant(['      submittedBy: dan', '      submittedBy: «gus']),
    code: 'policy/quota-role-not-allowed',
    path: 'spec.jobs[0].submittedBy',
  },
  { name: 'a job maxRuntime that is not a duration', yaml: variant(['      priority: 5\n', '      priority: 5\n      maxRuntime: «forever\n']), code: 'policy/bad-duration' },
  { name: 'a ScaleQuota naming an unknown quota', yaml: variant(['set: { A: 10, B: 6 }', 'set: { A: 10, «Bee: 6 }']), code: 'policy/unknown-quota', path: 'spec.set.Bee' },
  { name: 'a ScaleQuota whose children outgrow the parent', yaml: variant(['set: { A: 10, B: 6 }', 'set: { A: «10 }']), code: 'policy/scale-children-exceed-parent', path: 'spec.set.A' },
  { name: 'a ScaleQuota parent below its children', yaml: variant(['set: { A: 10, B: 6 }', 'set: { Root: «12 }']), code: 'policy/scale-children-exceed-parent', path: 'spec.set.Root' },
  {
    name: 'a ScaleQuota root above its pool',
    yaml: variant(['set: { A: 10, B: 6 }', 'set: { Root: «24 }']),
    code: 'policy/scale-root-exceeds-pool',
  },
  {
    name: 'a ScaleQuota leaving a root above its new min (it has no sibling to borrow from)',
    yaml: variant(
      ['          min: { gpu: 8 }\n          allowedModules', '          min: { gpu: 4 }\n          allowedModules'],
      [
        '      pods: 1\n      resources: { gpu: 4 }',
        '      pods: 2\n      resources: { gpu: 4 }\n    - { name: j2, workspace: ws, quota: B, module: DLC, priority: 3, standing: borrowing, pods: 2, resources: { gpu: 4 } }',
      ],
      ['set: { A: 10, B: 6 }', 'set: { Root: «12 }'],
    ),
    code: 'policy/scale-below-usage',
  },
  { name: 'a ScaleQuota with a negative min', yaml: variant(['set: { A: 10, B: 6 }', 'set: { A: 10, B: «-6 }']), code: 'policy/out-of-range' },
  { name: 'two ScaleQuotas with one name', yaml: `${BASE}---\napiVersion: quotient.dev/v1\nkind: ScaleQuota\nmetadata: { name: «s }\nspec:\n  set: { A: 8 }\n`, code: 'policy/duplicate-scale' },
];

describe('loadPolicy on bad team input', () => {
  it('accepts the base policy the cases start from', () => {
    const { policy, findings } = load(BASE);
    expect(findings).toEqual([]);
    expect(policy?.workspaces[0]!.members.map((m) => [m.user, m.role, m.guest])).toEqual([
      ['ann', 'admin', false],
      ['dan', 'developer', false],
      ['gus', 'labeler', true],
    ]);
    expect(policy?.scales[0]!.set.map((e) => [e.quota, e.gpu])).toEqual([
      ['A', 10],
      ['B', 6],
    ]);
  });

  it.each(cases.map((c) => [c.name, c] as const))('reports %s with its code and location', (_name, c) => {
    const { text, marks } = located(c.yaml);
    expect(marks, 'a case marks exactly one place').toHaveLength(1);
    const { policy, findings } = load(text);
    const errors = findings.filter((f) => f.severity === 'error');
    const want: Partial<Finding> = { file: FILE, code: c.code, line: marks[0]!.line, column: marks[0]!.column };
    if (c.path !== undefined) want.path = c.path;
    expect(errors).toEqual([expect.objectContaining(want)]);
    expect(policy).toBeUndefined();
  });

  it('warns (without failing) when running jobs already exceed a cap', () => {
    const { text, marks } = located(variant(['    - { role: developer, quota: A', '    - «{ role: developer, quota: A'], ['max: { gpu: 8 } }', 'max: { gpu: 2 } }']));
    const { policy, findings } = load(text);
    expect(policy).toBeDefined();
    expect(findings).toEqual([expect.objectContaining({ code: 'policy/over-cap', severity: 'warning', line: marks[0]!.line, column: marks[0]!.column })]);
  });

  it('does not check membership of running jobs that name no submitter', () => {
    const { policy, findings } = load(variant(['      submittedBy: dan\n', '']));
    expect(findings).toEqual([]);
    expect(policy).toBeDefined();
  });
});
