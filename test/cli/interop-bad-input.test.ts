/**
 * Bad input in every format Quotient reads from other tools — kubectl JSON, Kueue,
 * Koordinator and Volcano quota objects, PAI CreateJob requests, Kubernetes manifests — is a located error
 * through the CLI: exit 1, `<stdin>:line:col`, the code, the field path where there is
 * one, nothing on stdout, and never a stack trace or an internal error.
 */
import { describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

const POLICY = 'test/fixtures/interop/policy';
const pai = (jobSpec: string, top = '"ResourceId": "team-a",\n "WorkspaceId": "team-a",') => `{\n "DisplayName": "x",\n "JobType": "PyTorchJob",\n ${top}\n "JobSpecs": [ ${jobSpec} ]\n}`;
const kueueCq = (quota: string) =>
  `apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: { name: a }\nspec:\n  resourceGroups:\n    - coveredResources: [nvidia.com/gpu]\n      flavors:\n        - name: f\n          resources:\n            - name: nvidia.com/gpu\n              nominalQuota: ${quota}\n`;

/** [what, args, stdin, where (line:col), code, field path or undefined]. */
const CASES: Array<[string, string[], string, string, string, string | undefined]> = [
  ['kubectl: JSON syntax', ['import', 'kubectl', '-'], '{ "kind": "List", "items": [ }', '1:30', 'interop/yaml-syntax', undefined],
  ['kubectl: empty input', ['import', 'kubectl', '-'], '', '1:1', 'interop/not-a-list', undefined],
  ['kubectl: not a List', ['import', 'kubectl', '-'], '{\n  "kind": "Service"\n}', '2:11', 'interop/not-a-list', 'kind'],
  ['kubectl: an item that is not an object', ['import', 'kubectl', '-'], '{"kind":"List","items":[7]}', '1:25', 'interop/bad-object', 'items[0]'],
  ['kueue: a quantity that is not a number', ['import', 'kueue', '-'], kueueCq('lots'), '11:29', 'interop/bad-quantity', 'spec.resourceGroups[0].flavors[0].resources[0].nominalQuota'],
  [
    "kueue: the other version's field",
    ['import', 'kueue', '-'],
    'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: { name: a }\nspec:\n  cohort: c\n',
    '5:11',
    'interop/kueue-field-version',
    'spec.cohort',
  ],
  [
    'koordinator: a negative guarantee',
    ['import', 'koordinator', '-'],
    'apiVersion: scheduling.sigs.k8s.io/v1alpha1\nkind: ElasticQuota\nmetadata: { name: a }\nspec:\n  min: { nvidia.com/gpu: -3 }\n',
    '5:26',
    'interop/bad-quantity',
    'spec.min.nvidia.com/gpu',
  ],
  [
    'koordinator: a parent nobody declares',
    ['import', 'koordinator', '-'],
    'apiVersion: scheduling.sigs.k8s.io/v1alpha1\nkind: ElasticQuota\nmetadata:\n  name: a\n  labels: { quota.scheduling.koordinator.sh/parent: nope }\nspec:\n  min: { nvidia.com/gpu: 8 }\n',
    '5:53',
    'interop/unknown-parent',
    'metadata.labels.quota.scheduling.koordinator.sh/parent',
  ],
  ['volcano: YAML syntax', ['import', 'volcano', '-'], 'kind: Queue\n  bad: [\n', '1:7', 'interop/yaml-syntax', undefined],
  [
    'volcano: a fractional guarantee',
    ['import', 'volcano', '-'],
    'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: { name: q }\nspec:\n  deserved: { nvidia.com/gpu: "1.5" }\n',
    '5:31',
    'interop/bad-quantity',
    'spec.deserved.nvidia.com/gpu',
  ],
  [
    'volcano: a parent nobody declares',
    ['import', 'volcano', '-'],
    'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: { name: q }\nspec:\n  parent: nowhere\n',
    '5:11',
    'interop/unknown-parent',
    'spec.parent',
  ],
  ['pai: JSON syntax', ['whatif', POLICY, '--job', '-'], '{ "DisplayName": ', '1:18', 'interop/yaml-syntax', undefined],
  ['pai: a missing required field', ['whatif', POLICY, '--job', '-'], pai('{ "PodCount": 1, "ResourceConfig": { "GPU": "8" } }', ''), '1:1', 'interop/pai-missing-field', undefined],
  ['pai: a count that is not a number', ['whatif', POLICY, '--job', '-'], pai('{ "PodCount": "two", "ResourceConfig": { "GPU": "8" } }'), '6:30', 'interop/pai-invalid-field', 'JobSpecs[0].PodCount'],
  [
    'pai: a GPU type that is not a string',
    ['whatif', POLICY, '--job', '-'],
    pai('{ "PodCount": 1, "ResourceConfig": { "GPU": "8", "GPUType": 5 } }'),
    '6:76',
    'interop/pai-invalid-field',
    'JobSpecs[0].ResourceConfig.GPUType',
  ],
  [
    'pai: a spot spec with no limit',
    ['whatif', POLICY, '--job', '-'],
    pai('{ "PodCount": 1, "ResourceConfig": { "GPU": "8" }, "SpotSpec": { "SpotStrategy": "SpotWithPriceLimit" } }'),
    '6:79',
    'interop/pai-invalid-field',
    'JobSpecs[0].SpotSpec',
  ],
  [
    'pai: a quota the policy lacks',
    ['whatif', POLICY, '--job', '-'],
    pai('{ "PodCount": 1, "ResourceConfig": { "GPU": "8" } }', '"ResourceId": "team-z",\n "WorkspaceId": "team-a",'),
    '4:16',
    'policy/unknown-quota',
    'ResourceId',
  ],
  ['manifest: YAML syntax', ['whatif', POLICY, '--job', '-'], 'kind: Job\n  bad: [\n', '1:7', 'interop/yaml-syntax', undefined],
  [
    'manifest: a count that is not a pod count',
    ['whatif', POLICY, '--job', '-'],
    `apiVersion: batch/v1\nkind: Job\nmetadata: { name: j, namespace: team-a }\nspec:\n  parallelism: -2\n  template:\n    spec:\n      containers: [{ name: c, resources: { limits: { nvidia.com/gpu: 8 } } }]\n`,
    '5:16',
    'interop/bad-manifest',
    'spec.parallelism',
  ],
  [
    'manifest: a quota the policy lacks',
    ['whatif', POLICY, '--job', '-'],
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: team-a\n  labels: { quota.scheduling.koordinator.sh/name: team-z }\nspec:\n  template:\n    spec:\n      containers: [{ name: c, resources: { limits: { nvidia.com/gpu: 8 } } }]\n`,
    '6:51',
    'policy/unknown-quota',
    'metadata.labels.quota.scheduling.koordinator.sh/name',
  ],
];

describe('malformed input of every interop format', () => {
  for (const [what, args, stdin, where, code, path] of CASES) {
    it(`${what}: exit 1 with ${code} at <stdin>:${where}${path ? ` (${path})` : ''}`, () => {
      const r = quotient(args, stdin);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const line = new RegExp(`^<stdin>:${where} +error +${code.replace('/', '\\/')} `, 'm');
      expect(r.stderr).toMatch(line);
      if (path) expect(r.stderr).toContain(`    at ${path}\n`);
      expect(r.stderr).not.toMatch(/\.[jt]s:\d+:\d+|internal error|^\s+at .*\(/m);
    });
  }
});
