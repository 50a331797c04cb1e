/**
 * The listings (docs/serve.md): the quota tree's numbers, the nodes, the jobs and an
 * explanation, worked out by hand for test/serve/fixtures/two-teams.yaml:
 *
 *   Root (16) ─┬─ A (8, selfPreemption 7-9 over 1-3, DLC): a-in 8 GPUs in quota on n-0,
 *              │                                           a-borrow 4 GPUs borrowing on n-1
 *              └─ B (8): b-in 2 GPUs in quota on n-1, b-idle 2 × 0.5 GPU idle on n-1 GPU 6
 *
 * usage(A) = 8 (a borrower counts only above its own quota), usage(B) = 2, usage(Root) =
 * 8 + 4 + 2 = 14. B's unused guarantee is 6, of which A's borrower uses 4: B has lent 4.
 * Then findings scrubbed for a caller, with the interop fixture's derived standings.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyCopy, serve, type TestServer } from './serve-helpers.js';

const POLICY = 'test/serve/fixtures/two-teams.yaml';

describe('listings', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
  });

  it('GET /v1/quotas: guarantee, usage, in quota, borrowing, lent, idle and free per quota', async () => {
    const doc = (await (await s.get('/v1/quotas', 'bob')).json()) as { kind: string; version: string; quotas: Array<Record<string, unknown>>; pools: unknown[] };
    expect(doc.kind).toBe('QuotaView');
    const pick = (q: Record<string, unknown>) => [q.name, q.min, q.used, q.inQuota, q.borrowing, q.lent, q.idle, q.free, q.jobs];
    expect(doc.quotas.map(pick)).toEqual([
      ['Root', { gpu: 16 }, 14, 10, 4, 0, 1, 2, 4],
      ['A', { gpu: 8 }, 8, 8, 4, 0, 0, 0, 2],
      ['B', { gpu: 8 }, 2, 2, 0, 4, 1, 6, 2],
    ]);
    expect(doc.quotas[1]).toMatchObject({ parent: 'Root', depth: 1, workspaces: ['ws-a'], selfPreemption: { highPriority: '7-9', lowPriority: '1-3', modules: ['DLC'] } });
    expect(doc.pools).toEqual([{ name: 'pool', type: 'general', nodes: 2, gpus: 16, cordonedNodes: 1 }]);
  });

  it('GET /v1/quotas and an explanation: max (the ceiling) beside every guarantee, null where there is none', async () => {
    const dir = policyCopy('test/serve/fixtures');
    const file = join(dir, 'two-teams.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('        - name: A\n          min: { gpu: 8 }\n', '        - name: A\n          min: { gpu: 8 }\n          max: { gpu: 12, cpu: 64 }\n'));
    const c = await serve([file]);
    const doc = (await (await c.get('/v1/quotas', 'bob')).json()) as { quotas: Array<{ name: string; max: unknown }> };
    expect(doc.quotas.map((q) => [q.name, q.max])).toEqual([
      ['Root', null],
      ['A', { gpu: 12, cpu: 64000 }],
      ['B', null],
    ]);
    const e = (await (await c.get('/v1/jobs/a-in/explain', 'alice')).json()) as { path: Array<{ quota: string; min: number; max: number | null }> };
    expect(e.path.map((p) => [p.quota, p.min, p.max])).toEqual([
      ['A', 8, 12],
      ['Root', 16, null],
    ]);
  });

  it('GET /v1/nodes: GPUs used (shares counted), free, shared, cordoned, by standing, and the jobs on each as bob may see them', async () => {
    const doc = (await (await s.get('/v1/nodes', 'bob')).json()) as { nodes: Array<Record<string, unknown> & { jobs: Array<Record<string, unknown>> }> };
    const n1 = doc.nodes.find((n) => n.name === 'n-1')!;
    expect([n1.gpus, n1.used, n1.free, n1.shared, n1.cordoned, n1.gpuModel]).toEqual([8, 7, 1, 1, true, 'A100']);
    expect(n1.standing).toEqual({ 'in-quota': 2, borrowing: 4, idle: 1 });
    expect(n1.jobs).toEqual([
      { job: '(hidden: ws-a)', hidden: true, workspace: 'ws-a', quota: 'A', standing: 'borrowing', priorityBand: 'high (7-9)', pods: 1, gpus: 4, indices: [0, 1, 2, 3] },
      { job: 'b-in', workspace: 'ws-b', quota: 'B', standing: 'in-quota', priorityBand: 'low (1-3)', priority: 2, module: 'DLC', pods: 1, gpus: 2, indices: [4, 5] },
      { job: 'b-idle', workspace: 'ws-b', quota: 'B', standing: 'idle', priorityBand: 'low (1-3)', priority: 1, module: 'DSW', pods: 2, gpus: 1, indices: [6] },
    ]);
    const pool = (await (await s.get('/v1/nodes?pool=nope', 'bob')).json()) as { nodes: unknown[] };
    expect(pool.nodes).toEqual([]);
  });

  it('GET /v1/jobs: every running job with its standing, filters, and "mine"', async () => {
    const all = (await (await s.get('/v1/jobs', 'alice')).json()) as { running: Array<Record<string, unknown>>; queued: unknown[] };
    expect(all.queued).toEqual([]);
    expect(all.running.map((j) => [j.job, j.standing, j.gpus])).toEqual([
      ['a-in', 'in-quota', 8],
      ['a-borrow', 'borrowing', 4],
      ['(hidden: ws-b)', 'in-quota', 2],
      ['(hidden: ws-b)', 'idle', 1],
    ]);
    expect(all.running[0]).toMatchObject({ module: 'DLC', priority: 5, startedAt: '2026-11-20T10:00:00.000Z', nodes: ['n-0'], source: expect.stringMatching(/two-teams\.yaml:\d+:\d+$/) });
    expect(Object.keys(all.running[2]!).sort()).toEqual(['gpus', 'gpusPerPod', 'hidden', 'job', 'nodes', 'pods', 'priorityBand', 'quota', 'standing', 'workspace']);
    const mine = (await (await s.get('/v1/jobs?mine=true', 'alice')).json()) as { running: Array<{ job: string }> };
    expect(mine.running.map((j) => j.job)).toEqual(['a-in', 'a-borrow']);
    const onB = (await (await s.get('/v1/jobs?quota=B', 'bob')).json()) as { running: Array<{ job: string }> };
    expect(onB.running.map((j) => j.job)).toEqual(['b-in', 'b-idle']);
  });

  it("GET /v1/jobs: the queued jobs with their place in their quota's queue, another team's as anonymous usage", async () => {
    // test/serve/fixtures/queued.yaml: b-sweep (TeamB, 2 x 8 GPUs, 11:00) and a-eval (TeamA, 8 GPUs, 11:30), each first in its fifo queue.
    const q = await serve(['test/serve/fixtures/queued.yaml']);
    try {
      const alice = (await (await q.get('/v1/jobs', 'alice')).json()) as { queued: Array<Record<string, unknown>> };
      expect(alice.queued).toEqual([
        {
          job: 'a-eval',
          workspace: 'team-a',
          quota: 'TeamA',
          priorityBand: 'medium (4-6)',
          pods: 1,
          gpusPerPod: 8,
          gpus: 8,
          submittedAt: '2026-11-20T11:30:00.000Z',
          position: 1,
          strategy: 'fifo',
          module: 'DLC',
          priority: 5,
          source: expect.stringMatching(/queued\.yaml:\d+:\d+$/),
        },
        {
          job: '(hidden: team-b)',
          hidden: true,
          workspace: 'team-b',
          quota: 'TeamB',
          priorityBand: 'medium (4-6)',
          pods: 2,
          gpusPerPod: 8,
          gpus: 16,
          submittedAt: '2026-11-20T11:00:00.000Z',
          position: 1,
          strategy: 'fifo',
        },
      ]);
      const bob = (await (await q.get('/v1/jobs?mine=true', 'bob')).json()) as { queued: Array<{ job: string }> };
      expect(bob.queued.map((j) => j.job)).toEqual(['b-sweep']);
      const onA = (await (await q.get('/v1/jobs?quota=TeamA', 'bob')).json()) as { queued: Array<{ job: string }> };
      expect(onA.queued.map((j) => j.job)).toEqual(['(hidden: team-a)']);
    } finally {
      await q.close();
    }
  });

  it('GET /v1/jobs/NAME/explain: the standing, the quota path, and every rule and submission that could preempt it', async () => {
    const bIn = (await (await s.get('/v1/jobs/b-in/explain', 'bob')).json()) as Record<string, unknown>;
    expect(bIn.standing).toMatchObject({ standing: 'in-quota', code: 'standing/in-quota' });
    expect(bIn.path).toEqual([
      { quota: 'B', min: 8, max: null, used: 2 },
      { quota: 'Root', min: 16, max: null, used: 14 },
    ]);
    // A's self-level preemption reaches priority 2 DLC jobs on its sibling B, for A's jobs of priority 7-9.
    expect(bIn.preemptibleBy).toEqual([
      expect.objectContaining({
        rule: 'A/selfPreemption',
        kind: 'self',
        preemptors: [
          { quotas: ['A'], priorities: '7-9', standing: 'in-quota' },
          { quotas: ['A'], priorities: '7-9', standing: 'borrowing' },
        ],
      }),
    ]);
    // A borrower is reclaimed by the lender's in-quota jobs: B and what is below it, any priority (reclaim: any).
    const borrow = (await (await s.get('/v1/jobs/a-borrow/explain', 'alice')).json()) as { standing: { code: string }; preemptibleBy: Array<{ rule: string; preemptors: unknown[] }> };
    expect(borrow.standing.code).toBe('standing/borrowing');
    expect(borrow.preemptibleBy).toEqual([expect.objectContaining({ rule: 'B/reclaim', preemptors: [{ quotas: ['B'], priorities: '1-9', standing: 'in-quota' }] })]);
    // Idle capacity returns to any job that runs on quota in the pool.
    const idle = (await (await s.get('/v1/jobs/b-idle/explain', 'bob')).json()) as { preemptibleBy: Array<{ rule: string; preemptors: unknown[] }> };
    expect(idle.preemptibleBy).toEqual([
      expect.objectContaining({
        rule: 'reclaim/idle',
        preemptors: [
          { quotas: [], anyQuotaOf: 'pool', priorities: '1-9', standing: 'in-quota' },
          { quotas: [], anyQuotaOf: 'pool', priorities: '1-9', standing: 'borrowing' },
        ],
      }),
    ]);
    // A job bob may not see is not confirmed: the same 404 as for no job at all.
    const hidden = await s.get('/v1/jobs/a-in/explain', 'bob');
    const none = await s.get('/v1/jobs/no-such-job/explain', 'bob');
    expect([hidden.status, none.status]).toEqual([404, 404]);
    expect(await hidden.text()).toBe(await none.text());
  });
});

describe('findings as a caller may read them', () => {
  it("replaces the names of jobs the caller may not see in the policy's findings (status and answers)", async () => {
    const dir = policyCopy('test/fixtures/interop/policy');
    const quotas = join(dir, 'quotas.yaml');
    writeFileSync(
      quotas,
      readFileSync(quotas, 'utf8')
        .replace('spec: { quotas: [team-a, platform] }', 'spec: { quotas: [team-a, platform], members: [ { user: ana, role: developer } ] }')
        .replace('spec: { quotas: [team-b] }', 'spec: { quotas: [team-b], members: [ { user: ben, role: developer } ] }'),
    );
    const s = await serve([dir]);
    const ana = (await (await s.get('/v1/status', 'ana')).json()) as { findings: Array<{ code: string; message: string }> };
    const ben = (await (await s.get('/v1/status', 'ben')).json()) as typeof ana;
    expect(ana.findings.length).toBeGreaterThan(0);
    expect(ana.findings.map((f) => f.message).join('\n')).toContain('"team-a/debug-0"');
    const benText = ben.findings.map((f) => f.message).join('\n');
    expect(benText).not.toContain('team-a/debug-0');
    // A finding about a hidden job is anonymous (test/serve/caller-isolation.test.ts has the rest).
    expect(benText).toContain('a job of team-a on team-a, which you may not see');
    const answer = await (await s.post('/v1/whatif', { submit: { workspace: 'team-b', quota: 'team-b', module: 'DLC', priority: 3, pods: 1, resources: { gpu: 1 } } }, 'ben')).text();
    expect(answer).not.toContain('team-a/debug-0');
  });
});
