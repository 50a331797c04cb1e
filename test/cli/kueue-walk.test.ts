/**
 * A Kueue user's walk under Kueue's own rules (docs/kueue.md, "The three commands"), on the
 * cluster written as Kueue's documentation writes it (test/fixtures/interop/kueue-cluster):
 * `import kueue` (a rules: kueue tree, nothing approximated) and `import kubectl --kueue`
 * (nodes with their labels, priorities as Kubernetes has them) → `check` clean → `whatif`.
 * The same cluster read under PAI's rules (`--rules pai`) is walked in interop-flow.test.ts;
 * the last case here pins where the two readings part.
 *
 * By hand, at 12:00: every node is an A100 (flavor a100 by its nvidia.com/gpu.product
 * label). research-cq uses 16 of its nominal 16 (llama-pretrain, priority 1000), dev-cq 14
 * of 16 (data-prep 4, feature-extract 8, notebooks 2), prod-cq 8 of 16 (chat-serving, 2 x 4
 * GPUs, priority 100000); the cohort ai-platform 38 of 48. Waiting: prod/batch-embed
 * (prod-cq, 2 x 8, priority 1000, 10:30) and research/finetune-sweep (research-cq, 8,
 * priority 1000, 11:00): served first, finetune-sweep borrows 8 from the cohort (46 of 48).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { onlyAnswer } from '../helpers/report.js';
import { quotient } from '../helpers/run-cli.js';

const K = 'test/fixtures/interop/kueue-cluster';
const dir = mkdtempSync(join(tmpdir(), 'quotient-kueue-walk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  decision: string;
  standing?: string;
  placement: Array<{ node: string }>;
  victims: Array<{ job: string; code: string; rule: string }>;
  reasons: Array<{ code: string; message: string }>;
}

function ask(tree: string, snapshot: string, submit: Record<string, string | number>): Answer {
  const r = quotient(['whatif', tree, snapshot, ...Object.entries(submit).flatMap(([k, v]) => ['--submit', `${k}=${v}`]), '--json']);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.status).toBe(0);
  return onlyAnswer(r.stdout) as Answer;
}

describe("a Kueue cluster under Kueue's rules: import kueue, import kubectl, check, whatif", () => {
  const tree = join(dir, 'tree.yaml');
  const snapshot = join(dir, 'cluster.yaml');

  it('import kueue writes a rules: kueue tree with the flavor, the ClusterQueues as Kueue wrote them, and a Workspace per namespace; nothing approximated', () => {
    const r = quotient(['import', 'kueue', `${K}/kueue.yaml`]);
    expect(r.status).toBe(0);
    writeFileSync(tree, r.stdout);
    expect(r.stderr).not.toMatch(/interop\/approximated|warning/);
    const docs = r.stdout.split(/^---$/m).map((d) => parseYaml(d) as { kind: string; metadata: { name: string }; spec: Record<string, unknown> });
    expect(docs.map((d) => `${d.kind} ${d.metadata.name}`)).toEqual(['QuotaTree kueue-import', 'Workspace research', 'Workspace prod', 'Workspace dev']);
    const spec = docs[0]!.spec as { rules: string; flavors: unknown; quotas: Array<{ name: string; children: Array<Record<string, unknown>> }> };
    expect(spec.rules).toBe('kueue');
    expect(spec.flavors).toEqual([{ name: 'a100', nodeLabels: { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' } }]);
    expect(spec.quotas.map((q) => q.name)).toEqual(['ai-platform']);
    const prod = spec.quotas[0]!.children.find((c) => c.name === 'prod-cq')!;
    expect(prod).toEqual({
      name: 'prod-cq',
      resourceGroups: [{ coveredResources: ['nvidia.com/gpu'], flavors: [{ name: 'a100', resources: [{ name: 'nvidia.com/gpu', nominalQuota: 16 }] }] }],
      preemption: { reclaimWithinCohort: 'Any', withinClusterQueue: 'LowerPriority' },
      queueingStrategy: 'StrictFIFO',
    });
    const research = spec.quotas[0]!.children.find((c) => c.name === 'research-cq')!;
    expect(JSON.stringify(research.resourceGroups)).toContain('{"name":"nvidia.com/gpu","nominalQuota":16,"borrowingLimit":8}');
  });

  it("import kubectl --kueue writes each node's flavor label and keeps priorities as Kubernetes has them", () => {
    const r = quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${K}/kueue.yaml`, '--at', '2026-11-27T12:00:00Z']);
    expect(r.status).toBe(0);
    writeFileSync(snapshot, r.stdout);
    const spec = (
      parseYaml(r.stdout) as {
        spec: { nodes: Array<{ name: string; labels?: Record<string, string> }>; jobs: Array<{ name: string; priority: number }>; queue: Array<{ name: string; priority: number }> };
      }
    ).spec;
    expect(spec.nodes.map((n) => n.labels)).toEqual(Array(6).fill({ 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' }));
    expect(spec.jobs.map((j) => [j.name, j.priority])).toEqual([
      ['research/llama-pretrain', 1000],
      ['dev/data-prep', 1000],
      ['dev/feature-extract', 1000],
      ['dev/notebooks', 100],
      ['prod/chat-serving-6f7d9c', 100000],
    ]);
    expect(spec.queue.map((j) => [j.name, j.priority])).toEqual([
      ['prod/batch-embed', 1000],
      ['research/finetune-sweep', 1000],
    ]);
    expect(r.stderr).toMatch(/^mapped: priority: spec\.priority kept as it is/m);
  });

  it('check: the imported tree and snapshot are clean', () => {
    const r = quotient(['check', tree, snapshot]);
    expect(r.stderr + r.stdout).not.toMatch(/error|warning/);
    expect(r.status).toBe(0);
  });

  it('whatif: 2 GPUs on dev-cq fit its nominal quota; the answer names the flavor a100 and places the job on an A100 node', () => {
    const a = ask(tree, snapshot, { quota: 'dev-cq', workspace: 'dev', module: 'DLC', priority: 1000, gpu: 2 });
    expect([a.decision, a.standing]).toEqual(['admit', 'in-quota']);
    expect(a.reasons.find((x) => x.code === 'kueue/flavor-assigned')!.message).toBe('nvidia.com/gpu: a100 (tried a100 Fit)');
    expect(a.reasons.find((x) => x.code === 'kueue/fits')!.message).toBe('fits ClusterQueue dev-cq on a100');
    expect(a.placement.every((p) => /^a100-\d$/.test(p.node))).toBe(true);
    expect(a.reasons.map((x) => x.code)).not.toContain('kueue/unmatched-node');
  });

  /**
   * Where Kueue's rules and PAI's part: prod-cq asks for 2 x 8 GPUs at priority 200000.
   *
   * Kueue: prod-cq would hold 8 + 16 = 24, over its nominal 16, and the cohort 46 + 16 = 62
   * of 48. Without borrowWithinCohort, Kueue's classic preemption admits a preemptor only
   * within its nominal quota, so it must make room in prod-cq itself: chat-serving (priority
   * 100000 < 200000, withinClusterQueue: LowerPriority → InClusterQueue) goes, leaving
   * prod-cq at 16 of 16; the cohort is then at 54 of 48, and research-cq is the one
   * borrowing (finetune-sweep's 8 over its nominal), so reclaimWithinCohort: Any takes
   * finetune-sweep (InCohortReclamation): 46 of 48, in quota. dev-cq (14 of its 16) borrows
   * nothing, so none of its workloads is a candidate.
   *
   * PAI (the same objects under `--rules pai`, priorities banded: 200000 and 100000 are both
   * priority 5): chat-serving is prod-cq's equal and is spared; the job runs borrowing and
   * takes dev/feature-extract, a job of a queue within its guarantee, which Kueue never
   * would.
   */
  it("whatif where Kueue's rules differ from PAI's: prod-cq preempts its own lower-priority serving job and reclaims the borrower, never dev-cq's job", () => {
    const kueue = ask(tree, snapshot, { quota: 'prod-cq', workspace: 'prod', module: 'EAS', priority: 200000, pods: 2, gpu: 8 });
    expect([kueue.decision, kueue.standing]).toEqual(['preempt', 'in-quota']);
    expect(kueue.victims.map((v) => [v.job, v.code, v.rule])).toEqual([
      ['research/finetune-sweep', 'victim/kueue-in-cohort-reclamation', 'prod-cq/preemption.reclaimWithinCohort'],
      ['prod/chat-serving-6f7d9c', 'victim/kueue-in-cluster-queue', 'prod-cq/preemption.withinClusterQueue'],
    ]);
    expect(kueue.reasons.find((x) => x.code === 'kueue/flavor-assigned')!.message).toContain('a100');
    expect(kueue.reasons.find((x) => x.code === 'kueue/algorithm')!.message).toContain('kueue-classic');

    const paiTree = join(dir, 'pai-tree.yaml');
    const paiSnapshot = join(dir, 'pai-cluster.yaml');
    const t = quotient(['import', 'kueue', `${K}/kueue.yaml`, '--rules', 'pai']);
    const c = quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${K}/kueue.yaml`, '--rules', 'pai', '--at', '2026-11-27T12:00:00Z']);
    expect([t.status, c.status]).toEqual([0, 0]);
    writeFileSync(paiTree, t.stdout);
    writeFileSync(paiSnapshot, c.stdout);
    const pai = ask(paiTree, paiSnapshot, { quota: 'prod-cq', workspace: 'prod', module: 'EAS', priority: 5, pods: 2, gpu: 8 });
    expect([pai.decision, pai.standing]).toEqual(['preempt', 'borrowing']);
    expect(pai.victims.map((v) => v.job).sort()).toEqual(['dev/feature-extract', 'research/finetune-sweep']);
  });

  it("export kueue writes the tree back as Kueue's objects: the flavor with its nodeLabels, the Cohort, each ClusterQueue's resourceGroups and preemption, a LocalQueue per Workspace", () => {
    const r = quotient(['export', 'kueue', tree, '-o', 'json']);
    expect(r.status).toBe(0);
    type Obj = { kind: string; metadata: { name: string; namespace?: string }; spec: Record<string, unknown> };
    const items = (JSON.parse(r.stdout) as { items: Obj[] }).items;
    expect(items.map((o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`)).toEqual([
      'ResourceFlavor a100',
      'Cohort ai-platform',
      'ClusterQueue research-cq',
      'ClusterQueue prod-cq',
      'ClusterQueue dev-cq',
      'LocalQueue research/research-cq',
      'LocalQueue prod/prod-cq',
      'LocalQueue dev/dev-cq',
    ]);
    expect(items[0]!.spec).toEqual({ nodeLabels: { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' } });
    const research = items.find((o) => o.metadata.name === 'research-cq')!.spec;
    expect(research).toMatchObject({
      cohortName: 'ai-platform',
      queueingStrategy: 'BestEffortFIFO',
      preemption: { withinClusterQueue: 'Never', reclaimWithinCohort: 'Any', borrowWithinCohort: { policy: 'Never' } },
    });
    expect(research.resourceGroups).toEqual([
      {
        coveredResources: ['cpu', 'memory', 'nvidia.com/gpu'],
        flavors: [
          {
            name: 'a100',
            resources: [
              { name: 'cpu', nominalQuota: '192' },
              { name: 'memory', nominalQuota: '1536Gi' },
              { name: 'nvidia.com/gpu', nominalQuota: '16', borrowingLimit: '8' },
            ],
          },
        ],
      },
    ]);
    expect(items.find((o) => o.metadata.name === 'prod-cq')!.spec.preemption).toEqual({ withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any', borrowWithinCohort: { policy: 'Never' } });
  });

  it('import -> export -> import is a fixed point, and the re-imported tree answers as the first', () => {
    const exported = quotient(['export', 'kueue', tree]);
    expect(exported.status).toBe(0);
    const again = quotient(['import', 'kueue', '-'], exported.stdout);
    expect(again.status).toBe(0);
    // export reads a policy from files: write the re-imported tree to one.
    const tree2 = join(dir, 'tree2.yaml');
    writeFileSync(tree2, again.stdout);
    const exportedAgain = quotient(['export', 'kueue', tree2]);
    expect(exportedAgain.status).toBe(0);
    expect(exportedAgain.stdout).toBe(exported.stdout);
    expect(quotient(['import', 'kueue', '-'], exportedAgain.stdout).stdout).toBe(again.stdout);
    // The round trip loses nothing of the first import: the same quotas, each ClusterQueue's resource groups (quantities
    // as Kubernetes writes them) and the clauses it wrote (the export writes Kueue's defaults out too).
    type Q = { name: string; resourceGroups?: unknown; preemption?: Record<string, unknown>; queueingStrategy?: string; children?: Q[] };
    const quotas = (yaml: string): Q[] => {
      const flat = (qs: Q[]): Q[] => qs.flatMap((q) => [q, ...flat(q.children ?? [])]);
      return flat((parseYaml(yaml.split(/^---$/m)[0]!) as { spec: { quotas: Q[] } }).spec.quotas);
    };
    const asText = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null, (k, x: unknown) => (typeof x === 'number' ? String(x) : x)));
    const before = quotas(readFileSync(tree, 'utf8'));
    const after = quotas(again.stdout);
    expect(after.map((q) => q.name)).toEqual(before.map((q) => q.name));
    for (const [i, q] of before.entries()) {
      expect(asText(after[i]!.resourceGroups)).toEqual(asText(q.resourceGroups));
      expect(after[i]!.preemption ?? {}).toMatchObject(q.preemption ?? {});
      if (q.queueingStrategy) expect(after[i]!.queueingStrategy).toBe(q.queueingStrategy);
    }
    const submit = { quota: 'prod-cq', workspace: 'prod', module: 'EAS', priority: 200000, pods: 2, gpu: 8 };
    const first = ask(tree, snapshot, submit);
    const second = ask(tree2, snapshot, submit);
    expect([second.decision, second.standing, second.victims.map((v) => [v.job, v.code])]).toEqual([first.decision, first.standing, first.victims.map((v) => [v.job, v.code])]);
  });
});
