/**
 * The interop commands end to end (built CLI): stdout holds only the document, the
 * summary and findings go to stderr, bad input is a located error with exit 1 and
 * never a stack trace.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { onlyAnswer, readReport } from '../helpers/report.js';
import { quotient } from '../helpers/run-cli.js';

const STATE = 'test/fixtures/interop/kubectl-state.json';

describe('quotient import kubectl', () => {
  it('writes a Cluster document on stdout and the summary on stderr', () => {
    const r = quotient(['import', 'kubectl', STATE, '--at', '2026-11-23T12:00:00Z']);
    expect(r.status).toBe(0);
    const doc = parseYaml(r.stdout) as { kind: string; spec: { nodes: unknown[]; jobs: unknown[] } };
    expect(doc.kind).toBe('Cluster');
    expect(doc.spec.nodes).toHaveLength(24);
    expect(r.stderr).toMatch(/^read: 30 Node, 244 Pod/m);
    expect(r.stderr).toMatch(/skipped: \d+ object\(s\)/);
    expect(r.stderr).toMatch(/team-c\/frac-gpu/);
  });

  it('says of each job that started after --at that its startedAt is left out, in its comment and in the summary', () => {
    const r = quotient(['import', 'kubectl', STATE, '--at', '2026-11-23T06:30:00Z']);
    expect(r.status).toBe(0);
    const jobs = (parseYaml(r.stdout) as { spec: { jobs: Array<{ name: string; startedAt?: string }> } }).spec.jobs;
    // Every startedAt written is at or before the snapshot's time; the later ones are said, one comment each.
    expect(jobs.every((j) => j.startedAt === undefined || j.startedAt <= '2026-11-23T06:30:00.000Z')).toBe(true);
    const notes = r.stdout.match(/after the snapshot's time \(at\): startedAt is left out/g) ?? [];
    expect(notes.length).toBeGreaterThan(0);
    const count = /startedAt left out: (\d+) job\(s\) started after --at 2026-11-23T06:30:00.000Z/.exec(r.stderr);
    expect(Number(count?.[1])).toBe(notes.length);
    // The early import keeps them all.
    const all = quotient(['import', 'kubectl', STATE, '--at', '2026-11-23T12:00:00Z']);
    expect(all.stderr).not.toMatch(/startedAt left out/);
    expect(all.stdout).not.toMatch(/startedAt is left out/);
  });

  it('reads stdin for -', () => {
    const r = quotient(['import', 'kubectl', '-', '--at', '2026-11-23T12:00:00Z'], '{"kind":"List","items":[]}');
    expect(r.status).toBe(0);
    expect((parseYaml(r.stdout) as { kind: string }).kind).toBe('Cluster');
  });

  it('gives a located error and exit 1 for input that is not a List, never a trace', () => {
    const r = quotient(['import', 'kubectl', '-'], '{\n  "kind": "Service"\n}');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/<stdin>:2:11 +error +interop\/not-a-list/);
    expect(r.stderr).not.toMatch(/\.js:\d+:\d+/);
  });

  it('refuses a bad flag with exit 2', () => {
    const r = quotient(['import', 'kubectl', STATE, '--priority-map', '0=9,10=1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--priority-map/);
  });
});

describe('quotient whatif --job (a PAI CreateJob request)', () => {
  it('answers the request like any WhatIf', () => {
    const r = quotient(['whatif', 'test/fixtures/interop/policy', '--job', 'test/fixtures/interop/pai-request.json', '--json']);
    expect(r.status).toBe(0);
    const a = onlyAnswer(r.stdout) as { job: string; quota: string; decision: string; placement: Array<{ node: string }> };
    expect(a).toMatchObject({ job: 'llm-finetune', quota: 'team-a', decision: 'admit' });
    expect(a.placement).toHaveLength(4);
    // GPUType NVIDIA-H100-80GB-HBM3: the fixture's H100 nodes are gpu-node-16..22 (23 is cordoned).
    expect(a.placement.every((p) => /^gpu-node-(1[6-9]|2[0-2])$/.test(p.node))).toBe(true);
  });

  it('locates a bad request field and exits 1', () => {
    const r = quotient(
      ['whatif', 'test/fixtures/interop/policy', '--job', '-'],
      '{\n  "DisplayName": "x",\n  "JobType": "PyTorchJob",\n  "ResourceId": "team-a",\n  "WorkspaceId": "team-a",\n  "Priority": 12,\n  "JobSpecs": [ { "PodCount": 1, "ResourceConfig": { "GPU": "8" } } ]\n}',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/<stdin>:6:15 +error +interop\/pai-invalid-field +Priority must be/);
  });

  it('puts a quota the policy lacks at ResourceId, exit 1', () => {
    const r = quotient(
      ['whatif', 'test/fixtures/interop/policy', '--job', '-'],
      '{\n  "DisplayName": "x",\n  "JobType": "PyTorchJob",\n  "ResourceId": "team-z",\n  "WorkspaceId": "team-a",\n  "JobSpecs": [ { "PodCount": 1, "ResourceConfig": { "GPU": "8" } } ]\n}',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/<stdin>:4:17 +error +policy\/unknown-quota/);
  });
});

describe('quotient export / import of quota trees', () => {
  it('exports the seeds as Kueue objects on stdout with the mapping table on stderr, and imports them back', () => {
    const r = quotient(['export', 'kueue', 'policies/inference-preempts-training']);
    expect(r.status).toBe(0);
    // The ResourceFlavor the ClusterQueues name comes first (without it they stay inactive), then the tree.
    expect(r.stdout).toMatch(/^apiVersion: kueue.x-k8s.io\/v1beta2\nkind: ResourceFlavor\nmetadata:\n {2}name: default-flavor\n---\napiVersion: kueue.x-k8s.io\/v1beta2\nkind: Cohort/);
    expect(r.stderr).toMatch(/kueue export of policies\/inference-preempts-training/);
    expect(r.stderr).toMatch(/\d+ one-to-one, \d+ approximated, \d+ lost/);
    // Read back under PAI's rules (`--rules pai`): the guarantees come back as min.
    const back = quotient(['import', 'kueue', '-', '--rules', 'pai'], r.stdout);
    expect(back.status).toBe(0);
    const tree = parseYaml(back.stdout) as { kind: string; spec: { quotas: Array<{ name: string; min: { gpu: number }; children: Array<{ name: string; min: { gpu: number } }> }> } };
    expect(tree.kind).toBe('QuotaTree');
    expect(tree.spec.quotas[0]).toMatchObject({
      name: 'Quota1',
      min: { gpu: 128 },
      children: [
        { name: 'Quota1.1', min: { gpu: 48 } },
        { name: 'Quota1.2', min: { gpu: 80 } },
      ],
    });
    // By default Kueue's rules: the ClusterQueues' nominal quotas as Kueue has them, named by their quotient.dev/name annotations.
    const kueue = quotient(['import', 'kueue', '-'], r.stdout);
    expect(kueue.status).toBe(0);
    const kt = parseYaml(kueue.stdout.split(/^---$/m)[0]!) as {
      spec: {
        rules: string;
        quotas: Array<{ name: string; children: Array<{ name: string; resourceGroups: Array<{ flavors: Array<{ name: string; resources: Array<{ name: string; nominalQuota: unknown }> }> }> }> }>;
      };
    };
    expect(kt.spec.rules).toBe('kueue');
    expect(kt.spec.quotas[0]!.name).toBe('Quota1');
    expect(
      kt.spec.quotas[0]!.children.map((c) => [
        c.name,
        c.resourceGroups[0]!.flavors[0]!.name,
        Number(c.resourceGroups[0]!.flavors[0]!.resources.find((x) => x.name === 'nvidia.com/gpu')!.nominalQuota),
      ]),
    ).toEqual([
      ['Quota1.1', 'default-flavor', 48],
      ['Quota1.2', 'default-flavor', 80],
    ]);
  });

  it('imports a Koordinator set, lists what has no counterpart, and the tree checks clean', () => {
    const r = quotient(['import', 'koordinator', 'test/fixtures/interop/quotas/koordinator.yaml']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/koordinator.yaml:\d+:\d+ +warning +interop\/no-counterpart .*shared-weight/);
    expect(r.stderr).toMatch(/koordinator.yaml:12:\d+ +warning +interop\/approximated .*platform: the ceiling on gpu, cpu, memory is at or above/);
    // spec.max is the ceiling: team-b's 96 GPUs land as its max (SEMANTICS 3).
    const tree = parseYaml(r.stdout) as { kind: string; spec: { quotas: Array<{ name: string; children: Array<{ name: string; max?: unknown }> }> } };
    expect(tree.kind).toBe('QuotaTree');
    expect(tree.spec.quotas[0]!.children.map((c) => [c.name, c.max])).toEqual([
      ['team-b', { gpu: 96 }],
      ['team-c', undefined],
    ]);
  });

  it('writes PAI CreateQuota requests as JSON with the note on QuotaConfig, and the table to --report', () => {
    // A policy whose nodes give their instanceType (export pai refuses nodes without one: interop-flow.test.ts).
    const r = quotient(['export', 'pai', 'policies/inference-preempts-training', '--report', '/dev/null']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout) as { note: string; requests: Array<{ QuotaName: string }> };
    expect(doc.note).toMatch(/ignored if the resource type is ECS or Lingjun/);
    expect(doc.requests.map((x) => x.QuotaName)).toEqual(['Quota1', 'Quota1.1', 'Quota1.2']);
  });

  it('prints nothing on stdout when the --report file cannot be written (a missing folder, a read-only file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'q-export-'));
    try {
      const readOnly = join(dir, 'mapping.txt');
      writeFileSync(readOnly, 'kept');
      chmodSync(readOnly, 0o444);
      for (const [path, said] of [
        [join(dir, 'nope', 'm.txt'), 'ENOENT'],
        [readOnly, 'is read-only (mode 0444)'],
      ] as const) {
        const r = quotient(['export', 'kueue', 'policies/inference-preempts-training', '--report', path]);
        expect(r.status, path).toBe(2);
        expect(r.stdout, path).toBe('');
        expect(r.stderr, path).toContain(said);
      }
      expect(readFileSync(readOnly, 'utf8')).toBe('kept');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives a located error and exit 1 for a bad quota file', () => {
    const r = quotient(['import', 'volcano', '-'], 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: { name: q }\nspec:\n  parent: nowhere\n');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/<stdin>:5:11 +error +interop\/unknown-parent/);
  });

  it('refuses an unknown format with exit 2', () => {
    expect(quotient(['export', 'slurm', 'policies/idle-resources']).status).toBe(2);
  });
});

describe('quotient diff', () => {
  const OLD = 'docs/examples/quota-scaling-diff/old';
  const NEW = 'docs/examples/quota-scaling-diff/new';

  it('prints the changed answers as a table; --fail-on-change exits 1', () => {
    const r = quotient(['diff', OLD, NEW, '--samples', '20', '--fail-on-change']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/1 changed answer\(s\) of 1 WhatIf\(s\), 0 promise\(s\) and 20 generated submission\(s\)/);
    expect(r.stdout).toMatch(/team-b-needs-16/);
  });

  it('prints Markdown for a pull-request comment, JSON, and the same document as YAML', () => {
    const md = quotient(['diff', OLD, NEW, '--samples', '0', '-o', 'markdown']);
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^### Quotient: /);
    expect(md.stdout).toMatch(/\| whatif `team-b-needs-16` \| .* \| wait \| preempt \(in-quota\); victims dsw-c-notebooks/);
    const json = quotient(['diff', OLD, NEW, '--samples', '0', '--json']);
    const js = readReport(json.stdout, 'DiffReport') as { changes: unknown[] };
    expect(js.changes).toHaveLength(1);
    const yaml = quotient(['diff', OLD, NEW, '--samples', '0', '-o', 'yaml']);
    expect(yaml.status).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    const both = quotient(['diff', OLD, NEW, '--samples', '0', '--json', '-o', 'markdown']);
    expect(both.status).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toContain('--json and -o markdown ask for two formats');
  });

  it('compares a path with a git revision of itself', () => {
    const r = quotient(['diff', 'policies/quota-scaling', '--base', 'HEAD', '--samples', '10', '--fail-on-change']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/policies\/quota-scaling@HEAD → policies\/quota-scaling: 0 changed answer/);
  });

  it('refuses a revision git does not know, with exit 2', () => {
    const r = quotient(['diff', 'policies/quota-scaling', '--base', 'no-such-rev']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/git ls-tree/);
  });
});
