/**
 * What each user may see (SEMANTICS 10): members see their workspace's jobs in full,
 * an admin of a parent quota's workspace sees the subtree, everyone else sees other
 * teams' jobs only as anonymous usage — in the answer's JSON too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { priorityBand } from '../../../src/engine/visibility.js';
import { openSession } from '../../helpers/session.js';
import { coded } from '../../helpers/codes.js';

const DIR = 'policies/team-isolation';
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => ({ path: join(DIR, f), text: readFileSync(join(DIR, f), 'utf8') }));

const C_JOBS = ['dsw-c-labeling', 'dsw-c-confidential'];
const B_JOBS = ['train-b-secret-llm', 'train-b-eval'];

async function serviceAs(user: string) {
  const s = openSession(files);
  const w = s.policy.whatIfs.find((x) => x.name === 'team-a-service')!;
  return s.answerJob(w.name, w.submit, { viewer: s.viewer(user) });
}

describe('visibility', () => {
  it("shows a member of workspace-b another team's victim only as anonymous usage", async () => {
    const a = await serviceAs('bob');
    expect('as' in a && a.as).toBe('bob');
    expect(a.victims).toEqual([
      expect.objectContaining({ job: '(hidden: workspace-c)', hidden: true, workspace: 'workspace-c', quota: 'Quota1.2', priorityBand: 'low (1-3)', gpus: 8, rule: 'Quota1/childPreemption' }),
    ]);
    const v = a.victims[0] as unknown as Record<string, unknown>;
    expect(v.priority).toBeUndefined();
    expect(v.module).toBeUndefined();
    expect(v.lostGpuHours).toBeUndefined();
  });

  it("never reveals a hidden victim's lost work through the totals in the reasons", async () => {
    const full = await (async () => {
      const s = openSession(files);
      const w = s.policy.whatIfs.find((x) => x.name === 'team-a-service')!;
      return s.answerJob(w.name, w.submit);
    })();
    const hiddenLost = full.victims.reduce((sum, v) => sum + v.lostGpuHours, 0);
    expect(hiddenLost).toBeGreaterThan(0);
    const asBob = await serviceAs('bob');
    const totals = asBob.reasons.find((r) => r.code === 'preempt/victims')!.message;
    expect(totals).toContain('0 GPU-hours of work lost by the jobs you can see');
    expect(totals).not.toContain(`${hiddenLost} GPU-hours`);
  });

  it("never puts a hidden job's name in the JSON", async () => {
    for (const user of ['bob', 'dave', 'oscar']) {
      const json = JSON.stringify(await serviceAs(user));
      for (const name of C_JOBS) expect(json, `${user} sees ${name}`).not.toContain(name);
    }
    for (const user of ['carol', 'erin', 'gina']) {
      const json = JSON.stringify(await serviceAs(user));
      for (const name of B_JOBS) expect(json, `${user} sees ${name}`).not.toContain(name);
    }
  });

  it("shows members of the victim's own workspace, guests included, the victim in full", async () => {
    for (const user of ['carol', 'erin', 'gina']) {
      const a = await serviceAs(user);
      expect(a.victims.map((v) => v.job)).toEqual(['dsw-c-labeling']);
      expect(a.victims[0]).toMatchObject({ priority: 1, module: 'DSW' });
    }
  });

  it("shows an admin of the parent quota's workspace the whole subtree", async () => {
    const a = await serviceAs('alice');
    expect(a.victims[0]).toMatchObject({ job: 'dsw-c-labeling', priority: 1, module: 'DSW' });
  });

  it('names hidden jobs in no reason, even when every candidate is listed', async () => {
    const s = openSession(files);
    // Quota1 is full; a 128-GPU service could preempt only the priority 1-3 jobs (40 GPUs).
    const job = { ...s.policy.whatIfs[0]!.submit, name: 'infer-huge', pods: 16 };
    const full = await s.answerJob('huge', job);
    // The text is the behaviour here: unredacted, a reason names the job the viewer must not see.
    expect(full.reasons.map((r) => r.message).join('\n')).toContain('dsw-c-labeling');
    const json = JSON.stringify(await s.answerJob('huge', job, { viewer: s.viewer('bob') }));
    for (const name of C_JOBS) expect(json).not.toContain(name);
    expect(json).toContain('train-b-secret-llm');
    expect(json).toContain('(hidden: workspace-c)');
  });

  it("answers a guess of a hidden job's name exactly as a name no job has (what `whatif --as` prints)", async () => {
    const s = openSession(files);
    const w = s.policy.whatIfs.find((x) => x.name === 'team-a-service')!;
    // The caller's own text: the job's name, the GPU model it asks for, its submitter.
    const asked = async (name: string): Promise<string> => {
      const job = { ...w.submit, name, gpuModels: [name], submittedBy: name };
      return JSON.stringify(await s.answerJob(w.name, job, { viewer: s.viewer('bob') }))
        .split(name)
        .join('NAME');
    };
    // dsw-c-labeling is workspace-c's, hidden from bob; dsw-c-labelinq is no job at all.
    const guess = await asked('dsw-c-labeling');
    expect(guess).toBe(await asked('dsw-c-labelinq'));
    expect(guess).not.toContain('(hidden: workspace-c)');
  });

  it('refuses an unknown user rather than showing nothing', () => {
    const s = openSession(files);
    expect(() => s.viewer('nobody')).toThrow(coded('cli/unknown-user'));
  });

  it('names priority bands low, medium and high', () => {
    expect([1, 3, 4, 6, 7, 9].map(priorityBand)).toEqual(['low (1-3)', 'low (1-3)', 'medium (4-6)', 'medium (4-6)', 'high (7-9)', 'high (7-9)']);
  });

  it('hides jobs whose standing a scaling changes from other teams', () => {
    const dir = 'policies/quota-scaling';
    const s = openSession(
      readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
        .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') })),
    );
    const scale = s.policy.scales.find((x) => x.name === 'rebalance-b-c')!;
    const asBob = s.scale(scale, 'bob');
    expect(asBob.changes).toEqual([expect.objectContaining({ job: '(hidden: workspace-c)', hidden: true, priority: null, priorityBand: 'low (1-3)', gpus: 8 })]);
    expect(JSON.stringify(asBob)).not.toContain('dsw-c-notebooks');
    expect(s.scale(scale, 'carol').changes[0]!.job).toBe('dsw-c-notebooks');
  });
});
