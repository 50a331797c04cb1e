/** SEMANTICS 8: the order each strategy tries a queue in, and which failures block. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_PARAMETERS, type QueueStrategy } from '../../../src/model/policy.js';
import { JobQueue, type QueueEntry } from '../../../src/engine/queue-order.js';

const H = 3_600_000;
type E = QueueEntry & { name: string };
const e = (name: string, priority: number, submit: number, order = 0): E => ({ name, priority, submit, order, enqueuedAt: submit });

function queue(strategy: QueueStrategy, entries: E[], params = DEFAULT_QUEUE_PARAMETERS): JobQueue<E> {
  const q = new JobQueue<E>(strategy, params);
  for (const x of entries) q.add(x);
  return q;
}
const names = (q: JobQueue<E>, now: number) => q.attempts(now).map((a) => `${a.entry.name}${a.blocking ? '!' : ''}`);

describe('JobQueue', () => {
  const jobs = [e('low-old', 2, 0), e('high-new', 8, 2 * H), e('mid', 5, H), e('high-old', 8, H)];

  it('orders by priority, then submission time', () => {
    expect(
      queue('round-robin', jobs)
        .all()
        .map((x) => x.name),
    ).toEqual(['high-old', 'high-new', 'mid', 'low-old']);
  });

  it('fifo tries the head only, and it blocks', () => {
    expect(names(queue('fifo', jobs), 3 * H)).toEqual(['high-old!']);
  });

  it('round-robin tries every job and none blocks', () => {
    expect(names(queue('round-robin', jobs), 3 * H)).toEqual(['high-old', 'high-new', 'mid', 'low-old']);
  });

  it('balance widens by one job per balanceWidenEvery the head waited, up to balanceWindow; the last in the window blocks', () => {
    const params = { ...DEFAULT_QUEUE_PARAMETERS, balanceWidenEvery: H, balanceWindow: 3 };
    const q = queue('balance', jobs, params);
    expect(names(q, H)).toEqual(['high-old!']);
    expect(names(q, 2 * H)).toEqual(['high-old', 'high-new!']);
    expect(names(q, 10 * H)).toEqual(['high-old', 'high-new', 'mid!']);
  });

  it('intelligent: priority >= 7 FIFO first, then the rest round-robin by priority aged 1 per interval up to 6', () => {
    const q = queue('intelligent', [e('p8', 8, 5 * H), e('p5', 5, 4 * H), e('p2-old', 2, 0), e('p9', 9, 6 * H)]);
    // At 5h: p2-old has aged 5 steps to 6 (capped: 2 + 5 = 7 > 6), above p5 aged 1 step (6 too, submitted later).
    expect(names(q, 5 * H)).toEqual(['p9!', 'p8!', 'p2-old', 'p5']);
    // At 1h: p2-old is 3, p5 not yet queued long enough to move from 5.
    expect(names(q, H).slice(2)).toEqual(['p5', 'p2-old']);
  });

  it("takes PAI's strategy names in a policy", async () => {
    const { loadPolicy } = await import('../../../src/policy/load-policy.js');
    const text = `apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: p }\n  quotas:\n    - name: Q\n      min: { gpu: 8 }\n      queueStrategy: PaiStrategyIntelligent\n      queue: { agingInterval: 30m, agingCap: 5 }\n`;
    const r = loadPolicy([{ path: 'q.yaml', text }]);
    expect(r.policy?.quotas[0]?.queueStrategy).toBe('intelligent');
    expect(r.policy?.quotas[0]?.queue).toEqual({ ...DEFAULT_QUEUE_PARAMETERS, agingInterval: 30 * 60_000, agingCap: 5 });
    const bad = loadPolicy([{ path: 'q.yaml', text: text.replace('PaiStrategyIntelligent', 'PaiStrategyLottery') }]);
    expect(bad.findings.map((f) => [f.code, f.line])).toEqual([['policy/invalid-value', 9]]);
  });
});
