/**
 * `import kubectl` and `import volcano` end to end on hostile names (built CLI): exit 0,
 * no raw control, C1 or bidirectional byte on stdout or stderr (the renderer's own line
 * feeds aside), and the document written checks clean; inconsistent input is a located
 * error with exit 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const HOSTILE_LIST = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n\u202e1', labels: { 'nvidia.com/gpu.product': 'A100\u0000' } }, status: { allocatable: { 'nvidia.com/gpu': '8' } } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p\u001b[8m', namespace: 'team\u0085a', ownerReferences: [{ kind: 'Job', name: 'j\n- x: "y"', controller: true }] },
      spec: { nodeName: 'n\u202e1', priority: 1000, containers: [{ resources: { limits: { 'nvidia.com/gpu': '2' } } }] },
      status: { phase: 'Running', startTime: '2026-11-23T01:00:00Z' },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q\u001b[2J', namespace: 'team\u0085a' }, spec: { nodeName: 'gone\u2066' }, status: { phase: 'Running' } },
  ],
});

describe('imported names, end to end', () => {
  it('import kubectl writes escaped names that check reads back clean, and nothing raw on either stream', () => {
    const r = quotient(['import', 'kubectl', '-', '--at', '2026-11-24T00:00:00Z'], HOSTILE_LIST);
    expect(r.status).toBe(0);
    expect(RAW_UNSAFE.exec(r.stdout)).toBeNull();
    expect(RAW_UNSAFE.exec(r.stderr.replace(/\n/g, ''))).toBeNull();
    expect(r.stdout).toContain('name: "team\\\\u{85}a/j\\\\n- x: \\"y\\""');
    expect(r.stderr).toContain('interop/unsafe-name');
    const dir = mkdtempSync(join(tmpdir(), 'quotient-names-'));
    try {
      writeFileSync(join(dir, 'cluster.yaml'), r.stdout);
      writeFileSync(
        join(dir, 'tree.yaml'),
        [
          'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: gpu-pool }\n  quotas:\n    - { name: "team\\\\u{85}a", min: { gpu: 8 } }',
          'apiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: "team\\\\u{85}a" }\nspec: { quotas: ["team\\\\u{85}a"], modules: [DLC] }',
        ].join('\n---\n'),
      );
      const check = quotient(['check', dir]);
      expect(check.stdout).toContain('no findings');
      expect(check.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('import volcano writes escaped queue names that check reads back clean', () => {
    const queues = JSON.stringify({
      kind: 'List',
      items: [
        { apiVersion: 'scheduling.volcano.sh/v1beta1', kind: 'Queue', metadata: { name: 'a\u202eb\u001b[8m' }, spec: { deserved: { 'nvidia.com/gpu': '8' } } },
        { apiVersion: 'scheduling.volcano.sh/v1beta1', kind: 'Queue', metadata: { name: 'kid\u0000' }, spec: { parent: 'a\u202eb\u001b[8m', deserved: { 'nvidia.com/gpu': '4' } } },
      ],
    });
    const r = quotient(['import', 'volcano', '-'], queues);
    expect(r.status).toBe(0);
    expect(RAW_UNSAFE.exec(r.stdout)).toBeNull();
    expect(RAW_UNSAFE.exec(r.stderr.replace(/\n/g, ''))).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'quotient-names-'));
    try {
      writeFileSync(join(dir, 'tree.yaml'), r.stdout);
      const check = quotient(['check', dir]);
      expect(check.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('import kubectl of two Nodes of one name is a located error, exit 1, no document', () => {
    const list = JSON.stringify({ kind: 'List', items: ['n1', 'n1'].map((name) => ({ kind: 'Node', metadata: { name }, status: { allocatable: { 'nvidia.com/gpu': '8' } } })) }, null, 2);
    const r = quotient(['import', 'kubectl', '-'], list);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/<stdin>:\d+:\d+ +error +interop\/duplicate-node/);
  });
});
