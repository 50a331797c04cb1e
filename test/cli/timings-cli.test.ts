/**
 * `--timings` (docs/cli.md): every stage of loading and opening a policy, and the
 * answers, timed on stderr; stdout keeps only the document.
 */
import { describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

const STAGES = ['parse', 'validate', 'build', 'snapshot', 'scale', 'compile', 'place', 'tabulate'];

describe('--timings', () => {
  it('prints each stage and the answers on stderr, and leaves stdout the report alone', () => {
    const plain = quotient(['whatif', 'policies/self-level-preemption', '--json']);
    // Without the compiled-policy cache: a load it serves is one `cache` stage (test/cli/policy-cache.test.ts).
    const timed = quotient(['whatif', 'policies/self-level-preemption', '--json', '--timings', '--no-cache']);
    expect(timed.status).toBe(0);
    expect(timed.stdout).toBe(plain.stdout);
    const lines = timed.stderr.split('\n').filter((l) => l.startsWith('timings: '));
    expect(lines).toHaveLength(2);
    expect(lines[0]!.match(/(\w+) [\d.,]+ ms/g)!.map((m) => m.split(' ')[0])).toEqual([...STAGES, 'total']);
    expect(lines[1]).toMatch(/^timings: answer 3 × [\d.]+ ms = [\d.,]+ ms$/);
  });

  it('is also turned on by QUOTIENT_TIMINGS=1, and is off otherwise', () => {
    process.env.QUOTIENT_TIMINGS = '1';
    try {
      expect(quotient(['check', 'policies/idle-resources', '--no-cache']).stderr).toMatch(/^timings: parse /m);
    } finally {
      delete process.env.QUOTIENT_TIMINGS;
    }
    expect(quotient(['check', 'policies/idle-resources']).stderr).not.toMatch(/timings:/);
  });
});
