/**
 * import kueue of a chain of Cohorts (issue 27 item 6): linear and iterative (5,000 levels
 * overflowed the stack, 1,000 took seconds of quadratic work), and the depth a QuotaTree
 * may nest stated at import as a located error, so an import never exits 0 with a tree
 * `check` refuses as policy/too-deep. A nominalQuota past what a policy holds (1e308, 20
 * digits, or a Cohort's sum) is a located import error, not a tree check refuses.
 */
import { describe, expect, it } from 'vitest';
import { importedTreeYaml, importQuotas } from '../../../src/interop/import-quotas.js';
import { maxTreeDepth } from '../../../src/interop/tree-quota.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const NAMES = { gpu: 'nvidia.com/gpu' };

/** `cohorts` Cohorts, each the parent of the next, and a ClusterQueue of `nominal` GPUs (as written) in the last. */
function chain(cohorts: number, nominal = '8'): { path: string; text: string } {
  const docs: string[] = [];
  for (let i = 0; i < cohorts; i++) docs.push(`apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c${i}}\nspec: {${i ? `parent: c${i - 1}` : ''}}`);
  docs.push(
    `apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  cohort: c${cohorts - 1}\n  queueingStrategy: StrictFIFO\n  preemption: {withinClusterQueue: LowerPriority}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: default\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: ${nominal}}`,
  );
  return { path: 'chain.yaml', text: docs.join('\n---\n') };
}
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

describe('import kueue: a chain of Cohorts', () => {
  it('imports the deepest tree a QuotaTree may nest, and check loads it clean', () => {
    const levels = maxTreeDepth();
    expect(levels).toBe(48);
    const input = chain(levels - 1);
    const r = importQuotas('kueue', [input], NAMES);
    expect(r.report.failed).toBe(false);
    expect(r.quotas.map((q) => q.min.gpu)).toEqual(Array(levels).fill(8));
    const { findings } = loadPolicy([{ path: 'tree.yaml', text: importedTreeYaml('t', 'gpu-pool', r.quotas, [input]) }]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('refuses one level more at import, once, at the parent reference of the first quota past the limit', () => {
    const input = chain(maxTreeDepth());
    const r = importQuotas('kueue', [input], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.path, f.line])).toEqual([['interop/tree-too-deep', 'spec.cohort', lineOf(input.text, '  cohort: c47')]]);
    expect(r.quotas).toEqual([]);
    // What the import refuses, check refuses too: the tree written anyway is policy/too-deep.
    const forced = importQuotas('kueue', [chain(maxTreeDepth() - 1)], NAMES);
    const deeper = forced.quotas.map((q) => ({ ...q }));
    deeper.push({ name: 'one-more', parent: 'cq', min: { gpu: 8 }, selfPreemption: { highPriority: '5-9', lowPriority: '1-4', modules: ['DLC'] } });
    const { findings } = loadPolicy([{ path: 'tree.yaml', text: importedTreeYaml('t', 'gpu-pool', deeper, []) }]);
    expect(findings.map((f) => f.code)).toContain('policy/too-deep');
  });

  it('reads 5,000 levels without overflowing the stack, in linear time, and states the limit', () => {
    const started = performance.now();
    const r = importQuotas('kueue', [chain(5000)], NAMES);
    const ms = performance.now() - started;
    expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['interop/tree-too-deep']);
    // Measured 2 s on a loaded 2-core machine (main: a stack overflow from about 500 levels, and 283 s for 5,000 in the issue); generous.
    expect(ms).toBeLessThan(20_000);
  });
});

describe('import kueue: quantities past what a policy holds', () => {
  it.each([['1e308'], ['12345678901234567890'], ['"12345678901234567890"']])('refuses nominalQuota %s at the value, with interop/out-of-range', (nominal) => {
    const input = chain(1, nominal);
    const r = importQuotas('kueue', [input], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.path, f.line])).toEqual([
      ['interop/out-of-range', 'spec.resourceGroups[0].flavors[0].resources[0].nominalQuota', lineOf(input.text, 'nominalQuota')],
    ]);
  });

  it("refuses a Cohort whose members' sum is past 2^53 GPUs, at the Cohort", () => {
    const big = String(2 ** 52);
    const cq = (n: string) =>
      `apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: ${n}}\nspec:\n  cohort: top\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: default\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: ${big}}`;
    const text = ['apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: top}\nspec: {}', cq('a'), cq('b')].join('\n---\n');
    const r = importQuotas('kueue', [{ path: 'sum.yaml', text }], NAMES);
    expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.line])).toEqual([['interop/out-of-range', 1]]);
  });
});
