/**
 * GPU sharing in the policy (docs/policy-format.md "GPU sharing"): `resources.gpu` below
 * 1 is a share of one GPU in whole milli-GPUs. Each bad input yields one finding with the
 * right code at the marked place (`«`); shares that add up to exactly one GPU load, and
 * their quota usage sums exactly (0.2 + 0.684 + 0.116 is 1, not 1.0000000000000002).
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';
import { usageByQuota } from '../../../src/model/usage-rule.js';
import { QuotaTree } from '../../../src/model/quota-tree.js';
import { clusterDoc, policyText, quotaEntry, quotaTreeDoc, workspaceDoc } from '../../helpers/policy-yaml.js';

const FILE = 'share.yaml';

const BASE = policyText(
  quotaTreeDoc(quotaEntry('A', 1, { root: true })),
  workspaceDoc(['A']),
  clusterDoc(`  nodes: [ { name: n-0, gpus: 2, pool: p } ]
  jobs:
    - { name: s1, workspace: ws, quota: A, module: DSW, priority: 5, resources: { gpu: 0.2 }, placement: [ { node: n-0, gpus: [0] } ] }
    - { name: s2, workspace: ws, quota: A, module: DSW, priority: 5, resources: { gpu: 0.684 }, placement: [ { node: n-0, gpus: [0] } ] }
    - { name: s3, workspace: ws, quota: A, module: DSW, priority: 5, resources: { gpu: 0.116 }, placement: [ { node: n-0, gpus: [0] } ] }
`),
);

const { variant, load } = markedPolicy(BASE, FILE);

const cases: Array<{ name: string; yaml: string; code: string }> = [
  { name: 'a fraction above one GPU', yaml: variant(['resources: { gpu: 0.2 }', 'resources: { gpu: «1.5 }']), code: 'policy/gpu-share' },
  { name: 'a share finer than a milli-GPU', yaml: variant(['resources: { gpu: 0.2 }', 'resources: { gpu: «0.4567 }']), code: 'policy/gpu-share' },
  {
    name: 'shares of one GPU above 1000m',
    yaml: variant(['resources: { gpu: 0.116 }, placement: [ { node: n-0, gpus: [0] } ]', 'resources: { gpu: 0.2 }, placement: [ { node: n-0, gpus: [«0] } ]']),
    code: 'policy/gpu-taken',
  },
  {
    name: 'a whole-GPU pod on a shared GPU',
    yaml: variant(['resources: { gpu: 0.116 }, placement: [ { node: n-0, gpus: [0] } ]', 'resources: { gpu: 1 }, placement: [ { node: n-0, gpus: [«0] } ]']),
    code: 'policy/gpu-taken',
  },
  {
    name: 'a share given only a GPU count',
    yaml: variant(['placement: [ { node: n-0, gpus: [0] } ] }\n    - { name: s2', 'placement: [ { node: n-0, gpuCount: «1 } ] }\n    - { name: s2']),
    code: 'policy/placement-gpus',
  },
  {
    name: 'a share on two GPUs',
    yaml: variant(['placement: [ { node: n-0, gpus: [0] } ] }\n    - { name: s2', 'placement: [ { node: n-0, gpus: «[0, 1] } ] }\n    - { name: s2']),
    code: 'policy/placement-gpu-count',
  },
];

describe('GPU sharing in the policy', () => {
  it.each(cases.map((c) => [c.name, c] as const))('reports %s with its code and location', (_name, c) => {
    const { text, marks } = located(c.yaml);
    expect(marks).toHaveLength(1);
    const { policy, findings } = load(text);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([expect.objectContaining({ file: FILE, code: c.code, line: marks[0]!.line, column: marks[0]!.column })]);
    expect(policy).toBeUndefined();
  });

  it('loads shares that fill one GPU exactly, and counts them in quota usage without float error', () => {
    const { policy, findings } = load(BASE);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const tree = new QuotaTree(policy!.quotas);
    const usage = usageByQuota(tree, policy!.cluster!.jobs);
    expect(usage[tree.indexOf('A')]![0]).toBe(1);
  });
});
