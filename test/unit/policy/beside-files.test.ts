/**
 * Files named beside a policy folder (`quotient whatif policy/ cluster.yaml`) join the
 * folder's policy; a Cluster among them replaces the folder's own, and the policy says
 * where its snapshot came from (docs/cli.md, "Paths").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';

const TREE =
  'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: p }\n  quotas:\n    - name: Q\n      min: { gpu: 8 }\n---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: w }\nspec: { quotas: [Q] }\n';
const cluster = (name: string, node: string): string =>
  `apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: ${name} }\nspec:\n  at: 2026-11-23T12:00:00Z\n  nodes:\n    - { name: ${node}, gpus: 8, pool: p }\n`;
const WHATIF = 'apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: extra }\nspec:\n  submit: { name: j, workspace: w, quota: Q, module: DLC, priority: 5, pods: 1, resources: { gpu: 1 } }\n';

describe('files named beside a policy folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'quotient-beside-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pol = join(dir, 'policy');
  mkdirSync(pol);
  writeFileSync(join(pol, 'quotas.yaml'), TREE);
  writeFileSync(join(pol, 'cluster.yaml'), cluster('example', 'n-example'));
  writeFileSync(join(dir, 'live.yaml'), cluster('live', 'n-live'));
  writeFileSync(join(dir, 'ask.yaml'), WHATIF);

  it('join the folder into one policy, labelled by both, and replayable from its paths', () => {
    const bundles = readBundles([pol, join(dir, 'live.yaml')]);
    expect(bundles).toHaveLength(1);
    expect(bundles[0]!.label).toBe(`${pol} + ${join(dir, 'live.yaml')}`);
    expect(bundles[0]!.paths).toEqual([pol, join(dir, 'live.yaml')]);
    expect(bundles[0]!.files.map((f) => [f.path, f.beside ?? false])).toEqual([
      [join(pol, 'cluster.yaml'), false],
      [join(pol, 'quotas.yaml'), false],
      [join(dir, 'live.yaml'), true],
    ]);
  });

  it("replace the folder's Cluster with theirs, and say which files were replaced", () => {
    const [b] = readBundles([pol, join(dir, 'live.yaml')]);
    const { policy, findings } = loadPolicy(b!.files);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(policy!.cluster!.name).toBe('live');
    expect(policy!.cluster!.nodes.map((n) => n.name)).toEqual(['n-live']);
    expect(policy!.snapshotFrom).toEqual({ files: [join(dir, 'live.yaml')], replaced: [join(pol, 'cluster.yaml')] });
  });

  it('without a Cluster of their own, only add documents: the folder keeps its snapshot', () => {
    const [b] = readBundles([pol, join(dir, 'ask.yaml')]);
    const { policy } = loadPolicy(b!.files);
    expect(policy!.cluster!.name).toBe('example');
    expect(policy!.snapshotFrom).toBeUndefined();
    expect(policy!.whatIfs.map((w) => w.name)).toEqual(['extra']);
  });

  it('join every policy a folder of policies stands for', () => {
    const many = join(dir, 'many');
    for (const sub of ['a', 'b']) {
      mkdirSync(join(many, sub), { recursive: true });
      writeFileSync(join(many, sub, 'quotas.yaml'), TREE);
    }
    const bundles = readBundles([many, join(dir, 'live.yaml')]);
    expect(bundles.map((b) => b.label)).toEqual([`${many}/a + ${join(dir, 'live.yaml')}`, `${many}/b + ${join(dir, 'live.yaml')}`]);
    for (const b of bundles) expect(loadPolicy(b.files).policy!.snapshotFrom).toEqual({ files: [join(dir, 'live.yaml')], replaced: [] });
  });

  it("are not read twice when they are already the folder's", () => {
    const bundles = readBundles([pol, join(pol, 'quotas.yaml')]);
    expect(bundles).toHaveLength(1);
    expect(bundles[0]!.label).toBe(pol);
    expect(bundles[0]!.files).toHaveLength(2);
  });

  it('alone still form one policy of their own', () => {
    const bundles = readBundles([join(pol, 'quotas.yaml'), join(dir, 'live.yaml')]);
    expect(bundles).toHaveLength(1);
    expect(bundles[0]!.files.every((f) => f.beside === undefined)).toBe(true);
  });
});
