/**
 * cli/render-answer.ts, the queue lines (issue 27 item 20): a rejected job prints no queue
 * position (it never enters the queue), and a 1,500-character queue/held reason is wrapped
 * and shortened for people, never one 1,500-character bullet; the answer (--json) keeps it whole.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bullet, renderAnswer } from '../../../src/cli/render-answer.js';
import type { Answer, QueueAnswer } from '../../../src/engine/answer.js';
import type { Reason } from '../../../src/engine/reason-codes.js';

const HOLDER_REASONS: Reason[] = Array.from({ length: 30 }, (_, i) => ({
  code: 'quota/over-min',
  message: `QuotaA would use ${i + 20} GPUs, over its min of 16 GPUs at QuotaA (and at Research, priority ${i % 9})`,
}));
const HELD = `QuotaA's queue is fifo: the job waits behind big-job (QuotaA, priority 5, 64 GPUs), the head of the queue; that job cannot run now: ${HOLDER_REASONS.map((r) => r.message).join('; ')}`;

const queue: QueueAnswer = {
  position: 1,
  strategy: 'fifo',
  started: [],
  heldBy: { job: 'big-job', quota: 'QuotaA', priority: 5, gpus: 64, submittedAt: '2026-01-01T00:00:00.000Z', reasons: HOLDER_REASONS },
};
const base: Answer = { query: 'q', job: 'j', quota: 'QuotaA', decision: 'wait', standing: null, placement: [], victims: [], lostGpuHours: 0, reasons: [], notes: [] };
const text = (a: Answer, width = 100) => stripVTControlCharacters(renderAnswer(a, width).text);

describe('renderAnswer: the queue', () => {
  it('prints no queue position for a rejected job, and prints it for a waiting one', () => {
    const reason: Reason = { code: 'placement/never-fits-pool', message: 'the gang fits no node of the pool' };
    expect(text({ ...base, decision: 'reject', reasons: [reason], queue: { ...queue, heldBy: null } })).not.toContain('queue:');
    expect(text({ ...base, reasons: [reason], queue: { ...queue, heldBy: null } })).toContain('queue: position 1 in QuotaA (fifo)');
  });

  it('wraps and shortens a 1,500-character queue/held reason, and lists the holder reasons one a line', () => {
    expect(HELD.length).toBeGreaterThan(1500);
    const a: Answer = { ...base, reasons: [{ code: 'queue/held', message: HELD }], queue };
    const lines = text(a, 100).split('\n');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(100);
    const start = lines.findIndex((l) => l.startsWith("    - QuotaA's queue is fifo"));
    const end = lines.findIndex((l) => l.startsWith('  queue:'));
    // Six lines at most, the last saying how much is left out and where it is whole.
    expect(end - start).toBeLessThanOrEqual(6);
    expect(lines[end - 1]).toMatch(/^ {6}… [\d,]+ more character\(s\); --json or -o yaml holds the whole reason$/);
    // The holder's reasons each on their own line under "held by:".
    const held = lines.findIndex((l) => l.startsWith('  held by: big-job'));
    expect(lines.slice(held + 1, held + 1 + HOLDER_REASONS.length)).toEqual(HOLDER_REASONS.map((r) => `    - ${r.message}`));
    // The answer itself (what --json prints) is not touched.
    expect(a.reasons[0]!.message).toBe(HELD);
  });

  it('leaves a short reason on one line as it is', () => {
    expect(bullet('short reason', '    - ', 40).map((d) => d.text)).toEqual(['    - short reason']);
  });
});
