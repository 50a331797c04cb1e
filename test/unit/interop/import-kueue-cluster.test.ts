/**
 * `import kueue` on a cluster written as Kueue's docs write it (test/fixtures/interop/kueue-cluster):
 * LocalQueues become a Workspace per namespace, borrowingLimit a ceiling, a cohort's
 * ClusterQueues borrow, queueing strategies and preemption map to their nearest
 * counterparts with warnings saying what differs, and flavors are named with their GPU
 * model. Each rule is pinned at its value and its finding's code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importedTreeYaml, importQuotas } from '../../../src/interop/import-quotas.js';
import { NEAREST_SELF_PREEMPTION } from '../../../src/interop/kueue-preemption.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const FILE = 'test/fixtures/interop/kueue-cluster/kueue.yaml';
const TEXT = readFileSync(FILE, 'utf8');
const NAMES = { gpu: 'nvidia.com/gpu' };
const run = (text = TEXT) => {
  const r = importQuotas('kueue', [{ path: FILE, text }], NAMES);
  return { ...r, q: (n: string) => r.quotas.find((x) => x.name === n)! };
};

describe('import kueue: a cohort of three ClusterQueues with LocalQueues', () => {
  it('makes one Workspace per namespace, associated with the ClusterQueues its LocalQueues feed, and says which in its notes', () => {
    const { workspaces, report } = run();
    expect(report.failed).toBe(false);
    expect(workspaces.map((w) => [w.name, w.quotas])).toEqual([
      ['research', ['research-cq']],
      ['prod', ['prod-cq']],
      ['dev', ['dev-cq']],
    ]);
    expect(workspaces[0]!.notes.join('\n')).toContain('LocalQueue research/research-queue → ClusterQueue research-cq');
    // Two LocalQueues of one namespace feeding two ClusterQueues: one Workspace with both.
    const two = run(`${TEXT}---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {namespace: dev, name: dev-batch}\nspec: {clusterQueue: research-cq}\n`);
    expect(two.workspaces.find((w) => w.name === 'dev')!.quotas).toEqual(['dev-cq', 'research-cq']);
  });

  it('refuses a LocalQueue that feeds an undeclared ClusterQueue, or has no namespace, at the field', () => {
    const bad = run(`${TEXT}---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {namespace: dev, name: x}\nspec: {clusterQueue: nowhere-cq}\n`);
    expect(bad.report.findings.filter((f) => f.severity === 'error')).toMatchObject([{ code: 'interop/unknown-cluster-queue', path: 'spec.clusterQueue' }]);
    const noNs = run(`${TEXT}---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: x}\nspec: {clusterQueue: dev-cq}\n`);
    expect(noNs.report.findings.filter((f) => f.severity === 'error')).toMatchObject([{ code: 'interop/kueue-local-queue', path: 'metadata' }]);
  });

  it('turns borrowingLimit into max = nominalQuota + borrowingLimit, and leaves quotas without a limit unbounded', () => {
    const { q } = run();
    expect(q('research-cq').max).toEqual({ gpu: 24 });
    expect(q('prod-cq').max).toBeUndefined();
    expect(q('research-cq').notes).toContain('max.gpu 24: nominal quota 16 + borrowingLimit 8');
  });

  it("lets every ClusterQueue of a cohort borrow (borrowing.priority 1-9), and not the cohort's root", () => {
    const { q } = run();
    for (const cq of ['research-cq', 'prod-cq', 'dev-cq']) expect(q(cq).borrowing).toEqual({ priority: '1-9' });
    expect(q('ai-platform').borrowing).toBeUndefined();
  });

  it("maps StrictFIFO to fifo and BestEffortFIFO (Kueue's default when absent) to round-robin", () => {
    const { q } = run();
    expect([q('research-cq').queueStrategy, q('prod-cq').queueStrategy, q('dev-cq').queueStrategy]).toEqual(['round-robin', 'fifo', 'round-robin']);
  });

  it("maps reclaimWithinCohort one to one, and its absence to Kueue's default Never", () => {
    const { q } = run();
    expect([q('research-cq').reclaim, q('prod-cq').reclaim, q('dev-cq').reclaim]).toEqual(['any', 'any', 'lower-priority']);
    const absent = run(TEXT.replace('  preemption:\n    reclaimWithinCohort: LowerPriority\n', ''));
    expect(absent.q('dev-cq').reclaim).toBe('never');
  });

  it('maps withinClusterQueue and borrowWithinCohort LowerPriority to the nearest selfPreemption, each with a warning at the field', () => {
    const { q, report } = run();
    expect(q('prod-cq').selfPreemption).toEqual(NEAREST_SELF_PREEMPTION);
    expect(q('research-cq').selfPreemption).toBeUndefined();
    expect(report.findings.filter((f) => f.code === 'interop/approximated').map((f) => f.path)).toEqual(['spec.preemption.withinClusterQueue']);
    const borrow = run(
      TEXT.replace('    reclaimWithinCohort: LowerPriority\n', '    reclaimWithinCohort: LowerPriority\n    borrowWithinCohort:\n      policy: LowerPriority\n      maxPriorityThreshold: 100\n'),
    );
    expect(borrow.q('dev-cq').selfPreemption).toEqual(NEAREST_SELF_PREEMPTION);
    expect(borrow.report.findings.filter((f) => f.code === 'interop/approximated').map((f) => f.path)).toContain('spec.preemption.borrowWithinCohort');
    const never = run(TEXT.replace('withinClusterQueue: LowerPriority', 'withinClusterQueue: Never'));
    expect(never.q('prod-cq').selfPreemption).toBeUndefined();
    const bad = run(TEXT.replace('withinClusterQueue: LowerPriority', 'withinClusterQueue: Sometimes'));
    expect(bad.report.findings.filter((f) => f.severity === 'error')).toMatchObject([{ code: 'interop/invalid-field', path: 'spec.preemption.withinClusterQueue' }]);
  });

  it("names each flavor's GPU model from its ResourceFlavor's nodeLabels", () => {
    const { q } = run();
    expect(q('research-cq').notes!.some((n) => n.startsWith('flavor a100: GPU model NVIDIA-A100-SXM4-80GB'))).toBe(true);
  });

  it('writes a QuotaTree and Workspaces that the policy loader accepts with the values above', () => {
    const { quotas, workspaces } = run();
    const { policy, findings } = loadPolicy([{ path: 'tree.yaml', text: importedTreeYaml('t', 'gpu-pool', quotas, [{ path: FILE, text: TEXT }], workspaces) }]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(policy!.workspaces.map((w) => [w.name, w.quotas])).toEqual([
      ['research', ['research-cq']],
      ['prod', ['prod-cq']],
      ['dev', ['dev-cq']],
    ]);
    const research = policy!.quotas.find((x) => x.name === 'research-cq')!;
    expect(research.max).toEqual({ gpu: 24 });
    expect(research.borrowing!.priority).toEqual({ lo: 1, hi: 9 });
  });
});
