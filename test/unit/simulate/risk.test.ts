/** simulate/risk.ts, risk-arrivals.ts, risk-horizon.ts and risk-document.ts: exposure, its rule, protections, visibility, determinism. */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/engine/session.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { arrivalKinds, sampleArrivals } from '../../../src/simulate/risk-arrivals.js';
import { riskBody } from '../../../src/simulate/risk-document.js';
import { horizonRisk } from '../../../src/simulate/risk-horizon.js';
import { assessRisk } from '../../../src/simulate/risk.js';
import { clusterDoc, jobsBlock, nodeGroupLine, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';
import { openSession } from '../../helpers/session.js';

const SEEDS = 'policies/inference-preempts-training';

function seeds(): Session {
  return openSession(readBundles([SEEDS])[0]!.files);
}

const POLICY = { kind: 'policy' } as const;

/**
 * Quota A (self-level: highPriority 6-9 takes `lowPriority`) and B under Root; ws-a (ann)
 * submits to A, ws-b (ben) to B; 2 nodes of 8 GPUs running `jobs` (one-line entries).
 */
function twoQuotas(lowPriority: string, jobs: string[], o: { aModules?: string; aAllowed?: string } = {}): string {
  const a = `${o.aAllowed ? `allowedModules: ${o.aAllowed}, ` : ''}selfPreemption: { highPriority: 6-9, lowPriority: ${lowPriority}, modules: [DLC] }`;
  return policyText(
    quotaTreeDoc(rootQuotaEntry(16, quotaEntry('A', 8, { more: a }) + quotaEntry('B', 8))),
    workspaceDoc(['A'], { name: 'ws-a', more: `  modules: ${o.aModules ?? '[DLC]'}\n  members: [{ user: ann, role: admin }]\n` }),
    workspaceDoc(['B'], { name: 'ws-b', more: '  modules: [DLC]\n  members: [{ user: ben, role: admin }]\n' }),
    clusterDoc(nodeGroupLine(2) + (jobs.length ? jobsBlock(...jobs) : '  jobs: []\n')),
  );
}

/** A running job of 8 GPUs on node `node`, started two hours before the snapshot. */
function job8(name: string, workspace: string, quota: string, priority: number, node: string, more = ''): string {
  return `{ name: ${name}, workspace: ${workspace}, quota: ${quota}, module: DLC, priority: ${priority}, pods: 1, resources: { gpu: 8 }, startedAt: 2026-11-20T10:00:00Z, placement: [{ node: ${node}, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }]${more} }`;
}

describe('risk arrivals', () => {
  it("draws only submissions the policy's workspaces may make, the same ones for the same seed", () => {
    const s = seeds();
    const kinds = arrivalKinds(s.policy);
    expect(kinds.map((k) => `${k.workspace}/${k.quota}/${k.module}`)).toEqual(['workspace-a/Quota1/EAS', 'workspace-b/Quota1.1/DLC', 'workspace-c/Quota1.2/DSW']);
    const a = sampleArrivals(s.policy, POLICY, 50, 7, new Set());
    expect(sampleArrivals(s.policy, POLICY, 50, 7, new Set())).toEqual(a);
    expect(sampleArrivals(s.policy, POLICY, 50, 8, new Set())).not.toEqual(a);
    for (const j of a) {
      expect(kinds.some((k) => k.workspace === j.workspace && k.quota === j.quota && k.module === j.module && k.users.includes(j.submittedBy!))).toBe(true);
      expect(j.priority).toBeGreaterThanOrEqual(1);
      expect(j.priority).toBeLessThanOrEqual(9);
    }
  });

  it("draws only modules both the workspace and the quota allow (a quota's allowedModules)", () => {
    const text = twoQuotas('1-5', [], { aModules: '[DLC, DSW]', aAllowed: '[DLC]' });
    const kinds = arrivalKinds(openSession(text).policy);
    expect(kinds.map((k) => `${k.workspace}/${k.quota}/${k.module}`)).toEqual(['ws-a/A/DLC', 'ws-b/B/DLC']);
  });

  it("takes no running job's name", () => {
    const s = seeds();
    const [first] = sampleArrivals(s.policy, POLICY, 1, 1, new Set(['arrival-1']));
    expect(first!.name).toBe('arrival-1-x');
  });

  it("draws from a trace's quota jobs only (spot jobs never preempt a quota job)", () => {
    const s = seeds();
    const spec = { ...s.policy.whatIfs[0]!.submit };
    const jobs = [
      { spec, submit: 0, duration: 1 },
      { spec: { ...spec, quota: 'Quota1.2' }, submit: 0, duration: 1, spot: { instanceType: 't', priceLimit: 1 } },
    ];
    const drawn = sampleArrivals(s.policy, { kind: 'trace', path: 'jobs.csv', jobs }, 20, 1, new Set());
    expect(new Set(drawn.map((j) => j.quota))).toEqual(new Set(['Quota1']));
  });
});

describe('assessRisk', () => {
  it("ranks team B's and C's jobs on the seeds' policy, each exposed one with Quota1's childPreemption and its line", async () => {
    const r = await assessRisk(seeds(), { samples: 200, seed: 1, source: POLICY });
    expect(r.asked).toBe(200);
    const byName = new Map(r.jobs.map((j) => [j.job, j]));
    expect(new Set(byName.keys())).toEqual(new Set(['train-b-llm', 'train-b-eval', 'dsw-c-notebooks', 'dsw-c-finetune', 'dsw-c-research']));
    for (const name of ['dsw-c-notebooks', 'train-b-llm']) {
      const j = byName.get(name)!;
      expect(j.exposure).toBeGreaterThan(0);
      expect(j.rule).toMatchObject({ rule: 'Quota1/childPreemption', code: 'victim/child-preemption' });
      expect(j.rule!.source).toMatch(/quotas\.yaml:14:9$/);
      expect(j.exposure).toBeCloseTo(j.preemptingArrivals / r.asked, 4);
    }
    // Priority 5 and 6 are outside preemptiblePriority 1-3: nothing reaches them.
    expect(byName.get('train-b-eval')!.exposure).toBe(0);
    expect(byName.get('dsw-c-research')!.exposure).toBe(0);
    // Ranked: most exposed first.
    expect(r.jobs.map((j) => j.exposure)).toEqual([...r.jobs.map((j) => j.exposure)].sort((a, b) => b - a));
  });

  it('is the same for the same seed', async () => {
    const a = await assessRisk(seeds(), { samples: 60, seed: 3, source: POLICY });
    const b = await assessRisk(seeds(), { samples: 60, seed: 3, source: POLICY });
    expect(b).toEqual(a);
  });

  it('computes the lowest priority that protects an exposed job by asking again: out of preemptiblePriority 1-3 protects train-b-llm', async () => {
    const r = await assessRisk(seeds(), { samples: 200, seed: 1, source: POLICY });
    const llm = r.jobs.find((j) => j.job === 'train-b-llm')!;
    // At 3 it is still in reach of Quota1's childPreemption; 4 is the first priority out of it.
    expect(llm.protection?.priority).toBe(4);
    expect(r.jobs.find((j) => j.job === 'train-b-eval')!.protection).toBeNull();
  });

  it('ranks only the jobs the asker may see (SEMANTICS 10), counting the others', async () => {
    const s = seeds();
    const r = await assessRisk(s, { samples: 50, seed: 1, source: POLICY, viewer: s.viewer('bob') });
    expect(r.jobs.map((j) => j.workspace)).toEqual(['workspace-b', 'workspace-b']);
    expect(r.hiddenJobs).toBe(3);
  });

  it('finds that a raised priority can expose a job: lowPriority 4 reaches 4 and not 3', async () => {
    const at = (p: number): string[] => [job8('a-low', 'ws-a', 'A', p, 'n-0'), job8('b-job', 'ws-b', 'B', 9, 'n-1')];
    const exposure = async (p: number) => (await assessRisk(openSession(twoQuotas('4', at(p))), { samples: 100, seed: 1, source: POLICY })).jobs.find((j) => j.job === 'a-low')!;
    expect((await exposure(3)).exposure).toBe(0);
    const four = await exposure(4);
    expect(four.exposure).toBeGreaterThan(0);
    expect(four.rule?.rule).toBe('A/selfPreemption');
    // Every priority above is asked: 5 is out of reach again.
    expect(four.protection?.priority).toBe(5);
  });

  it("computes a borrowing job's protection by a min: counted in quota, the lender's reclaim no longer reaches it", async () => {
    const jobs = [job8('a-own', 'ws-a', 'A', 7, 'n-0'), job8('a-borrow', 'ws-a', 'A', 7, 'n-1', ', standing: borrowing')];
    const r = await assessRisk(openSession(twoQuotas('1-5', jobs)), { samples: 100, seed: 1, source: POLICY });
    const b = r.jobs.find((j) => j.job === 'a-borrow')!;
    expect(b.exposure).toBeGreaterThan(0);
    expect(b.rule?.code).toBe('victim/reclaim-borrowed');
    expect(b.protection?.min).toEqual({ quota: 'A', minGpu: 16, protects: true });
    expect(r.jobs.find((j) => j.job === 'a-own')!.exposure).toBe(0);
  });

  it('never changes the snapshot it assesses', async () => {
    const s = seeds();
    const before = structuredClone(s.snapshot!.jobs);
    await assessRisk(s, { samples: 40, seed: 2, source: POLICY });
    expect(s.snapshot!.jobs).toEqual(before);
  });
});

describe('horizonRisk', () => {
  it('draws each run from the seed: the same seed counts the same runs, other seeds other ones', async () => {
    const policy = seeds().policy;
    const at = (seed: number) => horizonRisk(policy, { horizon: 3 * 3_600_000, runs: 6, seed, source: POLICY, ratePerHour: 0.5 });
    const shares = async (seed: number) => [...(await at(seed)).jobs.values()].map((v) => v.runs).join(',');
    const first = await shares(1);
    expect(await shares(1)).toBe(first);
    // A few arrivals in three hours: whether one comes that preempts differs from seed to seed.
    const others = new Set([first, await shares(2), await shares(3), await shares(4)]);
    expect(others.size).toBeGreaterThan(1);
  });

  it('counts the runs in which each job is preempted, the same for the same seed; priority 5 and 6 never are', async () => {
    const s = seeds();
    const o = { horizon: 12 * 3_600_000, runs: 4, seed: 5, source: POLICY, ratePerHour: 2 };
    const h = await horizonRisk(s.policy, o);
    expect(await horizonRisk(s.policy, o)).toEqual(h);
    expect(h.jobs.get('train-b-eval')).toEqual({ runs: 0, share: 0, rule: null });
    expect(h.jobs.get('dsw-c-research')).toEqual({ runs: 0, share: 0, rule: null });
    expect(h.jobs.get('dsw-c-notebooks')!.rule).toEqual({ rule: 'Quota1/childPreemption', source: 'policies/inference-preempts-training/quotas.yaml:14:9' });
    expect(h.jobs.get('dsw-c-notebooks')!.runs).toBeGreaterThan(0);
    for (const v of h.jobs.values()) expect(v.share).toBe(v.runs / 4);
  });
});

describe('riskBody', () => {
  it('ranks by exposure, then the horizon share, then GPUs, numbering from 1', async () => {
    const s = seeds();
    const a = await assessRisk(s, { samples: 30, seed: 1, source: POLICY, protections: false });
    const body = riskBody('seeds', undefined, POLICY, a, undefined);
    expect(body.jobs.map((j) => j.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(body.horizon).toBeNull();
    expect(body.as).toBeNull();
    const zero = body.jobs.filter((j) => j.exposure === 0);
    expect(zero.map((j) => j.gpus)).toEqual([...zero.map((j) => j.gpus)].sort((x, y) => y - x));
  });
});
