/**
 * "When will it start?" (simulate/start-estimate.ts): a `wait` answer's estimated start,
 * checked against hand calculations written out beside each case.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { canEstimate } from '../../../src/engine/estimate.js';
import { estimateStart } from '../../../src/simulate/start-estimate.js';
import { spotClusterYaml } from '../../helpers/spot-example.js';
import { policyDoc, policyText } from '../../helpers/policy-yaml.js';

function open(files: InputFile[]): Session {
  const { session, findings } = Session.open(files, { backend: 'wasm', now: 0 });
  if (!session) throw new Error(findings.map((f) => `${f.file}:${f.line} ${f.code} ${f.message}`).join('\n'));
  return session;
}

async function estimates(session: Session) {
  const out = new Map<string, Awaited<ReturnType<typeof estimateStart>>>();
  for (const w of session.policy.whatIfs) {
    const a = await session.answerJob(w.name, w.submit);
    expect(a.decision, w.name).toBe('wait');
    out.set(w.name, await estimateStart(session.policy, w.submit, { backend: 'wasm' }));
  }
  return out;
}

describe('start estimates', () => {
  it('policies/when-will-it-start, as worked out by hand', async () => {
    // At 12:00 TeamA (min 16) holds a-serve, 16 GPUs on lab-0/1, no expected end; TeamB
    // (min 16) holds b-train (8 GPUs, lab-2, 10:00 + 3h = 13:00) and b-eval (8, lab-3,
    // ends 15:00). No selfPreemption, no idle jobs: a job waits until its own team's
    // guarantee has room and a node has the GPUs.
    //   team-b-next (8 GPUs): 13:00 b-train ends → TeamB 8/16 used, lab-2 free → in 1 h.
    //   team-b-big (16 GPUs): 13:00 only 8 of TeamB free (b-eval runs); 14:00 nothing
    //     ends; 15:00 b-eval ends → TeamB 0/16, lab-2 and lab-3 free → in 3 h.
    //   team-a-more: TeamA stays at 16/16 while a-serve runs on → no estimate.
    const session = open(readBundles(['policies/when-will-it-start'])[0]!.files);
    expect(canEstimate(session.policy)).toBe(true);
    const e = await estimates(session);
    expect(e.get('team-b-next')).toMatchObject({ start: '2026-11-20T13:00:00.000Z', inHours: 1, queuePosition: 1, queueStrategy: 'fifo', standing: 'in-quota', victims: [], reason: null });
    expect(e.get('team-b-big')).toMatchObject({ start: '2026-11-20T15:00:00.000Z', inHours: 3, standing: 'in-quota', victims: [] });
    const none = e.get('team-a-more')!;
    expect(none).toMatchObject({ start: null, inHours: null, standing: null, withoutExpectedEnd: ['a-serve'] });
    expect(none.reason).toContain('a-serve');
    expect(none.assumptions.join(' ')).toContain('no new arrivals');
    expect(none.assumptions.join(' ')).toContain('run on: a-serve');
  });

  it('starts by preempting once a job ends (the spot example tree: TeamA selfPreemption 7-9 over 1-3 [DLC])', async () => {
    // At 00:00 TeamA (min 16) holds a-hi (p8, 8 GPUs, lj-0, ends 01:00) and a-lo (p2, 8,
    // lj-1, no end); TeamB (min 16) holds b-hi (p5, 16, lj-2/3, no end). Research 32/32.
    // urgent (TeamA, p8, 2 x 8 GPUs) at 00:00: in quota it needs TeamA at 16 - 16 = 0 used,
    // and only a-lo (8) is eligible → short by 8; borrowing needs Research room that only
    // a-lo could free (b-hi is p5, outside 1-3) → short: wait.
    // 01:00 a-hi ends: TeamA 8/16; preempting a-lo leaves 0 → 16 fit in quota, and lj-0 +
    // lj-1 are free → it starts in 1 h, in-quota, preempting a-lo. TeamA's queue is intelligent.
    const quotas = { path: 'quotas.yaml', text: readFileSync('policies/spot-market/quotas.yaml', 'utf8') };
    const cluster = {
      path: 'cluster.yaml',
      text: policyText(
        spotClusterYaml([
          '{ name: a-hi, workspace: team-a, quota: TeamA, module: DLC, priority: 8, resources: { gpu: 8 }, expectedEnd: 2026-11-20T01:00:00Z, placement: [{ node: lj-0, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }] }',
          '{ name: a-lo, workspace: team-a, quota: TeamA, module: DLC, priority: 2, resources: { gpu: 8 }, placement: [{ node: lj-1, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }] }',
          '{ name: b-hi, workspace: team-b, quota: TeamB, module: DLC, priority: 5, pods: 2, resources: { gpu: 8 } }',
        ]),
        policyDoc('WhatIf', 'urgent', '  submit: { name: urgent, workspace: team-a, quota: TeamA, module: DLC, priority: 8, pods: 2, resources: { gpu: 8 } }\n'),
      ),
    };
    const e = (await estimates(open([quotas, cluster]))).get('urgent')!;
    expect(e).toMatchObject({ start: '2026-11-20T01:00:00.000Z', inHours: 1, queueStrategy: 'intelligent', standing: 'in-quota', victims: ['a-lo'], withoutExpectedEnd: ['a-lo', 'b-hi'] });
  });

  it("replays the snapshot's queue forward: the jobs ahead start first when they can (policies/queued-jobs, by hand)", async () => {
    // At 12:00 a-serve (TeamA, 8 GPUs, no end) and b-train (TeamB, 8 GPUs, ends 13:00) run;
    // b-sweep (TeamB, 16 GPUs, 2 h, since 11:00) and a-eval (TeamA, 8 GPUs, 1 h, since 11:30) wait.
    //   team-b-behind-sweep (TeamB, 8): held by b-sweep. 12:00 a-eval starts; 13:00 b-train
    //     and a-eval end, b-sweep starts (TeamB 16 of 16); 15:00 it ends: starts then, in 3 h.
    //   team-a-after-eval (TeamA, 8): a-eval (ahead) starts at 12:00, TeamA 16 of 16; 13:00
    //     a-eval ends: starts then, in 1 h.
    // Each estimate's queue position is the answer's (2 for both).
    const session = open(readBundles(['policies/queued-jobs'])[0]!.files);
    const behind = session.policy.whatIfs.find((w) => w.name === 'team-b-behind-sweep')!;
    const after = session.policy.whatIfs.find((w) => w.name === 'team-a-after-eval')!;
    const e1 = await estimateStart(session.policy, behind.submit, { backend: 'wasm' });
    const e2 = await estimateStart(session.policy, after.submit, { backend: 'wasm' });
    expect(e1).toMatchObject({ start: '2026-11-20T15:00:00.000Z', inHours: 3, queuePosition: 2, queueStrategy: 'fifo', standing: 'in-quota', victims: [] });
    expect(e2).toMatchObject({ start: '2026-11-20T13:00:00.000Z', inHours: 1, queuePosition: 2, standing: 'in-quota' });
    expect(e1.assumptions.join(' ')).toContain('2 queued job(s) wait at the snapshot time, 1 of them ahead of this one');
    const answer = await session.answerJob(behind.name, behind.submit);
    expect(answer.queue?.position).toBe(e1.queuePosition);
    // Without the queue, the same job is admitted now: the queue is what it waits for.
    const bare = readBundles(['policies/queued-jobs'])[0]!.files.map((f) => (f.path.endsWith('cluster.yaml') ? { ...f, text: f.text.slice(0, f.text.indexOf('  queue:')) } : f));
    const noQueue = open(bare);
    expect((await noQueue.answerJob(behind.name, behind.submit)).decision).toBe('admit');
  });

  it('puts a queued job submitted at the snapshot time before the asked job, whatever the names (SEMANTICS 8: it was submitted first)', async () => {
    // z-tie (TeamB, p5, 16 GPUs, submitted at 12:00, no duration) heads TeamB's fifo queue
    // before a-first (p5, submitted at 12:00 too; "a-first" sorts before "z-tie"). z-tie
    // cannot run until b-train ends at 13:00 (TeamB 8 + 16 over 16), then runs on: a-first,
    // held behind it, never starts. Were the name the tie-break, a-first would start at 12:00.
    const files = readBundles(['policies/queued-jobs'])[0]!.files.map((f) =>
      f.path.endsWith('cluster.yaml')
        ? {
            ...f,
            text: `${f.text.slice(0, f.text.indexOf('  queue:'))}  queue:\n    - { name: z-tie, workspace: team-b, quota: TeamB, module: DLC, priority: 5, pods: 2, resources: { gpu: 8 }, submittedAt: 2026-11-20T12:00:00Z }\n`,
          }
        : f,
    );
    const session = open(files);
    const job = { ...session.policy.whatIfs[0]!.submit, name: 'a-first' };
    const answer = await session.answerJob('tie', job);
    expect(answer).toMatchObject({ decision: 'wait', queue: { position: 2, heldBy: { job: 'z-tie' } } });
    const e = await estimateStart(session.policy, job, { backend: 'wasm' });
    expect(e).toMatchObject({ start: null, queuePosition: 2 });
  });
});
