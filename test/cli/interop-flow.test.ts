/**
 * Issue 10's "done when", as a new user walks it (docs/interop.md): a kubectl dump (the
 * shipped fixture stands in for a cluster) → `import kubectl` → `whatif POLICY
 * cluster.yaml --job pai-request.json`; Kueue and Koordinator quota sets import, export
 * and come back with their losses reported; `diff` on the seeds' quota scaling as a table
 * and as Markdown. Each step runs the built CLI the way the docs write it.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { onlyAnswer, readReport } from '../helpers/report.js';
import { quotient } from '../helpers/run-cli.js';

const F = 'test/fixtures/interop';
const dir = mkdtempSync(join(tmpdir(), 'quotient-flow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Quota {
  name: string;
  min: { gpu: number };
  max?: Record<string, unknown>;
  children?: Quota[];
}
/** Every quota of an imported tree as `name=min.gpu`, depth first. */
function mins(yaml: string): string[] {
  // Each quota's guarantee and ceiling: both survive a round trip through every format that carries a ceiling.
  const walk = (qs: Quota[]): string[] => qs.flatMap((q) => [`${q.name}=${q.min.gpu}${q.max ? `..${JSON.stringify(q.max)}` : ''}`, ...walk(q.children ?? [])]);
  return walk((parseYaml(yaml) as { spec: { quotas: Quota[] } }).spec.quotas);
}

describe('a live cluster asked a PAI job request', () => {
  const state = join(dir, 'state.json');
  const cluster = join(dir, 'cluster.yaml');
  copyFileSync(join(F, 'kubectl-state.json'), state);

  it('imports the kubectl dump into a snapshot, listing what it skipped', () => {
    const r = quotient(['import', 'kubectl', state]);
    expect(r.status).toBe(0);
    writeFileSync(cluster, r.stdout);
    expect(r.stdout).toMatch(/\n {2}standings: derive\n/);
    expect(r.stderr).toMatch(/^imported: 24 node\(s\), 16 job\(s\) from 35 pod\(s\)$/m);
    expect(r.stderr).toMatch(/state\.json:\d+:\d+ +warning +interop\/bad-quantity +node "gpu-node-bad"/);
  });

  it('answers the request against the policy folder and the snapshot named beside it, and says which snapshot it used', () => {
    const r = quotient(['whatif', `${F}/policy`, cluster, '--job', `${F}/pai-request.json`, '--json']);
    expect(r.status).toBe(0);
    const a = onlyAnswer(r.stdout) as {
      policy: string;
      snapshot: { name: string; files: string[]; replaced: string[] };
      job: string;
      decision: string;
      standing: string;
      placement: Array<{ node: string }>;
    };
    expect(a.snapshot).toMatchObject({ name: 'imported', files: [cluster], replaced: [`${F}/policy/cluster.yaml`] });
    expect(a.policy).toBe(`${F}/policy + ${cluster}`);
    // team-a guarantees 16 and uses 16 in quota: priority 7 is in its highPriority 6-9, so the job borrows.
    expect(a).toMatchObject({ job: 'llm-finetune', decision: 'admit', standing: 'borrowing' });
    // GPUType NVIDIA-H100-80GB-HBM3: gpu-node-16..22 (23 is cordoned).
    expect(a.placement.map((p) => p.node).every((n) => /^gpu-node-(1[6-9]|2[0-2])$/.test(n))).toBe(true);
    // The teams over their guarantees load, each job so read located in the snapshot file.
    const derived = [...r.stderr.matchAll(/cluster\.yaml:(\d+):\d+ +warning +policy\/derived-standing +job "([^"]+)"[^\n]* it runs (borrowing|idle)/g)].map((m) => `${m[2]}=${m[3]}`);
    expect(derived).toEqual(['team-a/debug-0=idle', 'team-a/debug-1=idle', 'team-a/embed-7c9f=borrowing', 'team-b/llama-pretrain=idle']);
  });

  it('says the snapshot in the table too', () => {
    const r = quotient(['whatif', `${F}/policy`, cluster, '--job', `${F}/pai-request.json`]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`snapshot "imported" (at `);
    expect(r.stdout).toContain(`from ${cluster}, replacing the Cluster of ${F}/policy/cluster.yaml`);
    expect(r.stdout).toMatch(/llm-finetune on team-a: ADMIT — runs borrowing/);
  });

  it('locates an error in the snapshot file, not in the folder', () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, readFileSync(cluster, 'utf8').replace('quota: team-b', 'quota: team-z'));
    const r = quotient(['whatif', `${F}/policy`, broken, '--job', `${F}/pai-request.json`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${broken.replace(/[.]/g, '\\.')}:\\d+:\\d+ +error +policy/unknown-quota`));
    expect(r.stderr).not.toMatch(/\.js:\d+:\d+/);
  });
});

describe('quota sets of other schedulers: import, export, and back', () => {
  for (const [format, file, lossy] of [
    ['kueue', 'kueue-v1beta2.yaml', true],
    ['kueue', 'kueue-v1beta1.yaml', false],
    ['koordinator', 'koordinator.yaml', true],
    ['volcano', 'volcano.yaml', true],
  ] as const) {
    // A PAI-rules tree's round trip: Kueue's objects read as PAI's rules (`--rules pai`, the min and max compared here), exported, read back.
    const rules = format === 'kueue' ? ['--rules', 'pai'] : [];
    it(`${format} ${file}: the tree survives export and import, and both report what has no counterpart`, () => {
      const imported = quotient(['import', format, `${F}/quotas/${file}`, ...rules]);
      expect(imported.status).toBe(0);
      expect(imported.stderr).toMatch(/imported \d+ quota\(s\) from \w+; \d+ field\(s\) or object\(s\) not carried over or approximated are listed above/);
      if (lossy) expect(imported.stderr).toMatch(/warning +interop\/no-counterpart/);
      const tree = join(dir, `${format}-${file}`);
      writeFileSync(tree, imported.stdout);
      const exported = quotient(['export', format, tree]);
      expect(exported.status).toBe(0);
      expect(exported.stderr).toMatch(/\d+ one-to-one, \d+ approximated, \d+ lost/);
      const back = quotient(['import', format, '-', ...rules], exported.stdout);
      expect(back.status).toBe(0);
      expect(mins(back.stdout)).toEqual(mins(imported.stdout));
    });
  }
});

describe("quotient diff on the seeds' quota scaling", () => {
  const OLD = 'docs/examples/quota-scaling-diff/old';
  const NEW = 'docs/examples/quota-scaling-diff/new';

  it('prints the changed answer as a table and as Markdown', () => {
    const table = quotient(['diff', OLD, NEW, '--samples', '0']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/team-b-needs-16/);
    expect(table.stdout).toMatch(/wait/);
    const md = quotient(['diff', OLD, NEW, '--samples', '0', '-o', 'markdown']);
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^\| .*\| wait \| preempt/m);
  });
});

describe('--submit with GPU models', () => {
  const ask = (...extra: string[]) => quotient(['whatif', `${F}/policy`, '--submit', 'quota=team-a', 'workspace=team-a', 'module=EAS', 'priority=9', 'pods=1', 'gpu=8', ...extra, '--json']);

  it('places the job only on nodes of the models given (gpuModel repeatable, or gpuModels=A|B)', () => {
    for (const models of [['gpuModel=NVIDIA-H100-80GB-HBM3'], ['gpuModels=NVIDIA-H100-80GB-HBM3|NVIDIA-B200'], ['gpuModel=NVIDIA-B200', 'gpuModel=NVIDIA-H100-80GB-HBM3']]) {
      const r = ask(...models);
      expect(r.status).toBe(0);
      const a = onlyAnswer(r.stdout) as { decision: string; placement: Array<{ node: string }> };
      expect(a.decision).toBe('admit');
      expect(a.placement.every((p) => /^gpu-node-(1[6-9]|2[0-2])$/.test(p.node))).toBe(true);
    }
  });

  it('rejects a model the pool does not have, naming the models it has', () => {
    const a = onlyAnswer(ask('gpuModel=NVIDIA-B200').stdout) as { decision: string; reasons: Array<{ code: string; message: string }> };
    expect(a.decision).toBe('reject');
    expect(a.reasons[0]!.code).toBe('placement/gpu-model');
    // The text is the behaviour here: it names the models the pool has.
    expect(a.reasons[0]!.message).toMatch(/asks for NVIDIA-B200.*its nodes have NVIDIA-A100-SXM4-80GB, NVIDIA-H100-80GB-HBM3/);
  });

  it('locates an empty model at --submit and its field path, exit 1, without a trace', () => {
    const r = ask('gpuModels=NVIDIA-H100-80GB-HBM3||NVIDIA-B200');
    expect(r.status).toBe(1);
    const report = readReport(r.stdout, 'WhatIfReport') as { answers: unknown[]; findings: Array<{ file: string; code: string; path: string }> };
    expect(report.answers).toEqual([]);
    expect(report.findings).toMatchObject([{ file: '--submit', code: 'policy/empty', path: 'spec.submit.gpuModels[1]' }]);
    expect(r.stderr).toMatch(/^--submit +error +policy\/empty +spec\.submit\.gpuModels\[1\] must not be empty/m);
    expect(r.stderr).not.toMatch(/\.js:\d+:\d+/);
  });
});

/**
 * Issue 21's walk: a Kueue cluster written as Kueue's docs write it (test/fixtures/interop/kueue-cluster:
 * three ClusterQueues in the cohort ai-platform, a LocalQueue in each of three namespaces,
 * research-cq's borrowingLimit 8, BestEffortFIFO; running a PyTorchJob, a batch Job, a
 * serving Deployment and notebooks in a StatefulSet; two Jobs pending) → import both →
 * check clean → what-if answers that serve the queue (SEMANTICS 8).
 *
 * This walk reads Kueue's objects under PAI's rules (`--rules pai` on both imports: min and
 * max in GPUs, priorities banded into 1..9, each Kueue clause approximated): it pins that
 * reading. Under Kueue's own rules (the default) the same cluster is walked in
 * test/cli/kueue-walk.test.ts.
 *
 * By hand, at 12:00: research-cq uses 16 of 16 (llama-pretrain), dev-cq 14 of 16 (data-prep
 * 4, feature-extract 8, notebooks 2), prod-cq 8 of 16 (chat-serving); the cohort 38 of 48.
 * Waiting: prod/batch-embed (prod-cq, 2 x 8 GPUs, priority 3, 10:30) and
 * research/finetune-sweep (research-cq, 8 GPUs, priority 3, 11:00). batch-embed can never
 * start now: prod-cq 8 + 16 is over its 16 and the cohort 38 + 16 over its 48, so no
 * quota lends it, and priority 3 preempts nothing under prod-cq's selfPreemption 5-9.
 */
describe("a Kueue cluster as Kueue's docs write it: import both, check, what-if with the queue", () => {
  const K = 'test/fixtures/interop/kueue-cluster';
  const tree = join(dir, 'kueue-tree.yaml');
  const snapshot = join(dir, 'kueue-cluster.yaml');
  interface QueueInfo {
    position: number;
    strategy: string;
    started: Array<{ job: string }>;
    heldBy?: { job: string; reasons: Array<{ code: string }> };
  }
  const ask = (submit: Record<string, string | number>) => {
    const r = quotient(['whatif', tree, snapshot, ...Object.entries(submit).flatMap(([k, v]) => ['--submit', `${k}=${v}`]), '--json']);
    expect(r.status).toBe(0);
    return onlyAnswer(r.stdout) as { decision: string; standing?: string; queue: QueueInfo; reasons: Array<{ code: string }> };
  };

  it('import kueue: a QuotaTree (max from borrowingLimit, a cohort that borrows) and a Workspace per namespace', () => {
    const r = quotient(['import', 'kueue', `${K}/kueue.yaml`, '--rules', 'pai']);
    expect(r.status).toBe(0);
    writeFileSync(tree, r.stdout);
    const docs = r.stdout.split(/^---$/m).map((d) => parseYaml(d) as { kind: string; metadata: { name: string }; spec: Record<string, unknown> });
    expect(docs.map((d) => `${d.kind} ${d.metadata.name}`)).toEqual(['QuotaTree kueue-import', 'Workspace research', 'Workspace prod', 'Workspace dev']);
    const cqs = (docs[0]!.spec.quotas as Array<{ children: Array<Record<string, unknown>> }>)[0]!.children;
    expect(cqs.map((q) => [q.name, q.queueStrategy, (q.max as { gpu?: number } | undefined)?.gpu, (q.borrowing as { priority: string }).priority])).toEqual([
      ['research-cq', 'round-robin', 24, '1-9'],
      ['prod-cq', 'fifo', undefined, '1-9'],
      ['dev-cq', 'round-robin', undefined, '1-9'],
    ]);
    expect(r.stderr).toMatch(/kueue\.yaml:\d+:\d+ +warning +interop\/approximated +ClusterQueue prod-cq: withinClusterQueue LowerPriority/);
  });

  it('import kubectl --kueue: each job on its ClusterQueue with the module its owner implies; the pending Jobs are the queue', () => {
    const r = quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${K}/kueue.yaml`, '--rules', 'pai', '--at', '2026-11-27T12:00:00Z']);
    expect(r.status).toBe(0);
    writeFileSync(snapshot, r.stdout);
    const spec = (parseYaml(r.stdout) as { spec: { jobs: Array<Record<string, unknown>>; queue: Array<Record<string, unknown>> } }).spec;
    expect(spec.jobs.map((j) => [j.name, j.workspace, j.quota, j.module])).toEqual([
      ['research/llama-pretrain', 'research', 'research-cq', 'DLC'],
      ['dev/data-prep', 'dev', 'dev-cq', 'DLC'],
      ['dev/feature-extract', 'dev', 'dev-cq', 'DLC'],
      ['dev/notebooks', 'dev', 'dev-cq', 'DSW'],
      ['prod/chat-serving-6f7d9c', 'prod', 'prod-cq', 'EAS'],
    ]);
    expect(spec.queue.map((j) => [j.name, j.quota, j.module, j.pods, j.submittedAt])).toEqual([
      ['prod/batch-embed', 'prod-cq', 'DLC', 2, '2026-11-27T10:30:00.000Z'],
      ['research/finetune-sweep', 'research-cq', 'DLC', 1, '2026-11-27T11:00:00.000Z'],
    ]);
    expect(r.stdout).toContain('module EAS from owner kind ReplicaSet');
    expect(r.stderr).toMatch(/^imported: 6 node\(s\), 5 job\(s\) from 9 pod\(s\), 2 waiting job\(s\) in the queue from 3 pending pod\(s\)$/m);
  });

  it('check: the imported policy and snapshot are clean', () => {
    const r = quotient(['check', tree, snapshot]);
    expect(r.stderr + r.stdout).not.toMatch(/error|warning/);
    expect(r.status).toBe(0);
  });

  it('whatif on prod-cq (fifo): WAIT at position 2, held by prod/batch-embed, which cannot run (its own reasons named)', () => {
    const a = ask({ quota: 'prod-cq', workspace: 'prod', module: 'DLC', priority: 3, gpu: 4 });
    expect(a.decision).toBe('wait');
    expect(a.queue).toMatchObject({ position: 2, strategy: 'fifo', heldBy: { job: 'prod/batch-embed' } });
    expect(a.queue.heldBy!.reasons.map((x) => x.code)).toContain('quota/over-min');
    expect(a.reasons.map((x) => x.code)).toContain('queue/held');
  });

  it('whatif on prod-cq at priority 6: enters ahead of the priority-3 head (position 1); finetune-sweep, served first, borrows the cohort to 46 of 48, so the 4 GPUs prod-cq still guarantees are taken back from it (reclaim, SEMANTICS 5.1)', () => {
    const a = ask({ quota: 'prod-cq', workspace: 'prod', module: 'EAS', priority: 6, gpu: 4 }) as ReturnType<typeof ask> & { victims: Array<{ job: string; rule: string }> };
    expect(a.queue).toMatchObject({ position: 1, strategy: 'fifo', started: [{ job: 'research/finetune-sweep' }] });
    expect(a.queue.heldBy).toBeNull();
    // prod-cq 8 + 4 is within its 16; the cohort 46 + 4 is over its 48: what prod-cq lent is reclaimed.
    expect([a.decision, a.standing]).toEqual(['preempt', 'in-quota']);
    expect(a.victims.map((v) => [v.job, v.rule])).toEqual([['research/finetune-sweep', 'prod-cq/reclaim']]);
  });

  it('whatif on research-cq (round-robin): behind finetune-sweep (position 2), which is served first and borrows research-cq up to its max (16 + 8 = 24); the job then waits on that ceiling alone (SEMANTICS 3)', () => {
    const a = ask({ quota: 'research-cq', workspace: 'research', module: 'DLC', priority: 3, gpu: 2 });
    expect(a.decision).toBe('wait');
    expect(a.queue).toMatchObject({ position: 2, strategy: 'round-robin', started: [{ job: 'research/finetune-sweep' }] });
    expect(a.queue.heldBy).toBeNull();
    // In quota: 16 of 16 used. Borrowing: the cohort has 2 GPUs left (46 of 48), but research-cq's max 24 is reached, and a ceiling never makes a victim.
    expect(a.reasons.map((x) => x.code)).toEqual([
      'queue/served-first',
      'quota/over-min',
      'quota/over-max',
      'preempt/over-max',
      'preempt/no-candidates',
      'idle/not-accepted',
      'placement/indices-assigned',
    ]);
  });

  it('export kueue writes the ResourceFlavor the ClusterQueues name and max as borrowingLimit', () => {
    const r = quotient(['export', 'kueue', tree, '--flavor', 'a100', '-o', 'json']);
    expect(r.status).toBe(0);
    const items = (
      JSON.parse(r.stdout) as {
        items: Array<{ kind: string; metadata: { name: string }; spec: { resourceGroups?: Array<{ flavors: Array<{ name: string; resources: Array<Record<string, string>> }> }> } }>;
      }
    ).items;
    expect(items[0]).toMatchObject({ kind: 'ResourceFlavor', metadata: { name: 'a100' } });
    const research = items.find((o) => o.metadata.name === 'research-cq')!;
    expect(research.spec.resourceGroups![0]!.flavors[0]!.resources.find((x) => x.name === 'nvidia.com/gpu')).toEqual({ name: 'nvidia.com/gpu', nominalQuota: '16', borrowingLimit: '8' });
  });

  it('export pai refuses snapshot nodes without an instance type: located errors, exit 1, nothing on stdout', () => {
    const r = quotient(['export', 'pai', tree, snapshot]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`${snapshot.replace(/[.]/g, '\\.')}:\\d+:\\d+ +error +export/no-instance-type +node "a100-0"`));
  });

  it('refuses a --module-map that is not KIND=MODULE (exit 2), and --kueue files without a LocalQueue (exit 1)', () => {
    const bad = quotient(['import', 'kubectl', `${K}/state.json`, '--module-map', 'StatefulSet=GPU']);
    expect(bad.status).toBe(2);
    // A usage error prints no code: the flag it names is the behaviour.
    expect(bad.stderr).toMatch(/^quotient: --module-map: /m);
    const none = quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${F}/quotas/kueue-v1beta1.yaml`]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/error +interop\/no-local-queues/);
  });
});

/**
 * The same Kueue set-up with Kueue's Workloads (kueue-cluster/workloads.json, `kubectl get
 * nodes,pods,workloads -A -o json`): llama-pretrain runs (its Workload admitted), and in
 * research-queue two suspended Jobs have no pods, only pending Workloads: sweep-a
 * (priority 1000 → 3, 1 x 8 GPUs, 10:00) and sweep-b (priority 100000 → 5, 2 x 4 GPUs,
 * 11:00). In dev-queue a plain pod gated by Kueue owns its pending Workload (4 GPUs); a
 * finished Workload and a RayJob's Workload of two shapes are not queued.
 *
 * By hand, at 12:00: research-cq uses 16 of 16. Its queue is by priority, then
 * submission: sweep-b (5), sweep-a (3, 10:00), then a priority-3 job submitted now:
 * position 3. sweep-b is served first and borrows research-cq to its max (16 + 8 = 24);
 * sweep-a (8 more) is then over that max and waits, and round-robin lets the job pass it,
 * but the job's 8 GPUs are over the max too: WAIT on the ceiling. dev/tune-once starts in
 * dev-cq's guarantee. At priority 4 the job enters between them: position 2.
 * Under PAI's rules (`--rules pai`), as the walk above.
 */
describe('a Kueue cluster with its Workloads: pending Workloads are the queue', () => {
  const K = 'test/fixtures/interop/kueue-cluster';
  const tree = join(dir, 'kueue-wl-tree.yaml');
  const snapshot = join(dir, 'kueue-wl-cluster.yaml');
  const ask = (priority: number) => {
    const r = quotient(['whatif', tree, snapshot, ...['quota=research-cq', 'workspace=research', 'module=DLC', `priority=${priority}`, 'gpu=8'].flatMap((s) => ['--submit', s]), '--json']);
    expect(r.status).toBe(0);
    return onlyAnswer(r.stdout) as { decision: string; queue: { position: number; strategy: string; started: Array<{ job: string; decision: string }> }; reasons: Array<{ code: string }> };
  };

  it('import kubectl --kueue reads the Workloads: the pending ones queued, the admitted and finished counted, the two-shape one located and skipped, the gated pod not queued twice', () => {
    const imported = quotient(['import', 'kueue', `${K}/kueue.yaml`, '--rules', 'pai']);
    expect(imported.status).toBe(0);
    writeFileSync(tree, imported.stdout);
    const r = quotient(['import', 'kubectl', `${K}/workloads.json`, '--kueue', `${K}/kueue.yaml`, '--rules', 'pai', '--at', '2026-11-27T12:00:00Z']);
    expect(r.status).toBe(0);
    writeFileSync(snapshot, r.stdout);
    const spec = (parseYaml(r.stdout) as { spec: { jobs: Array<Record<string, unknown>>; queue: Array<Record<string, unknown>> } }).spec;
    expect(spec.jobs.map((j) => j.name)).toEqual(['research/llama-pretrain']);
    expect(spec.queue.map((j) => [j.name, j.quota, j.module, j.priority, j.pods, (j.resources as { gpu: number }).gpu, j.submittedAt])).toEqual([
      ['research/sweep-a', 'research-cq', 'DLC', 3, 1, 8, '2026-11-27T10:00:00.000Z'],
      ['research/sweep-b', 'research-cq', 'DLC', 5, 2, 4, '2026-11-27T11:00:00.000Z'],
      ['dev/tune-once', 'dev-cq', 'DLC', 3, 1, 4, '2026-11-27T11:30:00.000Z'],
    ]);
    expect(r.stderr).toMatch(/^imported: 6 node\(s\), 1 job\(s\) from 2 pod\(s\), 3 waiting job\(s\) in the queue from 0 pending pod\(s\) and 3 pending Kueue Workload\(s\) of 6 read$/m);
    expect(r.stderr).toMatch(
      /^mapped: workloads: 6 Kueue Workload\(s\) read, 3 queued .*, 1 admitted or holding quota .*, 1 finished, 0 inactive .*, 1 skipped .*; 1 pending pod\(s\) of a Workload's job left to the Workload$/m,
    );
    expect(r.stderr).toMatch(/workloads\.json:\d+:\d+ +warning +interop\/workload-shapes +Workload "prod\/rayjob-ray-eval-2b7aa"/);
    expect(r.stderr).toMatch(/^ {4}at items\[\d+\]\.spec\.podSets\[1\]$/m);
  });

  it('check: the imported policy and snapshot are clean', () => {
    const r = quotient(['check', tree, snapshot]);
    expect(r.stderr + r.stdout).not.toMatch(/error|warning/);
    expect(r.status).toBe(0);
  });

  it('whatif: the queued Workloads are ahead (position 3 at priority 3, 2 at priority 4); sweep-b and tune-once start first, and the job waits on research-cq max', () => {
    const a = ask(3);
    expect(a.decision).toBe('wait');
    expect(a.queue).toMatchObject({ position: 3, strategy: 'round-robin' });
    expect(a.queue.started.map((s) => [s.job, s.decision])).toEqual([
      ['research/sweep-b', 'admit'],
      ['dev/tune-once', 'admit'],
    ]);
    expect(a.reasons.map((x) => x.code)).toEqual(expect.arrayContaining(['queue/served-first', 'quota/over-max']));
    expect(ask(4).queue.position).toBe(2);
  });
});
