/**
 * Imports of hostile names round-trip (issue 18 item 4): names a kubectl List or Volcano
 * Queues may hold — C0 and C1 controls, NUL, ESC sequences, bidirectional marks, line
 * separators, lone surrogates, quotes and YAML's indicators — are imported, the
 * document written holds no raw control, C1 or bidirectional character (line feeds
 * aside), and `check` reads it back with no error. The rule is rewrite, not refuse
 * (interop/imported-name.ts); a case the import refuses (two names rewritten alike) is
 * counted and must stay rare.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { importKubectl, type KubectlOptions } from '../../src/interop/import-kubectl.js';
import { KUBECTL_DEFAULTS } from '../helpers/kubectl-options.js';
import { importedTreeYaml, importQuotas } from '../../src/interop/import-quotas.js';
import { clusterYaml } from '../../src/interop/write-cluster.js';
import { loadPolicy } from '../../src/policy/load-policy.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

/** Any character that must not reach a terminal or a policy raw (line feeds are the document's own), and lone surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const HOSTILE = fc.constantFrom(
  '\u0000',
  '\u001b',
  '\u001b[8m',
  '\u001b[2J',
  '\n',
  '\r',
  '\t',
  '\u0007',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u061c',
  '\u2028',
  '\ud800',
  '\udc00',
  '\ufeff',
  '"',
  "'",
  '\\',
  ': ',
  ' #',
  '- ',
  '{',
  '[',
  '&a',
  '*a',
  '!',
  '%',
  '@',
  '`',
  '|',
  '>',
  '---',
  '~',
  'null',
  'yes',
  '1e3',
  ' ',
  'é',
  '😀',
);
/** A name of safe letters and hostile pieces, never empty. */
const NAME = fc.array(fc.oneof(HOSTILE, fc.constantFrom('a', 'team', 'n', '-', '.', '/', '0')), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));

const OPTS: KubectlOptions = { ...KUBECTL_DEFAULTS, quotaFrom: ['kueue', 'namespace'] };

/** The input as JSON (kubectl's) or as YAML, which take different readers. */
const serialise = (value: unknown, asYaml: boolean): string => (asYaml ? stringify(value) : JSON.stringify(value, null, 4));

/** A QuotaTree and Workspaces holding every quota and workspace the imported jobs name, each guaranteeing what its jobs run. */
function treeFor(jobs: Array<{ quota: string; workspace: string; resources: { gpu: number }; pods: number }>, gpus: number): string {
  const byQuota = new Map<string, number>();
  for (const j of jobs) byQuota.set(j.quota, (byQuota.get(j.quota) ?? 0) + j.pods * j.resources.gpu);
  const tree = {
    apiVersion: 'quotient.dev/v1',
    kind: 'QuotaTree',
    metadata: { name: 't' },
    spec: { pool: { name: 'gpu-pool' }, quotas: [{ name: '__all__', min: { gpu: gpus }, children: [...byQuota].map(([name, gpu]) => ({ name, min: { gpu } })) }] },
  };
  const workspaces = [...new Set(jobs.map((j) => j.workspace))].map((name) => ({
    apiVersion: 'quotient.dev/v1',
    kind: 'Workspace',
    metadata: { name },
    spec: { quotas: [...byQuota.keys()], modules: ['DLC', 'DSW', 'EAS'] },
  }));
  return [tree, ...workspaces].map((d) => stringify(d)).join('---\n');
}

describe('imported names', () => {
  it('kubectl: hostile names come out escaped, and the snapshot checks clean', () => {
    let checked = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(NAME, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ name: NAME, namespace: NAME, queue: fc.option(NAME), owner: fc.option(fc.record({ kind: NAME, name: NAME })), node: fc.nat(), model: NAME }), {
          minLength: 1,
          maxLength: 5,
        }),
        NAME,
        fc.boolean(),
        (nodeNames, pods, path, asYaml) => {
          const items = [
            ...nodeNames.map((name, i) => ({
              apiVersion: 'v1',
              kind: 'Node',
              metadata: { name, labels: { 'nvidia.com/gpu.product': pods[i % pods.length]!.model } },
              status: { allocatable: { 'nvidia.com/gpu': '8' } },
            })),
            ...pods.map((p, i) => ({
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: {
                name: `${p.name}${i}`,
                namespace: p.namespace,
                labels: p.queue === null ? {} : { 'kueue.x-k8s.io/queue-name': p.queue },
                ...(p.owner ? { ownerReferences: [{ ...p.owner, controller: true }] } : {}),
              },
              spec: { nodeName: nodeNames[p.node % nodeNames.length], priority: 1000, containers: [{ resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
              status: { phase: 'Running', startTime: '2026-11-23T00:00:00Z' },
            })),
          ];
          const r = importKubectl({ path, text: serialise({ apiVersion: 'v1', kind: 'List', items }, asYaml) }, OPTS);
          if (r.report.failed) {
            // Only two names rewritten alike may refuse it (a name holding "\e" as text beside one holding ESC).
            expect(r.report.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(expect.arrayContaining([expect.stringMatching(/^interop\/duplicate-/)]));
            refused++;
            return;
          }
          const at = Date.parse('2026-11-24T00:00:00Z');
          const text = clusterYaml('imported', at, path, r.nodes, r.jobs);
          expect(RAW_UNSAFE.exec(text), text).toBeNull();
          for (const s of r.skipped) expect(RAW_UNSAFE.exec(`${s.kind} ${s.name} ${s.reason} ${s.where}`)).toBeNull();
          const { findings } = loadPolicy([
            { path: 'tree.yaml', text: treeFor(r.jobs, r.nodes.length * 8) },
            { path: 'cluster.yaml', text },
          ]);
          expect(
            findings.filter((f) => f.severity === 'error'),
            text,
          ).toEqual([]);
          expect(r.nodes.length).toBe(nodeNames.length);
          checked++;
        },
      ),
      { numRuns: RUNS },
    );
    expect(checked).toBeGreaterThan(RUNS * 0.9);
    expect(refused).toBeLessThan(RUNS * 0.1);
  });

  it('volcano: hostile queue names come out escaped, parents still resolve, and the tree checks clean', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.uniqueArray(NAME, { minLength: 1, maxLength: 5 }), fc.array(fc.nat()), fc.boolean(), fc.boolean(), (names, parents, annotate, asYaml) => {
        // Queue i's parent is an earlier queue (by object name) or Volcano's root; each guarantees one GPU more than its children.
        const parentOf = names.map((_, i) => (i === 0 || (parents[i] ?? 0) % 3 === 0 ? undefined : names[(parents[i] ?? 0) % i]));
        const min = names.map(() => 1);
        for (let i = names.length - 1; i > 0; i--) {
          const p = parentOf[i];
          if (p !== undefined) min[names.indexOf(p)]! += min[i]!;
        }
        const objects = names.map((name, i) => ({
          apiVersion: 'scheduling.volcano.sh/v1beta1',
          kind: 'Queue',
          metadata: { name, ...(annotate ? { annotations: { 'quotient.dev/name': `${name}!` } } : {}) },
          spec: { deserved: { 'nvidia.com/gpu': String(min[i]) }, ...(parentOf[i] !== undefined ? { parent: parentOf[i] } : {}) },
        }));
        const file = { path: 'queues', text: asYaml ? objects.map((o) => stringify(o)).join('---\n') : JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) };
        const { quotas, report } = importQuotas('volcano', [file], { gpu: 'nvidia.com/gpu' });
        expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
        const text = importedTreeYaml('volcano-import', 'gpu-pool', quotas, [file]);
        expect(RAW_UNSAFE.exec(text), text).toBeNull();
        expect(quotas.filter((q) => q.parent !== null).length).toBe(parentOf.filter((p) => p !== undefined).length);
        const { findings } = loadPolicy([{ path: 'tree.yaml', text }]);
        expect(
          findings.filter((f) => f.severity === 'error'),
          text,
        ).toEqual([]);
        checked++;
      }),
      { numRuns: RUNS },
    );
    expect(checked).toBe(RUNS);
  });
});
