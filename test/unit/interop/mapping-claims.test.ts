/**
 * The rows of docs/interop.md's mapping tables that no other test pins: a gang's start
 * time, an EcsSpec without ResourceConfig, resources Kueue counts that Quotient does
 * not, Koordinator's is-parent label both ways, and what an ElasticQuota export loses.
 */
import { describe, expect, it } from 'vitest';
import { importKubectl, type KubectlOptions } from '../../../src/interop/import-kubectl.js';
import { importQuotas } from '../../../src/interop/import-quotas.js';
import { exportKoordinator, LABEL_IS_PARENT, LABEL_PARENT } from '../../../src/interop/koordinator.js';
import { readPaiJob } from '../../../src/interop/pai-job.js';
import { DEFAULT_PRIORITY_MAP, parsePriorityMap } from '../../../src/interop/priority-map.js';
import type { TreeQuota } from '../../../src/interop/tree-quota.js';

const NAMES = { gpu: 'nvidia.com/gpu' };
const OPTS: KubectlOptions = {
  gpuResource: 'nvidia.com/gpu',
  modelLabel: 'nvidia.com/gpu.product',
  pool: 'gpu-pool',
  quotaFrom: ['namespace'],
  workspaceFrom: ['namespace'],
  moduleLabel: 'quotient.dev/module',
  module: 'DLC',
  priorityMap: parsePriorityMap(DEFAULT_PRIORITY_MAP).bands!,
};

describe('kubectl: Pod status.startTime → startedAt', () => {
  it('takes the earliest start of the gang', () => {
    const pod = (name: string, start: string) => ({
      kind: 'Pod',
      metadata: { name, namespace: 'team', ownerReferences: [{ kind: 'Job', name: 'train', controller: true }] },
      spec: { nodeName: 'n', containers: [{ resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
      status: { phase: 'Running', startTime: start },
    });
    const list = {
      kind: 'List',
      items: [{ kind: 'Node', metadata: { name: 'n' }, status: { allocatable: { 'nvidia.com/gpu': '8' } } }, pod('train-1', '2026-11-23T02:00:00Z'), pod('train-0', '2026-11-23T01:00:00Z')],
    };
    const r = importKubectl({ path: 'state.json', text: JSON.stringify(list) }, OPTS);
    expect(r.jobs.map((j) => [j.name, j.pods, j.startedAt])).toEqual([['team/train', 2, Date.parse('2026-11-23T01:00:00Z')]]);
  });
});

describe('PAI: JobSpecs[].EcsSpec without ResourceConfig', () => {
  it('is a located error at EcsSpec: an instance type does not say how many GPUs', () => {
    const text = JSON.stringify({ DisplayName: 'x', JobType: 'PyTorchJob', ResourceId: 'a', WorkspaceId: 'a', JobSpecs: [{ PodCount: 1, EcsSpec: 'ecs.gn7i-c32g1.32xlarge' }] }, null, 2);
    const { submission, report } = readPaiJob({ path: 'req.json', text });
    expect(submission).toBeUndefined();
    expect(report.findings.filter((f) => f.severity === 'error')).toMatchObject([{ code: 'interop/pai-ecs-spec', path: 'JobSpecs[0].EcsSpec', line: 9 }]);
  });
});

describe('Kueue: resources other than GPUs, cpu and memory', () => {
  it('are lost with a warning at the resource', () => {
    const text = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: { name: a }
spec:
  resourceGroups:
    - coveredResources: [nvidia.com/gpu, pods]
      flavors:
        - name: f
          resources:
            - { name: nvidia.com/gpu, nominalQuota: 8 }
            - { name: pods, nominalQuota: 100 }
`;
    const r = importQuotas('kueue', [{ path: 'k.yaml', text }], NAMES);
    expect(r.report.failed).toBe(false);
    expect(r.quotas.map((q) => [q.name, q.min])).toEqual([['a', { gpu: 8 }]]);
    expect(r.report.findings.filter((f) => f.code === 'interop/unmapped-resource')).toMatchObject([
      { severity: 'warning', line: 11, message: expect.stringMatching(/resource pods has no counterpart/) },
    ]);
  });
});

describe('Koordinator: the is-parent label', () => {
  const TREE: TreeQuota[] = [
    { name: 'root', parent: null, min: { gpu: 16 }, reclaim: 'never', queueStrategy: 'balance', childPreemption: { preemptiblePriority: '1-3', modules: ['DLC'] } },
    { name: 'leaf', parent: 'root', min: { gpu: 8 }, selfPreemption: { highPriority: '6-9', lowPriority: '1-4', modules: ['DLC'] } },
  ];
  const { objects, rows } = exportKoordinator(TREE, { names: NAMES, namespace: 'default' });
  const labels = (objects as Array<{ metadata: { name: string; labels: Record<string, string> } }>).map((o) => [o.metadata.name, o.metadata.labels[LABEL_IS_PARENT], o.metadata.labels[LABEL_PARENT]]);

  it('is written "true" on a quota with children and "false" on a leaf', () => {
    expect(labels).toEqual([
      ['root', 'true', undefined],
      ['leaf', 'false', 'root'],
    ]);
  });

  it("is checked on import: a parent not marked is a warning at the child's parent label", () => {
    const text = `apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: { name: root }
spec: { min: { nvidia.com/gpu: 16 } }
---
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata:
  name: leaf
  labels: { ${LABEL_PARENT}: root }
spec: { min: { nvidia.com/gpu: 8 } }
`;
    const r = importQuotas('koordinator', [{ path: 'k.yaml', text }], NAMES);
    expect(r.report.failed).toBe(false);
    expect(r.report.findings.filter((f) => f.code === 'interop/parent-not-marked')).toMatchObject([{ severity: 'warning', line: 10, path: `metadata.labels.${LABEL_PARENT}` }]);
  });

  it('exports lose reclaim, queueStrategy, selfPreemption and childPreemption, and the table says so', () => {
    const lost = rows.filter((r) => r.fate === 'lost').map((r) => `${r.quota}.${r.field}`);
    expect(lost.sort()).toEqual(['leaf.selfPreemption', 'root.childPreemption', 'root.queueStrategy', 'root.reclaim']);
  });
});
