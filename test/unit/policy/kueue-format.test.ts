/**
 * The policy format under `rules: kueue` (SEMANTICS 12, docs/policy-format.md "Kueue's
 * rules"): a valid base policy written as Kueue's objects read, and one-edit variants,
 * each with the code and the place (`«`) of its finding. Cases match codes and places,
 * never message text.
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';
import type { Finding } from '../../../src/errors.js';

const FILE = 'kueue.yaml';

/** Two flavors, a cohort with two ClusterQueues, a workspace, a cluster with labelled nodes and a priority-10000 job. */
const BASE = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: tree }
spec:
  rules: kueue
  pool: { name: p }
  flavors:
    - name: a100
      nodeLabels: { gpu.example.com/model: a100 }
    - name: h100
      nodeLabels: { gpu.example.com/model: h100 }
      nodeTaints: [ { key: dedicated, value: h100, effect: NoSchedule } ]
    - { name: default }
  quotas:
    - name: org
      children:
        - name: research
          resourceGroups:
            - coveredResources: [nvidia.com/gpu, cpu]
              flavors:
                - name: a100
                  resources:
                    - { name: nvidia.com/gpu, nominalQuota: 8, borrowingLimit: 4, lendingLimit: 2 }
                    - { name: cpu, nominalQuota: 64 }
                - name: h100
                  resources:
                    - { name: nvidia.com/gpu, nominalQuota: 8 }
                    - { name: cpu, nominalQuota: "64" }
            - coveredResources: [memory, example.com/foo]
              flavors:
                - name: default
                  resources:
                    - { name: memory, nominalQuota: 512Gi }
                    - { name: example.com/foo, nominalQuota: 4 }
          preemption:
            withinClusterQueue: LowerPriority
            reclaimWithinCohort: Any
            borrowWithinCohort: { policy: LowerPriority, maxPriorityThreshold: 100 }
          flavorFungibility: { whenCanBorrow: Borrow, whenCanPreempt: TryNextFlavor }
          queueingStrategy: StrictFIFO
        - name: prod
          resourceGroups:
            - coveredResources: [nvidia.com/gpu]
              flavors:
                - name: a100
                  resources:
                    - { name: nvidia.com/gpu, nominalQuota: 8 }
---
apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: flavors-only }
spec:
  rules: kueue
  pool: { name: q }
  flavors:
    - name: default
  quotas:
    - name: solo
      resourceGroups:
        - coveredResources: [cpu]
          flavors:
            - name: default
              resources:
                - { name: cpu, nominalQuota: 8 }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec:
  quotas: [research, prod]
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes:
    - { name: a-0, gpus: 8, pool: p, labels: { gpu.example.com/model: a100 } }
    - { name: h-0, gpus: 8, pool: p, labels: { gpu.example.com/model: h100 } }
  jobs:
    - name: j1
      workspace: ws
      quota: research
      module: DLC
      priority: 10000
      resources: { gpu: 4 }
      placement:
        - { node: a-0, gpus: [0, 1, 2, 3] }
`;

const { variant, load } = markedPolicy(BASE, FILE);

interface BadCase {
  name: string;
  yaml: string;
  code: string;
  path?: string;
}

const cases: BadCase[] = [
  {
    name: "PAI's min under rules: kueue",
    yaml: variant(['        - name: prod\n', '        - name: prod\n          «min: { gpu: 8 }\n']),
    code: 'policy/pai-clause-under-kueue',
    path: 'spec.quotas[0].children[1].min',
  },
  {
    name: "PAI's selfPreemption under rules: kueue",
    yaml: variant(['        - name: prod\n', '        - name: prod\n          «selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }\n']),
    code: 'policy/pai-clause-under-kueue',
  },
  {
    name: "PAI's victimOrder under rules: kueue",
    yaml: variant(['  rules: kueue\n  pool: { name: p }\n', '  rules: kueue\n  pool: { name: p }\n  «victimOrder: [priority, lost-work, gpus, count, recency]\n']),
    code: 'policy/pai-clause-under-kueue',
  },
  {
    name: 'a flavor no spec.flavors declares',
    yaml: variant(['                - name: h100\n', '                - name: «h200\n']),
    code: 'policy/kueue-unknown-flavor',
    path: 'spec.quotas[0].children[0].resourceGroups[0].flavors[1].name',
  },
  { name: 'a flavor declared twice', yaml: variant(['    - { name: default }\n', '    - { name: default }\n    - { name: «default }\n']), code: 'policy/kueue-duplicate-flavor' },
  {
    name: "a flavor's resources not the group's coveredResources",
    yaml: variant(['                    - { name: cpu, nominalQuota: "64" }\n', '                    - { name: memory, nominalQuota: "64" }\n']).replace(
      '                - name: h100\n                  resources:',
      '                - name: h100\n                  «resources:',
    ),
    code: 'policy/kueue-flavor-resources',
  },
  {
    name: 'a resource in two groups',
    yaml: variant(['[memory, example.com/foo]', '[memory, «cpu]'], ['{ name: example.com/foo, nominalQuota: 4 }', '{ name: cpu, nominalQuota: 4 }']),
    code: 'policy/kueue-resource-twice',
  },
  {
    name: 'a flavor in two groups',
    yaml: variant([
      '                - name: default\n                  resources:\n                    - { name: memory',
      '                - name: «a100\n                  resources:\n                    - { name: memory',
    ]),
    code: 'policy/kueue-flavor-twice',
  },
  { name: 'a quantity that is none', yaml: variant(['{ name: memory, nominalQuota: 512Gi }', '{ name: memory, nominalQuota: «lots }']), code: 'policy/bad-quantity' },
  {
    name: 'a fractional GPU quota',
    yaml: variant([
      '{ name: nvidia.com/gpu, nominalQuota: 8 }\n                    - { name: cpu, nominalQuota: "64" }',
      '{ name: nvidia.com/gpu, nominalQuota: «"8.5" }\n                    - { name: cpu, nominalQuota: "64" }',
    ]),
    code: 'policy/bad-quantity',
  },
  { name: 'lendingLimit above nominalQuota', yaml: variant(['lendingLimit: 2 }', 'lendingLimit: «9 }']), code: 'policy/kueue-lending-above-nominal' },
  {
    name: 'borrowingLimit on a ClusterQueue in no cohort',
    yaml: variant(['                - { name: cpu, nominalQuota: 8 }\n', '                - { name: cpu, nominalQuota: 8, borrowingLimit: «2 }\n']),
    code: 'policy/kueue-limit-without-cohort',
  },
  { name: 'an unknown withinClusterQueue', yaml: variant(['withinClusterQueue: LowerPriority', 'withinClusterQueue: «Lower']), code: 'policy/invalid-value' },
  {
    name: 'borrowWithinCohort with reclaimWithinCohort Never',
    yaml: variant(['reclaimWithinCohort: Any', 'reclaimWithinCohort: Never']).replace('{ policy: LowerPriority,', '{ policy: «LowerPriority,'),
    code: 'policy/kueue-borrow-without-reclaim',
  },
  { name: 'an unknown whenCanBorrow', yaml: variant(['whenCanBorrow: Borrow', 'whenCanBorrow: «Always']), code: 'policy/invalid-value' },
  { name: 'an unknown queueingStrategy', yaml: variant(['queueingStrategy: StrictFIFO', 'queueingStrategy: «FIFO']), code: 'policy/invalid-value' },
  { name: 'a taint effect Kubernetes does not have', yaml: variant(['effect: NoSchedule', 'effect: «Never']), code: 'policy/invalid-value' },
  { name: 'a ClusterQueue clause on a Cohort', yaml: variant(['    - name: org\n', '    - name: org\n      «queueingStrategy: StrictFIFO\n']), code: 'policy/kueue-cohort-clause' },
  { name: 'a priority beyond int32', yaml: variant(['priority: 10000', 'priority: «2147483648']), code: 'policy/priority-out-of-range' },
  {
    name: "Kueue's flavors under rules: pai",
    yaml: variant(
      ['  rules: kueue\n  pool: { name: q }\n  flavors:', '  rules: pai\n  pool: { name: q }\n  «flavors:'],
      [
        '    - name: solo\n      resourceGroups:\n        - coveredResources: [cpu]\n          flavors:\n            - name: default\n              resources:\n                - { name: cpu, nominalQuota: 8 }\n',
        '    - { name: solo, min: { gpu: 0 } }\n',
      ],
    ),
    code: 'policy/kueue-clause-under-pai',
  },
  {
    name: "a quota with neither min nor Kueue's rules",
    yaml: variant(
      ['  rules: kueue\n  pool: { name: q }\n  flavors:\n    - name: default\n', '  pool: { name: q }\n'],
      [
        '    - name: solo\n      resourceGroups:\n        - coveredResources: [cpu]\n          flavors:\n            - name: default\n              resources:\n                - { name: cpu, nominalQuota: 8 }\n',
        '    - «{ name: solo }\n',
      ],
    ),
    code: 'policy/missing-field',
  },
];

describe('the policy format under rules: kueue', () => {
  it('loads the base policy clean: flavors, resource groups, preemption, fungibility, queueing, labels, int32 priorities', () => {
    const { policy, findings } = load(BASE);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const pool = policy!.pools.find((p) => p.name === 'p')!;
    expect(pool.rules).toBe('kueue');
    expect(pool.flavors!.map((f) => f.name)).toEqual(['a100', 'h100', 'default']);
    expect(pool.flavors![1]!.nodeTaints).toEqual([{ key: 'dedicated', value: 'h100', effect: 'NoSchedule' }]);
    const research = policy!.quotas.find((q) => q.name === 'research')!;
    expect(research.kueue).toMatchObject({
      kind: 'ClusterQueue',
      preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any', borrowWithinCohort: { policy: 'LowerPriority', maxPriorityThreshold: 100 } },
      // Borrow is Kueue's old name of MayStopSearch.
      flavorFungibility: { whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'TryNextFlavor' },
      queueingStrategy: 'StrictFIFO',
    });
    const [gpuGroup, memGroup] = research.kueue!.resourceGroups;
    expect(gpuGroup!.flavors[0]!.resources).toMatchObject([
      { name: 'nvidia.com/gpu', nominalQuota: 8, borrowingLimit: 4, lendingLimit: 2 },
      { name: 'cpu', nominalQuota: 64_000 },
    ]);
    expect(memGroup!.flavors[0]!.resources).toMatchObject([
      { name: 'memory', nominalQuota: 512 * 1024 },
      { name: 'example.com/foo', nominalQuota: 4 },
    ]);
    expect(research.queueStrategy).toBe('fifo');
    expect(research.min).toEqual({ gpu: 16, cpu: 128_000, memory: 512 * 1024 });
    const org = policy!.quotas.find((q) => q.name === 'org')!;
    expect(org.kueue!.kind).toBe('Cohort');
    expect(org.kueue!.preemption).toBeUndefined();
    expect(org.min.gpu).toBe(24);
    expect(policy!.quotas.find((q) => q.name === 'prod')!.kueue).toMatchObject({
      preemption: { withinClusterQueue: 'Never', reclaimWithinCohort: 'Never', borrowWithinCohort: { policy: 'Never' } },
      queueingStrategy: 'BestEffortFIFO',
    });
    expect(policy!.quotas.find((q) => q.name === 'prod')!.queueStrategy).toBe('round-robin');
    expect(policy!.cluster!.nodes[0]!.labels).toEqual({ 'gpu.example.com/model': 'a100' });
    expect(policy!.cluster!.jobs[0]!.priority).toBe(10000);
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

  it("locates an unknown rule set (the tree is then read under PAI's rules, so its quotas also miss min)", () => {
    const { text, marks } = located(variant(['  rules: kueue\n  pool: { name: p }', '  rules: «volcano\n  pool: { name: p }']));
    const { findings } = load(text);
    expect(findings).toContainEqual(expect.objectContaining({ code: 'policy/invalid-value', path: 'spec.rules', line: marks[0]!.line, column: marks[0]!.column }));
  });

  it("keeps PAI's 1..9 for a job on a PAI quota beside a Kueue tree", () => {
    const pai = BASE.replace('kind: Workspace', 'kind: Workspace').replace(
      '---\napiVersion: quotient.dev/v1\nkind: Workspace',
      '---\napiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: pai }\nspec:\n  pool: { name: r }\n  quotas:\n    - { name: P, min: { gpu: 8 } }\n---\napiVersion: quotient.dev/v1\nkind: Workspace',
    );
    const text = pai
      .replace('quotas: [research, prod]', 'quotas: [research, prod, P]')
      .replace('      quota: research\n', '      quota: P\n')
      .replace('    - { name: h-0, gpus: 8, pool: p', '    - { name: r-0, gpus: 8, pool: r }\n    - { name: h-0, gpus: 8, pool: p')
      .replace('{ node: a-0,', '{ node: r-0,');
    const { findings } = load(text);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([expect.objectContaining({ code: 'policy/priority-out-of-range', path: 'spec.jobs[0].priority' })]);
  });
});
