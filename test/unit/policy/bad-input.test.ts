/**
 * One case per kind of bad input: each variant of a valid base policy must yield a
 * finding with the right code at the right place. The place is marked in the YAML
 * itself with `«` right before the token the finding must point at; the marker is
 * removed before loading. Cases match codes and locations, never message text.
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';
import type { Finding } from '../../../src/errors.js';
import { clusterDoc, policyText, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const FILE = 'policy.yaml';

/** A small valid policy: a tree with two children, a workspace, a cluster with one job. */
const BASE = policyText(
  quotaTreeDoc(
    rootQuotaEntry(
      16,
      `        - name: A\n          min: { gpu: 8 }\n          selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }\n        - name: B\n          min: { gpu: 8 }\n`,
    ),
  ),
  workspaceDoc(['A', 'B'], { more: '  modules: [DLC, DSW]\n' }),
  clusterDoc(`  nodes:
    - { name: n-0, gpus: 8, pool: p }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - name: j1
      workspace: ws
      quota: A
      module: DLC
      priority: 5
      pods: 1
      resources: { gpu: 4 }
      placement:
        - { node: n-0, gpus: [0, 1, 2, 3] }
`),
);

const { variant, load } = markedPolicy(BASE, FILE);

/** A second job appended to the Cluster's jobs (for clashes between jobs). */
const J2 = `    - name: j2
      workspace: ws
      quota: B
      module: DLC
      priority: 5
      pods: 1
      resources: { gpu: 4 }
      placement:
        - { node: n-1, gpus: [0, 1, 2, 3] }
`;

/** A second tree owning pool q, with one node in it. */
const OTHER_POOL = `---
apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: other }
spec:
  pool: { name: q }
  quotas:
    - { name: Q, min: { gpu: 8 } }
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c2 }
spec:
  nodes:
    - { name: m-0, gpus: 8, pool: q }
`;

interface BadCase {
  name: string;
  /** The policy text, with `«` where the finding must point. */
  yaml: string;
  code: string;
  /** The field path of the finding, when it says something the location does not. */
  path?: string;
}

const cases: BadCase[] = [
  {
    name: 'YAML that does not parse (an unclosed flow mapping)',
    yaml: variant(['metadata: { name: t }', 'metadata: { name: t']).replace('\nspec:\n  pool', '\n«spec:\n  pool'),
    code: 'policy/yaml-syntax',
  },
  {
    name: 'a key given twice in one mapping',
    yaml: variant(['          min: { gpu: 8 }\n          selfPreemption', '          min: { gpu: 8 }\n          «min: { gpu: 4 }\n          selfPreemption']),
    code: 'policy/duplicate-key',
  },
  {
    name: 'an unknown field (a typo)',
    yaml: variant(['          min: { gpu: 8 }\n---', '          min: { gpu: 8 }\n          «reclam: any\n---']),
    code: 'policy/unknown-field',
    path: 'spec.quotas[0].children[1].reclam',
  },
  { name: 'an unknown kind', yaml: variant(['kind: Workspace', 'kind: «Workspaces']), code: 'policy/unknown-kind', path: 'kind' },
  { name: 'a wrong apiVersion', yaml: variant(['apiVersion: quotient.dev/v1\nkind: Cluster', 'apiVersion: «quotient.dev/v2\nkind: Cluster']), code: 'policy/bad-api-version' },
  {
    name: 'a required field left out (reported at the mapping that should hold it)',
    yaml: variant(['      module: DLC\n      priority: 5\n', '      module: DLC\n']).replace('    - name: j1', '    - «name: j1'),
    code: 'policy/missing-field',
    path: 'spec.jobs[0]',
  },
  { name: 'a workspace naming an unknown quota', yaml: variant(['quotas: [A, B]', 'quotas: [A, «Bee]']), code: 'policy/unknown-quota', path: 'spec.quotas[1]' },
  { name: 'a running job naming an unknown quota', yaml: variant(['      quota: A\n', '      quota: «Z\n']), code: 'policy/unknown-quota', path: 'spec.jobs[0].quota' },
  { name: 'a quota name declared twice', yaml: variant(['        - name: B', '        - name: «A'], ['quotas: [A, B]', 'quotas: [A]']), code: 'policy/duplicate-quota' },
  { name: "children's min summing above the parent's", yaml: variant(['      min: { gpu: 16 }', '      min: { gpu: «12 }']), code: 'policy/children-exceed-parent', path: 'spec.quotas[0].min.gpu' },
  {
    name: "a root quota above its pool's capacity",
    yaml: variant(['      min: { gpu: 16 }', '      min: { gpu: «24 }']),
    code: 'policy/root-exceeds-pool',
  },
  { name: 'a job priority outside 1..9', yaml: variant(['      priority: 5', '      priority: «10']), code: 'policy/priority-out-of-range', path: 'spec.jobs[0].priority' },
  { name: 'a priority range reaching outside 1..9', yaml: variant(['highPriority: 6-9', 'highPriority: «6-10']), code: 'policy/priority-out-of-range' },
  { name: 'a malformed priority range', yaml: variant(['lowPriority: 1-5', 'lowPriority: «low']), code: 'policy/bad-range' },
  { name: 'a range written backwards', yaml: variant(['highPriority: 6-9', 'highPriority: «9-6']), code: 'policy/reversed-range' },
  {
    name: 'an unknown victim criterion',
    yaml: variant(['  pool: { name: p }\n', '  pool: { name: p }\n  victimOrder: [priority, «lost-time, gpus, count, recency]\n']),
    code: 'policy/invalid-value',
    path: 'spec.victimOrder[1]',
  },
  {
    name: 'a victim criterion listed twice',
    yaml: variant(['  pool: { name: p }\n', '  pool: { name: p }\n  victimOrder: [lost-work, priority, gpus, count, «lost-work, recency]\n']),
    code: 'policy/victim-order-duplicate',
    path: 'spec.victimOrder[4]',
  },
  {
    name: 'a victim order that leaves a criterion out',
    yaml: variant(['  pool: { name: p }\n', '  pool: { name: p }\n  victimOrder: «[lost-work, priority, gpus, count]\n']),
    code: 'policy/victim-order-incomplete',
    path: 'spec.victimOrder',
  },
  { name: 'lowPriority not below highPriority', yaml: variant(['lowPriority: 1-5', 'lowPriority: «1-6']), code: 'policy/low-not-below-high' },
  { name: 'an unknown module in a list', yaml: variant(['modules: [DLC, DSW]', 'modules: [DLC, «XLA]']), code: 'policy/unknown-module', path: 'spec.modules[1]' },
  { name: 'an unknown job module', yaml: variant(['      module: DLC\n', '      module: «dlc\n']), code: 'policy/unknown-module' },
  { name: 'a job naming an unknown workspace', yaml: variant(['      workspace: ws\n', '      workspace: «wz\n']), code: 'policy/unknown-workspace' },
  {
    name: 'a running job on a quota its workspace is not associated with',
    yaml: variant(['      quota: A\n', '      quota: «Root\n']),
    code: 'policy/quota-not-in-workspace',
  },
  { name: 'a running job of a module its workspace does not allow', yaml: variant(['      module: DLC\n', '      module: «EAS\n']), code: 'policy/module-not-allowed' },
  { name: 'zero pods', yaml: variant(['      pods: 1', '      pods: «0']), code: 'policy/non-positive', path: 'spec.jobs[0].pods' },
  { name: 'zero GPUs per pod', yaml: variant(['resources: { gpu: 4 }', 'resources: { gpu: «0 }']), code: 'policy/non-positive', path: 'spec.jobs[0].resources.gpu' },
  { name: 'a placement naming an unknown node', yaml: variant(['{ node: n-0, gpus', '{ node: «n-9, gpus']), code: 'policy/unknown-node' },
  { name: 'a GPU index beyond the node', yaml: variant(['gpus: [0, 1, 2, 3] }', 'gpus: [0, 1, 2, «8] }']), code: 'policy/gpu-out-of-range', path: 'spec.jobs[0].placement[0].gpus[3]' },
  {
    name: 'a placement with the wrong number of pods',
    yaml: variant(['      pods: 1', '      pods: 2'], ['        - { node: n-0', '        «- { node: n-0']),
    code: 'policy/placement-pod-count',
    path: 'spec.jobs[0].placement',
  },
  { name: 'a pod with the wrong number of GPUs', yaml: variant(['gpus: [0, 1, 2, 3] }', 'gpus: «[0, 1, 2] }']), code: 'policy/placement-gpu-count' },
  {
    name: 'a GPU another job holds',
    yaml: variant([
      '        - { node: n-0, gpus: [0, 1, 2, 3] }\n',
      `        - { node: n-0, gpus: [0, 1, 2, 3] }\n${J2.replace('{ node: n-1, gpus: [0, 1, 2, 3] }', '{ node: n-0, gpus: [«3, 4, 5, 6] }')}`,
    ]),
    code: 'policy/gpu-taken',
    path: 'spec.jobs[1].placement[0].gpus[0]',
  },
  { name: 'a pod placed on a node of another pool', yaml: variant(['{ node: n-0, gpus', '{ node: «m-0, gpus']) + OTHER_POOL, code: 'policy/wrong-pool' },
  {
    name: 'a standing that contradicts the idle mode',
    yaml: variant(['      pods: 1\n', '      pods: 1\n      standing: «idle\n']),
    code: 'policy/standing-conflict',
  },
  {
    name: 'a borrowing job on a root quota',
    yaml: variant(['quotas: [A, B]', 'quotas: [Root, A, B]'], ['      quota: A\n', '      quota: Root\n      standing: «borrowing\n']),
    code: 'policy/borrowing-at-root',
  },
  {
    name: "in-quota usage over a quota's min",
    yaml: variant(['          min: { gpu: 8 }\n          selfPreemption', '          min: { gpu: 2 }\n          selfPreemption'], ['      quota: A\n', '      quota: «A\n']),
    code: 'policy/over-quota',
  },
  { name: 'a quantity that is not one', yaml: variant(['{ name: n-1, gpus: 8, pool: p }', '{ name: n-1, gpus: 8, pool: p, memory: «12XB }']), code: 'policy/bad-quantity' },
  {
    name: 'a duration that is not one',
    yaml: variant(['      pods: 1\n', '      pods: 1\n      checkpoint: { every: «soon }\n']),
    code: 'policy/bad-duration',
  },
  { name: 'a time that is not one', yaml: variant(['  at: 2026-11-20T12:00:00Z', '  at: «yesterday']), code: 'policy/bad-time', path: 'spec.at' },
  {
    name: 'a runtimeDefault that is not a duration',
    yaml: variant(['        - name: B\n          min: { gpu: 8 }\n', '        - name: B\n          min: { gpu: 8 }\n          runtimeDefault: «soon\n']),
    code: 'policy/bad-duration',
    path: 'spec.quotas[0].children[1].runtimeDefault',
  },
  {
    name: 'a count-only pod with the wrong GPU count',
    yaml: variant(['{ node: n-0, gpus: [0, 1, 2, 3] }', '{ node: n-0, gpuCount: «2 }']),
    code: 'policy/placement-gpu-count',
    path: 'spec.jobs[0].placement[0].gpuCount',
  },
  {
    name: 'a pod giving both GPU indices and a count',
    yaml: variant(['        - { node: n-0, gpus: [0, 1, 2, 3] }', '        - «{ node: n-0, gpus: [0, 1, 2, 3], gpuCount: 4 }']),
    code: 'policy/placement-gpus',
    path: 'spec.jobs[0].placement[0]',
  },
  {
    name: 'count-only pods holding more GPUs than the node has',
    yaml: variant([
      '        - { node: n-0, gpus: [0, 1, 2, 3] }\n',
      `        - { node: n-0, gpus: [0, 1, 2, 3] }\n${J2.replace('      resources: { gpu: 4 }', '      resources: { gpu: 6 }').replace('{ node: n-1, gpus: [0, 1, 2, 3] }', '{ node: «n-0, gpuCount: 6 }')}`,
    ]),
    code: 'policy/node-overcommitted',
  },
  { name: 'a node name declared twice', yaml: variant(['{ name: n-1, gpus: 8', '{ name: «n-0, gpus: 8']), code: 'policy/duplicate-node' },
  {
    name: 'a job name declared twice',
    yaml: variant(['        - { node: n-0, gpus: [0, 1, 2, 3] }\n', `        - { node: n-0, gpus: [0, 1, 2, 3] }\n${J2.replace('name: j2', 'name: «j1')}`]),
    code: 'policy/duplicate-job',
  },
];

describe('loadPolicy on bad input', () => {
  it('accepts the base policy the cases start from', () => {
    const { policy, findings } = load(BASE);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(policy).toBeDefined();
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

  it('gives a "did you mean" hint for a misspelt field', () => {
    const { findings } = load(variant(['          min: { gpu: 8 }\n---', '          min: { gpu: 8 }\n          reclam: any\n---']));
    expect(findings).toHaveLength(1);
    expect(findings[0]!.code).toBe('policy/unknown-field');
    expect(findings[0]!.hint).not.toBe('');
    // The text is the behaviour here: the suggestion.
    expect(findings[0]!.hint).toContain('"reclaim"');
  });

  it('locates an unknown placement strategy and lists the allowed ones, fragmentation among them', () => {
    const marked = variant(['  pool: { name: p }\n', '  pool: { name: p }\n  placement: { strategy: «fgd }\n']);
    const { text, marks } = located(marked);
    const { findings } = load(text);
    expect(findings).toEqual([expect.objectContaining({ code: 'policy/invalid-value', path: 'spec.placement.strategy', line: marks[0]!.line, column: marks[0]!.column })]);
    expect(findings[0]!.hint).toBe('use one of: binpack, spread, fragmentation');
  });

  it('locates roots above their pool at the largest root and says how much to take off', () => {
    // Root (16) plus a second root X (8) in a 16-GPU pool: 8 over; the largest is Root, not the last.
    const two = variant(['      min: { gpu: 16 }', '      min: { gpu: «16 }'], ['          min: { gpu: 8 }\n---', '          min: { gpu: 8 }\n    - name: X\n      min: { gpu: 8 }\n---']);
    const { text, marks } = located(two);
    const errors = load(text).findings.filter((f) => f.severity === 'error');
    expect(errors).toEqual([expect.objectContaining({ code: 'policy/root-exceeds-pool', line: marks[0]!.line, column: marks[0]!.column })]);
    expect(errors[0]!.hint).toBe('take 8 GPUs off the roots\' mins together (e.g. "Root" from 16 to 8), or add nodes to pool "p"');
    // One root: lower it to the pool's size.
    const one = load(variant(['      min: { gpu: 16 }', '      min: { gpu: 24 }'])).findings.find((f) => f.code === 'policy/root-exceeds-pool');
    expect(one?.hint).toBe('lower min.gpu to 16 or less, or add nodes to pool "p"');
  });

  it('reports every finding of the failing stage, sorted by location', () => {
    const marked = variant(['      pods: 1\n', '      pods: 1\n      «idleResorces: only\n'], ['  pool: { name: p }', '  pool: { name: p, «typ: general }']);
    const { text, marks } = located(marked);
    const { policy, findings } = load(text);
    expect(policy).toBeUndefined();
    expect(findings.map((f) => [f.code, f.line, f.column])).toEqual(marks.map((m) => ['policy/unknown-field', m.line, m.column]));
    // The marks are in text order, so this also says the findings are sorted by location.
    expect(marks[0]!.line).toBeLessThan(marks[1]!.line);
  });

  it('sorts findings of one stage across documents by line and column', () => {
    const { findings } = load(variant(['quotas: [A, B]', 'quotas: [A, Bee]'], ['      quota: A\n', '      quota: Zed\n'], ['lowPriority: 1-5', 'lowPriority: 7']));
    const locs = findings.map((f) => [f.line, f.column] as const);
    const sorted = [...locs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(findings.length).toBeGreaterThanOrEqual(3);
    expect(locs).toEqual(sorted);
  });

  it('yields no policy when the file has errors', () => {
    const { policy, findings } = load(variant(['      priority: 5', '      priority: 0']));
    expect(findings.some((f) => f.severity === 'error')).toBe(true);
    expect(policy).toBeUndefined();
  });
});
