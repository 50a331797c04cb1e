/**
 * Issue 28's submissions as Kubernetes manifests, as a Kueue user runs them on the Kueue
 * fixture (test/fixtures/interop/kueue-cluster, imported as interop-flow.test.ts imports
 * it): `quotient whatif DIR --job job.yaml` and `kubectl quotient whatif -f job.yaml
 * --policy DIR` answer a batch/v1 Job and a PyTorchJob (test/fixtures/interop/manifests),
 * the plugin reading the cluster through a stand-in kubectl on PATH that prints recorded
 * output and records its arguments. Bad manifests are located errors with exit 1.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { onlyAnswer } from '../helpers/report.js';
import { quotient, ROOT } from '../helpers/run-cli.js';

const K = 'test/fixtures/interop/kueue-cluster';
const M = 'test/fixtures/interop/manifests';
const AT = '2026-11-27T12:00:00Z';
const dir = mkdtempSync(join(tmpdir(), 'quotient-manifest-'));
const policy = join(dir, 'policy');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  job: string;
  quota: string;
  decision: string;
  victims: Array<{ job: string }>;
  notes: Array<{ code: string; message: string }>;
}

/** Runs the plugin (dist/cli/kubectl-quotient.js) with the stand-in kubectl first on PATH. */
function plugin(args: string[], env: NodeJS.ProcessEnv = {}) {
  const path = `${join(ROOT, 'test/fixtures/interop/kubectl-stand-in')}${delimiter}${process.env.PATH ?? ''}`;
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli/kubectl-quotient.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, PATH: path, KUBECTL_OUTPUTS: join(dir, 'outputs'), KUBECTL_RECORD: join(dir, 'kubectl-args.jsonl'), ...env },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  // The policy as a Kueue user makes it: import kueue, and the cluster imported beside it (interop-flow.test.ts).
  mkdirSync(policy);
  const tree = quotient(['import', 'kueue', `${K}/kueue.yaml`]);
  expect(tree.status).toBe(0);
  writeFileSync(join(policy, 'tree.yaml'), tree.stdout);
  const cluster = quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${K}/kueue.yaml`, '--at', AT]);
  expect(cluster.status).toBe(0);
  writeFileSync(join(policy, 'cluster.yaml'), cluster.stdout);
  // What the stand-in kubectl prints: the fixture's state, and its Kueue objects as kubectl lists them.
  mkdirSync(join(dir, 'outputs'));
  writeFileSync(join(dir, 'outputs', 'nodes,pods,workloads.json'), readFileSync(`${K}/state.json`, 'utf8'));
  const kueue = parseAllDocuments(readFileSync(`${K}/kueue.yaml`, 'utf8')).map((d) => d.toJS() as unknown);
  writeFileSync(join(dir, 'outputs', 'clusterqueues,localqueues,resourceflavors,workloadpriorityclasses,priorityclasses.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: kueue }));
});

describe('quotient whatif DIR --job MANIFEST', () => {
  it('answers a batch/v1 Job: its LocalQueue serving-queue leads to prod-cq, its WorkloadPriorityClass (value 10000) is priority 10000 (as Kueue has it: the imported tree follows the Kueue rules), 2 pods × 4 GPUs', () => {
    const r = quotient(['whatif', policy, '--job', `${M}/job.yaml`, '--json']);
    expect(r.status).toBe(0);
    const a = onlyAnswer(r.stdout) as unknown as Answer & { job: string };
    expect(a).toMatchObject({ job: 'prod/embed-refresh', quota: 'prod-cq' });
    const notes = a.notes.filter((n) => n.code === 'interop/kubernetes-manifest').map((n) => n.message);
    expect(notes.join('\n')).toMatch(/Job prod\/embed-refresh: 2 pod\(s\) from pod set\(s\) main × 2/);
    expect(notes.join('\n')).toMatch(/GPUs per pod 4; priority 10000 from WorkloadPriorityClass prod-high \(value 10000, test\/fixtures\/interop\/manifests\/job\.yaml:3:1\).*as Kueue's own number/);
    expect(notes.join('\n')).toMatch(/spec\.suspend: true is ignored/);
  });

  it("answers a PyTorchJob: Master and Worker, 8 GPUs each, research-cq, priority 1000 from the pods' PriorityClass (as Kueue has it)", () => {
    const r = quotient(['whatif', policy, '--job', `${M}/pytorchjob.yaml`]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/research\/mistral-sft on research-cq: WAIT/);
    expect(r.stdout).toMatch(/PyTorchJob research\/mistral-sft: 2 pod\(s\) from pod set\(s\) master × 1, worker × 1/);
    expect(r.stdout).toMatch(/priority 1000 from PriorityClass research-normal \(value 1000,/);
  });

  it('refuses a manifest it cannot read: located findings, exit 1, no answer', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, readFileSync(`${M}/pytorchjob.yaml`, 'utf8').replace(/(Worker:[\s\S]*?nvidia\.com\/gpu: )8/, '$14'));
    const r = quotient(['whatif', policy, '--job', bad]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+ +error +interop\/manifest-shapes +PyTorchJob "research\/mistral-sft": pod set worker \(per pod 4 GPU\(s\)/);
    expect(r.stderr).toMatch(/the Kubernetes manifest .*bad\.yaml cannot be asked about/);
  });

  it('refuses a LocalQueue that leads to no quota, at the label', () => {
    const bad = join(dir, 'queue.yaml');
    writeFileSync(bad, readFileSync(`${M}/job.yaml`, 'utf8').replace('namespace: prod', 'namespace: elsewhere'));
    const r = quotient(['whatif', policy, '--job', bad, '--json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/queue\.yaml:16:32 +error +interop\/unknown-local-queue +Job "elsewhere\/embed-refresh": LocalQueue elsewhere\/serving-queue leads to no quota/);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'WhatIfReport', answers: [], findings: [{ code: 'interop/unknown-local-queue', line: 16, column: 32 }] });
  });
});

describe('kubectl quotient whatif -f MANIFEST --policy DIR', () => {
  it("reads the cluster through kubectl with the user's context and kubeconfig, and answers the Job as quotient whatif does", () => {
    const direct = onlyAnswer(quotient(['whatif', policy, '--job', `${M}/job.yaml`, '--json']).stdout) as unknown as Answer;
    rmSync(join(dir, 'kubectl-args.jsonl'), { force: true });
    const r = plugin(['whatif', '-f', `${M}/job.yaml`, '--policy', policy, '--context', 'prod-admin', '--kubeconfig', '/tmp/kc', '--at', AT, '-o', 'json']);
    expect(r.stderr).toMatch(/^kubectl-quotient: from the cluster \(context prod-admin\): 6 node\(s\)/m);
    expect(r.status).toBe(0);
    const a = onlyAnswer(r.stdout) as unknown as Answer;
    expect({ job: a.job, quota: a.quota, decision: a.decision, victims: a.victims.map((v) => v.job) }).toEqual({
      job: direct.job,
      quota: direct.quota,
      decision: direct.decision,
      victims: direct.victims.map((v) => v.job),
    });
    // Through the cluster's own LocalQueue this time (the live objects), not the policy's workspace.
    expect(a.notes.map((n) => n.message).join('\n')).toMatch(/LocalQueue prod\/serving-queue → ClusterQueue prod-cq \(/);
    const calls = readFileSync(join(dir, 'kubectl-args.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    expect(calls).toEqual([
      ['--context', 'prod-admin', '--kubeconfig', '/tmp/kc', 'get', 'nodes,pods,workloads', '-A', '-o', 'json'],
      ['--context', 'prod-admin', '--kubeconfig', '/tmp/kc', 'get', 'clusterqueues,localqueues,resourceflavors,workloadpriorityclasses,priorityclasses', '-A', '-o', 'json'],
      ['--context', 'prod-admin', '--kubeconfig', '/tmp/kc', 'get', 'cohorts', '-A', '-o', 'json'],
    ]);
  });

  it('answers the PyTorchJob, and from --snapshot FILE without calling kubectl', () => {
    const live = plugin(['whatif', '-f', `${M}/pytorchjob.yaml`, '--policy', policy, '--at', AT]);
    expect(live.status).toBe(0);
    expect(live.stdout).toMatch(/research\/mistral-sft on research-cq: WAIT/);
    rmSync(join(dir, 'kubectl-args.jsonl'), { force: true });
    const snap = join(dir, 'snapshot.json');
    const state = JSON.parse(readFileSync(`${K}/state.json`, 'utf8')) as { items: unknown[] };
    const kueue = JSON.parse(readFileSync(join(dir, 'outputs', 'clusterqueues,localqueues,resourceflavors,workloadpriorityclasses,priorityclasses.json'), 'utf8')) as { items: unknown[] };
    writeFileSync(snap, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...state.items, ...kueue.items] }));
    const r = plugin(['whatif', '-f', `${M}/pytorchjob.yaml`, '--policy', policy, '--snapshot', snap, '--at', AT]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/research\/mistral-sft on research-cq: WAIT/);
    expect(() => readFileSync(join(dir, 'kubectl-args.jsonl'), 'utf8')).toThrow();
  });

  it('says what kubectl said when it fails (exit 2), takes --help, and refuses a missing -f (exit 2)', () => {
    const failed = plugin(['whatif', '-f', `${M}/job.yaml`, '--policy', policy], { KUBECTL_OUTPUTS: join(dir, 'nowhere') });
    expect(failed.status).toBe(2);
    expect(failed.stderr).toMatch(/kubectl-quotient: `kubectl get nodes,pods,workloads -A -o json` failed \(exit 1\): error: the server doesn't have a resource type/);
    expect(failed.stderr).toMatch(/hint: the cluster has no Kueue installed/);
    const help = plugin(['whatif', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: kubectl quotient whatif \[options\]/);
    expect(help.stdout).toMatch(/--context <name>/);
    const missing = plugin(['whatif', '--policy', policy]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/required option '-f, --filename <file>' not specified/);
  });

  it('exits 1 with the located findings of a bad manifest', () => {
    const bad = join(dir, 'bad-plugin.yaml');
    writeFileSync(bad, readFileSync(`${M}/job.yaml`, 'utf8').replace('parallelism: 2', 'parallelism: -1'));
    const r = plugin(['whatif', '-f', bad, '--policy', policy, '--at', AT]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad-plugin\.yaml:\d+:\d+ +error +interop\/bad-manifest +Job "prod\/embed-refresh": spec\.(parallelism|completions) -1 is not a pod count/);
  });
});
