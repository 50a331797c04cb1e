/** cli/progress-bar.ts: silent for the first second; off a terminal, plain lines (no escapes) at most every `everyMs`, or none. */
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../../src/cli/progress-bar.js';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('progressBar off a terminal', () => {
  it('says nothing in the first second, then a plain line at most every everyMs', () => {
    const c = clock();
    const lines: string[] = [];
    const p = progressBar({ label: 'risk over the horizon', unit: 'arrivals', tty: false, now: c.now, everyMs: 5000, writeLine: (l) => lines.push(l) });
    p.update(10, 100, 'run 1/2');
    c.advance(999);
    p.update(20, 100, 'run 1/2');
    expect(lines).toEqual([]);
    c.advance(1);
    p.update(30, 100, 'run 1/2');
    c.advance(4999);
    p.update(40, 100, 'run 1/2');
    c.advance(1);
    p.update(1500, 3000, 'run 2/2');
    p.stop();
    expect(lines).toEqual(['risk over the horizon: run 1/2, 30/100 arrivals (30 %), 1 s', 'risk over the horizon: run 2/2, 1,500/3,000 arrivals (50 %), 6 s']);
    // No cursor moves or colours in a log (NO_COLOR, a CI log, a file).
    for (const l of lines) expect(l).not.toMatch(/[\u001b\r]/); // eslint-disable-line no-control-regex -- looking for escapes on purpose
  });

  it('stays silent when asked to off a terminal (a document piped to a program)', () => {
    const c = clock();
    const lines: string[] = [];
    const p = progressBar({ label: 'simulating', unit: 'jobs arrived', tty: false, quietOffTerminal: true, now: c.now, writeLine: (l) => lines.push(l) });
    c.advance(60_000);
    p.update(1, 2);
    expect(lines).toEqual([]);
  });
});
