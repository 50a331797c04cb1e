/**
 * Kueue's objects → a QuotaTree under `rules: kueue` (SEMANTICS 12): every clause as Kueue
 * wrote it, nothing approximated; the tree loads clean and answers as Kueue would.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kueueRulesTreeYaml } from '../../../src/interop/kueue-rules.js';
import { readObjects, Report } from '../../../src/interop/located-json.js';
import { openSession } from '../../helpers/session.js';

const DIR = 'test/fixtures/kueue-rules/own-queue-lower-priority';
const convert = (path: string) => {
  const report = new Report();
  const objects = readObjects([{ path, text: readFileSync(path, 'utf8') }], report);
  return { yaml: kueueRulesTreeYaml(objects, 'imported', 'gpu-pool', report), report };
};

describe('kueueRulesTreeYaml', () => {
  it("writes flavors, cohorts and ClusterQueues with Kueue's clauses, and approximates nothing", () => {
    const { yaml, report } = convert(`${DIR}/kueue.yaml`);
    expect(report.findings).toEqual([]);
    const session = openSession([
      { path: 'tree.yaml', text: yaml! },
      { path: 'cluster.yaml', text: readFileSync(`${DIR}/cluster.yaml`, 'utf8') },
    ]);
    const pool = session.policy.pools[0]!;
    expect(pool).toMatchObject({ rules: 'kueue', name: 'gpu-pool' });
    expect(pool.flavors!.map((f) => [f.name, f.nodeLabels, f.nodeTaints.length])).toEqual([
      ['a100', { 'gpu.example.com/model': 'a100' }, 0],
      ['h100', { 'gpu.example.com/model': 'h100' }, 1],
    ]);
    const research = session.policy.quotas.find((q) => q.name === 'research')!;
    expect(research).toMatchObject({ parent: 'org', kueue: { kind: 'ClusterQueue', queueingStrategy: 'StrictFIFO', preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any' } } });
    expect(research.kueue!.resourceGroups[0]!.flavors.map((f) => f.name)).toEqual(['h100', 'a100']);
    expect(session.policy.quotas.find((q) => q.name === 'serving')!.parent).toBe('org');
  });

  it("answers the translated Kueue case as Kueue does: priority 10000 preempts its queue's 1000 on a100, h100 skipped for its taint", async () => {
    const { yaml } = convert(`${DIR}/kueue.yaml`);
    const session = openSession([
      { path: 'tree.yaml', text: yaml! },
      { path: 'cluster.yaml', text: readFileSync(`${DIR}/cluster.yaml`, 'utf8') },
    ]);
    const w = session.policy.whatIfs[0]!;
    const a = await session.answerJob(w.name, w.submit);
    expect(a).toMatchObject({ decision: 'preempt', standing: 'in-quota', placement: [{ node: 'a-0' }] });
    expect(a.victims.map((v) => [v.job, v.code, v.rule])).toEqual([['low', 'victim/kueue-in-cluster-queue', 'research/preemption.withinClusterQueue']]);
    expect(a.reasons.find((r) => r.code === 'kueue/flavor-assigned')!.message).toContain('h100 NoFit');
  });

  it('creates a cohort named but not declared, as Kueue does, and says what it leaves out', () => {
    const text = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: { name: default }
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: { name: cq }
spec:
  cohortName: implicit
  stopPolicy: Hold
  resourceGroups: [ { coveredResources: [cpu], flavors: [ { name: default, resources: [ { name: cpu, nominalQuota: 4 } ] } ] } ]
`;
    const report = new Report();
    const yaml = kueueRulesTreeYaml(readObjects([{ path: 'k.yaml', text }], report), 't', 'p', report)!;
    expect(yaml).toContain('- name: "implicit"');
    expect(report.findings.map((f) => [f.code, f.path])).toEqual([['interop/kueue-field-dropped', 'spec.stopPolicy']]);
  });

  it('refuses a ClusterQueue naming a ResourceFlavor the input does not hold (Kueue keeps it inactive), at the name, and writes no tree', () => {
    const text = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: { name: cq }
spec:
  resourceGroups: [ { coveredResources: [cpu], flavors: [ { name: missing, resources: [ { name: cpu, nominalQuota: 4 } ] } ] } ]
`;
    const report = new Report();
    expect(kueueRulesTreeYaml(readObjects([{ path: 'k.yaml', text }], report), 't', 'p', report)).toBeUndefined();
    expect(report.findings.map((f) => [f.code, f.path, f.line])).toEqual([['interop/unknown-flavor', 'spec.resourceGroups[0].flavors[0].name', 5]]);
  });
});
