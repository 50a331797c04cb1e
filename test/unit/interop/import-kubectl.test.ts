/**
 * `import kubectl` on the realistic fixture (test/fixtures/interop/kubectl-state.json,
 * made by make-kubectl-state.mjs): gangs by owner, priorities by band, quota sources,
 * cordoned nodes, bad quantities located, every skipped object named — and the output
 * loads under the fixture policy, where the engine assigns GPU indices and says so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importKubectl, type KubectlOptions } from '../../../src/interop/import-kubectl.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';
import { mapPriority, parsePriorityMap } from '../../../src/interop/priority-map.js';
import { clusterYaml } from '../../../src/interop/write-cluster.js';
import { openSession } from '../../helpers/session.js';

const FILE = 'test/fixtures/interop/kubectl-state.json';
const text = readFileSync(FILE, 'utf8');
const OPTS: KubectlOptions = KUBECTL_DEFAULTS;

/** 1-based line and column of the first occurrence of `needle` in the fixture. */
function lineColOf(needle: string): { line: number; column: number } {
  const at = text.indexOf(needle);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

describe('import kubectl', () => {
  const r = importKubectl({ path: FILE, text }, OPTS);
  const job = (name: string) => r.jobs.find((j) => j.name === name);

  it('reads every object and accounts for each one: imported or skipped with a reason', () => {
    expect(r.read).toEqual({ Node: 30, Pod: 244 });
    const importedPods = r.jobs.reduce((s, j) => s + j.pods, 0);
    const skippedPods = r.skipped.filter((s) => s.kind === 'Pod').length;
    expect(importedPods + skippedPods).toBe(244);
    expect(r.nodes.length + r.skipped.filter((s) => s.kind === 'Node').length).toBe(30);
    expect(r.skipped.every((s) => s.reason.length > 0 && /:\d+:\d+$/.test(s.where))).toBe(true);
  });

  it('groups the GPU pods of one owner into one gang job; GPU-less masters stay out', () => {
    expect(job('team-b/llama-pretrain')).toMatchObject({ pods: 4, resources: { gpu: 8 }, quota: 'team-b' });
    expect(job('team-a/llm-serve')).toMatchObject({ pods: 4, resources: { gpu: 4 }, module: 'EAS', quota: 'team-a' });
    expect(job('team-c/eval-sweep')).toMatchObject({ pods: 6, resources: { gpu: 2 }, quota: 'team-c' });
    expect(r.skipped.find((s) => s.name === 'team-b/llama-pretrain-master-0')?.reason).toMatch(/no nvidia.com\/gpu/);
    // Bare pods are jobs of one pod each.
    expect(job('team-a/debug-0')).toMatchObject({ pods: 1, module: 'DSW' });
  });

  it('maps spec.priority by bands and takes the quota from Kueue, Koordinator or the namespace', () => {
    expect(job('team-b/llama-pretrain')!.priority).toBe(mapPriority(100, OPTS.priorityMap));
    expect(job('team-b/sft-7b')!.priority).toBe(3);
    expect(job('team-a/llm-serve')!.priority).toBe(6);
    expect(job('team-c/data-filter')!.priority).toBe(1);
    expect(job('team-b/sft-7b')!.notes.join(' ')).toMatch(/quota.scheduling.koordinator.sh\/name/);
    expect(job('team-a/llm-serve')!.notes.join(' ')).toMatch(/kueue.x-k8s.io\/queue-name/);
    expect(job('team-c/eval-sweep')!.notes.join(' ')).toMatch(/from namespace/);
  });

  it('marks cordoned nodes and reads the GPU model label', () => {
    expect(r.nodes.find((n) => n.name === 'gpu-node-23')).toMatchObject({ unschedulable: true, gpuModel: 'NVIDIA-H100-80GB-HBM3' });
    expect(r.nodes.find((n) => n.name === 'gpu-node-00')).toMatchObject({ gpus: 8, cpu: 127500, gpuModel: 'NVIDIA-A100-SXM4-80GB' });
  });

  it('locates bad quantities at the value and skips what they concern', () => {
    const eight = r.report.findings.find((f) => f.message.includes('"eight"'))!;
    expect(eight).toMatchObject({ code: 'interop/bad-quantity', severity: 'warning', ...lineColOf('"eight"') });
    const half = r.report.findings.find((f) => f.message.includes('"0.5"'))!;
    expect(half).toMatchObject({ code: 'interop/bad-quantity', ...lineColOf('"0.5"') });
    expect(r.skipped.find((s) => s.name === 'team-c/frac-gpu')).toBeDefined();
    expect(r.skipped.find((s) => s.name === 'team-c/on-bad-node')?.reason).toMatch(/not imported/);
    // A bad cpu keeps the job, with its cpu untracked.
    expect(job('team-c/bad-cpu')).toBeDefined();
    expect(job('team-c/bad-cpu')!.resources.cpu).toBeUndefined();
  });

  it('writes a snapshot the fixture policy loads; the engine assigns indices and says so', async () => {
    const at = Date.parse('2026-11-23T12:00:00Z');
    const yaml = clusterYaml('imported', at, FILE, r.nodes, r.jobs);
    expect(yaml).toMatch(/# Node gpu-node-00 at test\/fixtures\/interop\/kubectl-state.json:\d+:\d+/);
    const policy = readFileSync('test/fixtures/interop/policy/quotas.yaml', 'utf8');
    const session = openSession([
      { path: 'quotas.yaml', text: policy },
      { path: 'cluster.yaml', text: yaml },
    ]);
    const snap = session.snapshot!;
    for (const j of snap.jobs) for (const p of j.placement) expect(p.gpus.length).toBe(j.resources.gpu);
    // No GPU is held twice after assignment.
    const held = new Set<string>();
    for (const j of snap.jobs)
      for (const p of j.placement)
        for (const g of p.gpus) {
          expect(held.has(`${p.node}/${g}`)).toBe(false);
          held.add(`${p.node}/${g}`);
        }
    const first = session.policy.cluster!.jobs[0]!;
    const a = await session.answerJob('q', { ...first, name: 'new-job', priority: 9, pods: 1 });
    expect(a.reasons.some((x) => x.code === 'placement/indices-assigned' && x.message.includes('Quotient assigned their GPU indices'))).toBe(true);
  });

  it('refuses input that is not a kubectl List, at the offending field', () => {
    const bad = importKubectl({ path: 'x.json', text: '{\n  "kind": "Deployment",\n  "items": []\n}\n' }, OPTS);
    expect(bad.report.findings).toMatchObject([{ code: 'interop/not-a-list', severity: 'error', line: 2, column: 11 }]);
    const syntax = importKubectl({ path: 'x.json', text: '{ "kind": "List", "items": [ }' }, OPTS);
    expect(syntax.report.failed).toBe(true);
    expect(syntax.report.findings[0]!.code).toBe('interop/yaml-syntax');
    const noItems = importKubectl({ path: 'x.json', text: '{"kind": "List"}' }, OPTS);
    expect(noItems.report.findings[0]!.code).toBe('interop/not-a-list');
  });
});

describe('priority map', () => {
  it('parses bands and refuses falling or repeated bands', () => {
    expect(parsePriorityMap('0=1,1000=5').bands).toEqual([
      { from: 0, priority: 1 },
      { from: 1000, priority: 5 },
    ]);
    expect(parsePriorityMap('0=5,1000=1').error).toMatch(/must not fall/);
    expect(parsePriorityMap('0=1,0=2').error).toMatch(/twice/);
    expect(parsePriorityMap('x').error).toMatch(/FROM=PRIORITY/);
    expect(mapPriority(-5, parsePriorityMap('0=3').bands!)).toBe(1);
  });
});
