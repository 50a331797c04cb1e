/**
 * Where an asked job enters the snapshot's queues and the state it is answered on
 * (engine/queue-serve.ts, SEMANTICS 8): made once per quota, position and snapshot state,
 * on a fork that never changes the session's snapshot.
 */
import { describe, expect, it } from 'vitest';
import { queuePlace, servedFor } from '../../../src/engine/queue-serve.js';
import { openSession } from '../../helpers/session.js';
import { policy, QUEUE, submit } from '../../helpers/queue-policy.js';

describe('queue serving', () => {
  it('serves once per place and snapshot state, and never changes the snapshot', async () => {
    const session = openSession(policy(QUEUE));
    const snap = session.snapshot!;
    const before = JSON.stringify(snap.state);
    const jobs = [5, 5, 6].map((priority, i) => ({ ...session.policy.cluster!.queue![0]!, name: `j${i}`, quota: 'A', priority }));
    const engine = { snapshot: snap, tables: session.tables };
    const [p0, p1, p2] = jobs.map((j) => queuePlace(session.policy, j)!);
    expect([p0!.position, p1!.position, p2!.position]).toEqual([2, 2, 1]);
    const s0 = servedFor(engine, p0!);
    // The same quota and position: the same served state, not made again.
    expect(servedFor(engine, p1!)).toBe(s0);
    expect(servedFor(engine, p2!)).not.toBe(s0);
    const served = await s0;
    expect(served.started.map((s) => s.job.name)).toEqual(['b-small']);
    expect(served.held?.job.name).toBe('b-secret');
    // Started on a fork: the session's snapshot still holds a-run alone.
    expect(served.engine.snapshot).not.toBe(snap);
    expect(snap.jobs.map((j) => j.name)).toEqual(['a-run']);
    expect(served.engine.snapshot.jobs.map((j) => j.name).sort()).toEqual(['a-run', 'b-small']);
    const answer = (await session.ask(submit('x'))).answer!;
    expect(answer.decision).toBe('wait');
    expect(JSON.stringify(snap.state)).toBe(before);
  });
});
