/**
 * A Cluster's `queue` (SEMANTICS 8, policy/build/build-queue.ts): jobs waiting at the snapshot
 * time. A good one loads into `Cluster.queue` holding nothing; each bad one is a finding
 * with its code at the spot the `«` marks (codes and locations, never message text).
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/errors.js';
import { located, markedPolicy } from '../../helpers/marked-policy.js';

const FILE = 'policy.yaml';

const BASE = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - name: Root
      min: { gpu: 16 }
      children:
        - { name: A, min: { gpu: 8 } }
        - { name: B, min: { gpu: 8 } }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec:
  quotas: [A]
  modules: [DLC]
  members: [{ user: alice, role: developer }]
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes:
    - { name: n-0, gpus: 8, pool: p }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - { name: run-1, workspace: ws, quota: A, module: DLC, priority: 5, resources: { gpu: 4 } }
  queue:
    - name: q-1
      workspace: ws
      quota: A
      module: DLC
      priority: 5
      resources: { gpu: 8 }
      submittedAt: 2026-11-20T11:00:00Z
      duration: 2h
    - { name: q-2, workspace: ws, quota: A, module: DLC, priority: 3, pods: 2, resources: { gpu: 1 }, submittedAt: 2026-11-20T12:00:00Z, submittedBy: alice }
---
apiVersion: quotient.dev/v1
kind: WhatIf
metadata: { name: w }
spec:
  submit: { name: new-1, workspace: ws, quota: A, module: DLC, priority: 5, resources: { gpu: 1 } }
`;

const { variant, load } = markedPolicy(BASE, FILE);

const cases: Array<{ name: string; yaml: string; code: string; path?: string }> = [
  {
    name: 'a queued job naming an unknown quota',
    yaml: variant(['      quota: A\n      module: DLC\n      priority: 5\n      resources: { gpu: 8 }', '      quota: «Z\n      module: DLC\n      priority: 5\n      resources: { gpu: 8 }']),
    code: 'policy/unknown-quota',
    path: 'spec.queue[0].quota',
  },
  {
    name: 'a queued job naming an unknown workspace',
    yaml: variant(['    - { name: q-2, workspace: ws,', '    - { name: q-2, workspace: «wx,']),
    code: 'policy/unknown-workspace',
    path: 'spec.queue[1].workspace',
  },
  {
    name: 'a queued job on a quota its workspace may not use',
    yaml: variant(['priority: 3, pods: 2', 'priority: 3, pods: 2']).replace('name: q-2, workspace: ws, quota: A', 'name: q-2, workspace: ws, quota: «B'),
    code: 'policy/quota-not-in-workspace',
    path: 'spec.queue[1].quota',
  },
  { name: 'a queued job submitted by a user no workspace lists', yaml: variant(['submittedBy: alice }', 'submittedBy: «mallory }']), code: 'policy/not-a-member', path: 'spec.queue[1].submittedBy' },
  { name: 'a submittedAt that is not a time', yaml: variant(['submittedAt: 2026-11-20T11:00:00Z', 'submittedAt: «yesterday']), code: 'policy/bad-time', path: 'spec.queue[0].submittedAt' },
  {
    name: "a submittedAt after the snapshot's at",
    yaml: variant(['submittedAt: 2026-11-20T11:00:00Z', 'submittedAt: «2026-11-20T12:00:01Z']),
    code: 'policy/submitted-after-snapshot',
    path: 'spec.queue[0].submittedAt',
  },
  { name: 'a duration that is not a duration', yaml: variant(['duration: 2h', 'duration: «2 hours']), code: 'policy/bad-duration', path: 'spec.queue[0].duration' },
  { name: 'a queued job with the name of a running job', yaml: variant(['    - name: q-1\n', '    - name: «run-1\n']), code: 'policy/duplicate-job', path: 'spec.queue[0].name' },
  { name: 'two queued jobs with one name', yaml: variant(['    - { name: q-2,', '    - { name: «q-1,']), code: 'policy/duplicate-job', path: 'spec.queue[1].name' },
  {
    name: 'a queued job without submittedAt',
    yaml: variant(['      submittedAt: 2026-11-20T11:00:00Z\n', '']).replace('    - name: q-1', '    - «name: q-1'),
    code: 'policy/missing-field',
    path: 'spec.queue[0]',
  },
  {
    name: "a queued job with a running job's standing",
    yaml: variant(['      duration: 2h\n', '      duration: 2h\n      «standing: in-quota\n']),
    code: 'policy/unknown-field',
    path: 'spec.queue[0].standing',
  },
  {
    name: 'a queued job with a placement',
    yaml: variant(['      duration: 2h\n', '      duration: 2h\n      «placement: [{ node: n-0, gpus: [0] }]\n']),
    code: 'policy/unknown-field',
    path: 'spec.queue[0].placement',
  },
  { name: 'a WhatIf with the name of a queued job', yaml: variant(['submit: { name: new-1,', 'submit: { name: «q-2,']), code: 'policy/duplicate-job', path: 'spec.submit.name' },
];

describe('Cluster queue', () => {
  it('loads queued jobs in file order, holding nothing', () => {
    const { policy, findings } = load(BASE);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const queue = policy!.cluster!.queue!;
    expect(queue.map((j) => [j.name, j.priority, j.pods, new Date(j.submittedAt).toISOString(), j.duration])).toEqual([
      ['q-1', 5, 1, '2026-11-20T11:00:00.000Z', 2 * 3_600_000],
      ['q-2', 3, 2, '2026-11-20T12:00:00.000Z', undefined],
    ]);
    // They hold nothing: the running jobs are the snapshot's jobs alone.
    expect(policy!.cluster!.jobs.map((j) => j.name)).toEqual(['run-1']);
    expect(queue[1]!.submittedBy).toBe('alice');
  });

  it('leaves `queue` out of a Cluster that lists none', () => {
    const { policy } = load(BASE.replace(/ {2}queue:\n[\s\S]*?\n---/, '---'));
    expect(policy!.cluster!.queue).toBeUndefined();
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
});
