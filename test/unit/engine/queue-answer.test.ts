/**
 * Queues at one instant (SEMANTICS 8; engine/queue-serve.ts, queue-answer.ts): what the
 * golden cases do not show — an empty queue changes nothing, the served state is made
 * once per place and never changes the session's snapshot, a job that could never run is
 * rejected whatever its queue does, queued jobs of another team are anonymous
 * (SEMANTICS 10), and a request may not take a queued job's name.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { queuePlace } from '../../../src/engine/queue-serve.js';
import { openSession } from '../../helpers/session.js';
import { policy, QUEUE, submit } from '../../helpers/queue-policy.js';

describe('queues at one instant', () => {
  it('an empty queue changes nothing: the same answer, without a queue field, as a snapshot that lists none', async () => {
    const none = openSession(policy([]));
    const empty = openSession(policy([]).replace('  jobs:', '  queue: []\n  jobs:'));
    expect(none.policy.cluster!.queue).toBeUndefined();
    expect(queuePlace(empty.policy, none.policy.cluster!.jobs[0]!)).toBeUndefined();
    const a = await none.ask(submit('x'));
    const b = await empty.ask(submit('x'));
    expect(a.answer).toBeDefined();
    expect(a.answer!.queue).toBeUndefined();
    expect(b.answer).toEqual(a.answer);
  });

  it('rejects a job that could never run, whatever its queue does', async () => {
    const session = openSession(policy(QUEUE));
    const { answer } = await session.ask(submit('x', { module: 'EAS' }));
    // team-a allows DLC only: reject (SEMANTICS 3), with its place all the same and no holder.
    expect(answer?.decision).toBe('reject');
    expect(answer?.queue).toMatchObject({ position: 2, heldBy: null });
  });

  it("names another team's queued jobs only as anonymous usage (SEMANTICS 10)", async () => {
    const session = openSession(policy(QUEUE));
    const full = (await session.ask(submit('x'))).answer!;
    expect(full.queue?.heldBy).toMatchObject({ job: 'b-secret', priority: 5 });
    const alice = (await session.ask({ ...submit('x'), as: 'alice' })).answer!;
    expect(alice.queue?.started).toEqual([
      {
        job: '(hidden: team-b)',
        hidden: true,
        workspace: 'team-b',
        quota: 'B',
        priorityBand: 'medium (4-6)',
        gpus: 8,
        submittedAt: '2026-11-20T11:30:00.000Z',
        decision: 'admit',
        standing: 'in-quota',
        victims: [],
      },
    ]);
    expect(alice.queue?.heldBy).toMatchObject({ job: '(hidden: team-b)', hidden: true, priorityBand: 'medium (4-6)' });
    // The holder's reasons: codes with their meanings, no sentence about the hidden job.
    expect(alice.queue!.heldBy!.reasons.map((r) => r.code)).toContain('quota/over-min');
    const text = JSON.stringify(alice);
    expect(text).not.toContain('b-secret');
    expect(text).not.toContain('b-small');
    // bob (team-b) sees them in full.
    const bob = (await session.ask({ ...submit('y', { workspace: 'team-b' }), as: 'bob' })).answer!;
    expect(bob.queue?.heldBy).toMatchObject({ job: 'b-secret' });
  });

  it("refuses a submission with a queued job's name, unless the asker may not see that job", async () => {
    const session = openSession(policy(QUEUE));
    const taken = await session.ask(submit('b-secret'));
    expect(taken.answer).toBeUndefined();
    expect(taken.findings.map((f) => [f.code, f.path])).toEqual([['policy/duplicate-job', 'submit.name']]);
    // alice may not see team-b's job: refusing the name would confirm it.
    const hidden = await session.ask({ ...submit('b-secret'), as: 'alice' });
    expect(hidden.answer?.decision).toBe('wait');
  });

  it('renders the queue in the table: the place, the jobs served first and the holder', async () => {
    const { renderAnswer } = await import('../../../src/cli/render-answer.js');
    const session = openSession(policy(QUEUE));
    const text = renderAnswer((await session.ask(submit('x'))).answer!, 200).text;
    expect(text).toContain('position 2 in A (fifo)');
    expect(text).toContain('b-small (B, priority 5): admit, runs in-quota');
    expect(text).toContain('held by:');
  });

  it('the shipped example shows a queued job ahead taking the room and a fifo hold', async () => {
    const files = ['quotas.yaml', 'cluster.yaml', 'whatif.yaml'].map((f) => ({ path: `policies/queued-jobs/${f}`, text: readFileSync(`policies/queued-jobs/${f}`, 'utf8') }));
    const session = openSession(files);
    const by = new Map<string, Awaited<ReturnType<typeof session.answerJob>>>();
    for (const w of session.policy.whatIfs) by.set(w.name, await session.answerJob(w.name, w.submit));
    // As worked out in policies/queued-jobs/whatif.yaml.
    expect(by.get('team-b-behind-sweep')).toMatchObject({ decision: 'wait', queue: { position: 2, strategy: 'fifo', heldBy: { job: 'b-sweep' } } });
    expect(by.get('team-b-behind-sweep')!.queue!.started.map((s) => s.job)).toEqual(['a-eval']);
    expect(by.get('team-a-after-eval')).toMatchObject({ decision: 'wait', queue: { position: 2, heldBy: null } });
    expect(by.get('team-b-urgent')).toMatchObject({ decision: 'admit', standing: 'in-quota', queue: { position: 1, heldBy: null }, placement: [{ node: 'lab-3' }] });
  });
});
