/**
 * Quota trees from Kueue (v1beta1 and v1beta2 names), Koordinator and Volcano: the tree,
 * the guarantees, and every field without a counterpart reported as a located warning
 * at the field itself (never silently dropped).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/errors.js';
import { importQuotas, type QuotaFormat } from '../../../src/interop/import-quotas.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { importedTreeYaml } from '../../../src/interop/import-quotas.js';

const DIR = 'test/fixtures/interop/quotas';
const NAMES = { gpu: 'nvidia.com/gpu' };

function run(format: QuotaFormat, file: string) {
  const input = { path: `${DIR}/${file}`, text: readFileSync(`${DIR}/${file}`, 'utf8') };
  const r = importQuotas(format, [input], NAMES);
  return { ...r, input, q: (n: string) => r.quotas.find((q) => q.name === n) };
}

/** line:col where `needle` (its `occurrence`-th appearance) starts in the fixture. */
function locate(file: string, needle: string, occurrence = 0): { line: number; column: number } {
  const text = readFileSync(`${DIR}/${file}`, 'utf8');
  let at = -1;
  for (let i = 0; i <= occurrence; i++) at = text.indexOf(needle, at + 1);
  expect(at, needle).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

const warningAt = (findings: Finding[], file: string, needle: string, occurrence = 0) =>
  findings.filter((f) => f.severity === 'warning' && f.line === locate(file, needle, occurrence).line && f.column === locate(file, needle, occurrence).column);

describe('import kueue', () => {
  it('reads v1beta2 (cohortName, parentName): cohorts are parents, a cohort adds its own nominalQuota to its members', () => {
    const { quotas, report, q } = run('kueue', 'kueue-v1beta2.yaml');
    expect(report.failed).toBe(false);
    expect(quotas.map((x) => [x.name, x.parent])).toEqual([
      ['org', null],
      ['research', 'org'],
      ['vision', 'research'],
      ['nlp', 'research'],
      ['serving', 'org'],
    ]);
    expect(q('vision')!.min).toEqual({ gpu: 24, cpu: 144000, memory: 1152 * 1024 });
    expect(q('research')!.min.gpu).toBe(8 + 24 + 32);
    expect(q('org')!.min.gpu).toBe(64 + 24);
    expect(q('vision')).toMatchObject({ queueStrategy: 'fifo', reclaim: 'lower-priority' });
    expect(q('nlp')!.reclaim).toBe('any');
  });

  it('reports every field without a counterpart at the field', () => {
    const F = 'kueue-v1beta2.yaml';
    const { report } = run('kueue', F);
    const w = report.findings;
    // vision's a100 flavor limits its GPUs' borrowing ("8") and its h100 flavor does not: no
    // ceiling over both, said at the h100 GPU resource that has no borrowingLimit.
    expect(w.find((f) => f.code === 'interop/partial-borrowing-limit')).toMatchObject({ path: 'spec.resourceGroups[0].flavors[1].resources[2]' });
    expect(run('kueue', F).q('vision')!.max).toBeUndefined();
    expect(warningAt(w, F, '"4"')[0]).toMatchObject({ code: 'interop/no-counterpart', path: 'spec.resourceGroups[0].flavors[1].resources[2].lendingLimit' });
    // The code says what is lost; the text names which object it is lost on (two share a path).
    expect(w.find((f) => f.path.endsWith('fairSharing') && f.message.includes('Cohort org'))?.code).toBe('interop/no-counterpart');
    expect(w.find((f) => f.path.endsWith('fairSharing') && f.message.includes('ClusterQueue serving'))?.code).toBe('interop/no-counterpart');
    // Flavors are summed, each named with the GPU model its ResourceFlavor's nodeLabels give.
    expect(w.find((f) => f.code === 'interop/flavors-merged' && f.message.includes('a100 (NVIDIA-A100-SXM4-80GB), h100'))).toBeDefined();
    expect(w.find((f) => f.path.endsWith('withinClusterQueue'))?.code).toBe('interop/approximated');
    expect(w.find((f) => f.path.endsWith('borrowWithinCohort'))?.code).toBe('interop/approximated');
    expect(w.find((f) => f.path.endsWith('queueingStrategy'))).toBeUndefined();
    expect(w.find((f) => f.message.includes('WorkloadPriorityClass prod'))?.code).toBe('interop/no-counterpart');
    expect(w.find((f) => f.message.includes('ResourceFlavor a100'))).toBeUndefined();
    expect(w.every((f) => f.severity === 'warning' && f.line > 0)).toBe(true);
  });

  it('reads v1beta1 (cohort, parent)', () => {
    const { quotas, report, q } = run('kueue', 'kueue-v1beta1.yaml');
    expect(report.failed).toBe(false);
    expect(quotas.map((x) => [x.name, x.parent])).toEqual([
      ['all-teams', null],
      ['training', 'all-teams'],
      ['team-b', 'training'],
      ['team-c', 'training'],
    ]);
    expect(q('all-teams')!.min.gpu).toBe(128);
    expect(q('team-b')!.reclaim).toBe('never');
  });

  it("refuses the other version's field name, at the field", () => {
    const text = readFileSync(`${DIR}/kueue-v1beta1.yaml`, 'utf8').replace(
      '  cohort: training\n  resourceGroups:\n    - coveredResources: [nvidia.com/gpu]\n      flavors:\n        - name: default-flavor\n          resources:\n            - name: nvidia.com/gpu\n              nominalQuota: 48',
      '  cohortName: training\n  resourceGroups:\n    - coveredResources: [nvidia.com/gpu]\n      flavors:\n        - name: default-flavor\n          resources:\n            - name: nvidia.com/gpu\n              nominalQuota: 48',
    );
    const r = importQuotas('kueue', [{ path: 'x.yaml', text }], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error')).toMatchObject([{ code: 'interop/kueue-field-version', path: 'spec.cohortName' }]);
  });

  it('writes a QuotaTree the policy loader accepts', () => {
    const { quotas, input } = run('kueue', 'kueue-v1beta2.yaml');
    const { policy, findings } = loadPolicy([{ path: 'tree.yaml', text: importedTreeYaml('t', 'gpu-pool', quotas, [input]) }]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(policy!.quotas.map((x) => x.name)).toEqual(['org', 'research', 'vision', 'nlp', 'serving']);
  });
});

describe('import koordinator', () => {
  it('builds the tree from the parent label and reads spec.min', () => {
    const { quotas, report, q } = run('koordinator', 'koordinator.yaml');
    expect(report.failed).toBe(false);
    expect(quotas.map((x) => [x.name, x.parent])).toEqual([
      ['platform', null],
      ['team-b', 'platform'],
      ['team-c', 'platform'],
    ]);
    expect(q('platform')!.min).toEqual({ gpu: 128, cpu: 1000000, memory: 8 * 1024 * 1024 });
  });

  it('reads spec.max as the ceiling (SEMANTICS 3), the resources it names only', () => {
    const { q, report } = run('koordinator', 'koordinator.yaml');
    // platform's max equals the root's guarantee (it is the root): no ceiling, and the comment says why.
    expect(q('platform')!.max).toBeUndefined();
    expect(q('platform')!.notes).toContain("no max: the given one is at least the root's guarantee, which bounds every quota of the tree");
    expect(q('team-b')!.max).toEqual({ gpu: 96 });
    expect(q('team-c')!.max).toBeUndefined();
    // ... and says so at the field: the only finding at a spec.max.
    expect(report.findings.filter((f) => f.path.startsWith('spec.max')).map((f) => [f.code, f.line])).toEqual([['interop/approximated', 12]]);
  });

  it('refuses a spec.max below the guarantee, at that resource', () => {
    const text = readFileSync(`${DIR}/koordinator.yaml`, 'utf8').replace('max: { nvidia.com/gpu: "96" }', 'max: { nvidia.com/gpu: "40" }');
    const r = importQuotas('koordinator', [{ path: 'k.yaml', text }], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.path])).toEqual([['interop/max-below-min', 'spec.max.nvidia.com/gpu']]);
  });

  it('reports shared weight, allow-lent-resource and unknown resources at the field', () => {
    const F = 'koordinator.yaml';
    const w = run('koordinator', F).report.findings;
    expect(warningAt(w, F, '"false"', 1)[0]?.code).toBe('interop/no-counterpart');
    // The text is the behaviour here: which foreign setting has no counterpart.
    expect(warningAt(w, F, '"false"', 1)[0]?.message).toMatch(/allow-lent-resource/);
    expect(w.find((f) => f.message.includes('shared-weight'))?.code).toBe('interop/no-counterpart');
    // The text is the behaviour here: the finding names the resource.
    expect(w.find((f) => f.code === 'interop/unmapped-resource')?.message).toMatch(/rdma\/hca/);
  });

  it('refuses a parent that is not in the input, at the label that names it', () => {
    const text = readFileSync(`${DIR}/koordinator.yaml`, 'utf8').replace(
      'quota.scheduling.koordinator.sh/parent: platform\n    quota.scheduling.koordinator.sh/is-parent: "false"',
      'quota.scheduling.koordinator.sh/parent: platfrom\n    quota.scheduling.koordinator.sh/is-parent: "false"',
    );
    const r = importQuotas('koordinator', [{ path: 'k.yaml', text }], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error')).toMatchObject([
      { code: 'interop/unknown-parent', line: 20, column: 45, path: 'metadata.labels.quota.scheduling.koordinator.sh/parent' },
    ]);
  });
});

describe('import volcano', () => {
  it('reads parent and deserved; a queue under root is a root', () => {
    const { quotas, report, q } = run('volcano', 'volcano.yaml');
    expect(report.failed).toBe(false);
    expect(quotas.map((x) => [x.name, x.parent])).toEqual([
      ['research', null],
      ['vision', 'research'],
      ['nlp', 'research'],
    ]);
    expect(q('vision')).toMatchObject({ min: { gpu: 32, cpu: 256000 }, queueStrategy: 'fifo' });
  });

  it('reads spec.capability as the ceiling (SEMANTICS 3), and drops one no quota of the tree can reach', () => {
    // vision gets a capability of its own; research's 96 is above its own deserved 64, and a root borrows from nobody.
    const text = readFileSync(`${DIR}/volcano.yaml`, 'utf8').replace('  reclaimable: false\n', '  reclaimable: false\n  capability: { nvidia.com/gpu: "48" }\n');
    const r = importQuotas('volcano', [{ path: 'v.yaml', text }], NAMES);
    const q = (name: string) => r.quotas.find((x) => x.name === name)!;
    expect(q('vision').max).toEqual({ gpu: 48 });
    expect(q('research').max).toBeUndefined();
    expect(q('nlp').max).toBeUndefined();
    expect(r.report.findings.filter((f) => f.path.startsWith('spec.capability')).map((f) => [f.code, f.line])).toEqual([['interop/approximated', 9]]);
  });

  it('reports guarantee, reclaimable, weight, priority and traverse at the field', () => {
    const w = run('volcano', 'volcano.yaml').report.findings;
    for (const field of ['spec.weight', 'spec.guarantee', 'spec.reclaimable', 'spec.dequeueStrategy', 'spec.priority']) {
      expect(w.find((f) => f.path === field)?.code, field).toBe('interop/no-counterpart');
    }
  });

  it('refuses a parent cycle', () => {
    const text = readFileSync(`${DIR}/volcano.yaml`, 'utf8').replace('  parent: root\n', '  parent: vision\n');
    const r = importQuotas('volcano', [{ path: 'v.yaml', text }], NAMES);
    expect(r.report.findings.some((f) => f.code === 'interop/parent-cycle')).toBe(true);
  });
});

describe('parent cycles', () => {
  // On a cycle a quota is its own descendant: its children's sum counts itself, so the
  // only finding is the cycle (a fresh-user trial saw a bogus children-exceed-parent too).
  const gpuList = (n: number) => `[{ coveredResources: [nvidia.com/gpu], flavors: [{ name: default, resources: [{ name: nvidia.com/gpu, nominalQuota: ${n} }] }] }]`;
  const cycles: [QuotaFormat, string][] = [
    [
      'kueue',
      `apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: { name: a }\nspec: { cohort: b, resourceGroups: ${gpuList(8)} }\n---\n` +
        `apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: { name: b }\nspec: { parent: a, resourceGroups: ${gpuList(8)} }\n`,
    ],
    [
      'koordinator',
      ['a', 'b']
        .map(
          (n, i) =>
            `apiVersion: scheduling.sigs.k8s.io/v1alpha1\nkind: ElasticQuota\nmetadata: { name: ${n}, labels: { quota.scheduling.koordinator.sh/parent: ${i ? 'a' : 'b'}, quota.scheduling.koordinator.sh/is-parent: "true" } }\nspec: { min: { nvidia.com/gpu: "${8 * (i + 1)}" } }\n`,
        )
        .join('---\n'),
    ],
    [
      'volcano',
      ['a', 'b', 'c']
        .map((n, i) => `apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: { name: ${n} }\nspec: { parent: ${['b', 'a', 'a'][i]}, deserved: { nvidia.com/gpu: "${8 * (i + 1)}" } }\n`)
        .join('---\n'),
    ],
  ];
  it.each(cycles)('reports only the cycle on a %s parent cycle, not the sum of children over it', (format, text) => {
    const r = importQuotas(format, [{ path: 'c.yaml', text }], NAMES);
    expect(r.report.findings.map((f) => f.code)).toEqual(['interop/parent-cycle']);
  });
});

describe('bad quota input', () => {
  it('locates a bad quantity, a non-object document and syntax errors', () => {
    const bad = importQuotas(
      'volcano',
      [{ path: 'v.yaml', text: 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: { name: q }\nspec:\n  deserved: { nvidia.com/gpu: "1.5" }\n' }],
      NAMES,
    );
    expect(bad.report.findings).toMatchObject([{ code: 'interop/bad-quantity', line: 5, column: 31 }]);
    expect(importQuotas('kueue', [{ path: 'k.yaml', text: '- 1\n- 2\n' }], NAMES).report.findings[0]!.code).toBe('interop/not-an-object');
    expect(importQuotas('kueue', [{ path: 'k.yaml', text: 'kind: [' }], NAMES).report.findings[0]!.code).toBe('interop/yaml-syntax');
    expect(importQuotas('koordinator', [{ path: 'k.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n' }], NAMES).report.findings.map((f) => f.code)).toEqual([
      'interop/skipped-object',
      'interop/no-quotas',
    ]);
  });

  it('says of every object a single-kind format does not read why, and reads a kind of another apiVersion with a warning', () => {
    const text =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n---\napiVersion: scheduling.volcano.sh/v1alpha9\nkind: Queue\nmetadata: { name: q }\nspec:\n  deserved: { nvidia.com/gpu: "8" }\n';
    for (const [format, kind, field] of [
      ['volcano', 'Queue', 'deserved'],
      ['koordinator', 'ElasticQuota', 'min'],
    ] as const) {
      const r = importQuotas(format, [{ path: 'v.yaml', text: text.replace('kind: Queue', `kind: ${kind}`).replace('deserved:', `${field}:`) }], NAMES);
      expect(r.report.findings.filter((f) => f.severity === 'warning').map((f) => [f.code, f.line, f.column])).toEqual([
        ['interop/skipped-object', 2, 7],
        ['interop/api-version', 5, 13],
      ]);
      expect(r.report.findings.some((f) => f.severity === 'error')).toBe(false);
      expect(r.quotas.map((q) => [q.name, q.min.gpu])).toEqual([['q', 8]]);
    }
  });
});
