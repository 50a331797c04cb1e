/** cli/render-risk.ts: the `quotient risk` table, on a real report and on hostile text. */
import fc from 'fast-check';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { percent, renderRisk } from '../../../src/cli/render-risk.js';
import { escapeDisplay } from '../../../src/model/display-text.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { riskBody, type RiskBody } from '../../../src/simulate/risk-document.js';
import { horizonRisk } from '../../../src/simulate/risk-horizon.js';
import { assessRisk } from '../../../src/simulate/risk.js';
import { dirtOf, hostileName } from '../../helpers/hostile-text.js';
import { openSession } from '../../helpers/session.js';

let body: RiskBody;

beforeAll(async () => {
  const session = openSession(readBundles(['policies/idle-resources'])[0]!.files);
  const source = { kind: 'policy' } as const;
  const a = await assessRisk(session, { samples: 60, seed: 1, source });
  const h = await horizonRisk(session.policy, { horizon: 6 * 3_600_000, runs: 2, seed: 1, source, ratePerHour: 2 });
  body = riskBody('policies/idle-resources', 'alice', source, a, h);
});

/** Every string of `v` with `h` appended (numbers and the enums the renderer only compares stay). */
function poisoned<T>(v: T, h: string): T {
  const walk = (x: unknown): unknown =>
    typeof x === 'string' ? `${x}${h}` : Array.isArray(x) ? x.map(walk) : x !== null && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)])) : x;
  return walk(v) as T;
}

describe('renderRisk', () => {
  it('shows each job with its exposure, horizon, rule and protection, and each rule once with its line', () => {
    // Colours off whatever the environment says (CI sets FORCE_COLOR): the lines are matched as text.
    const out = stripVTControlCharacters(renderRisk(body, 200).text);
    expect(body.jobs.some((j) => j.protection?.min)).toBe(true);
    for (const j of body.jobs) {
      expect(out).toContain(j.job);
      expect(out).toContain(percent(j.exposure));
    }
    expect(out).toContain('reclaim/idle');
    expect(out.match(/^ {2}reclaim\/idle {2}built-in/gm)).toHaveLength(1);
    expect(out).toContain('min 24 GPUs');
    expect(out).toContain('/2 runs');
  });

  it('prints no hostile character raw and breaks no line, whatever string holds it', () => {
    let cases = 0;
    fc.assert(
      fc.property(hostileName(), (h) => {
        const out = renderRisk(poisoned(body, h), 120).text;
        const dirt = dirtOf(out, true);
        if (dirt) throw new Error(`${JSON.stringify(h)}: ${dirt}`);
        const first = [...h].find((c) => escapeDisplay(c).text !== c) ?? '';
        expect(out).toContain(escapeDisplay(first).text);
        cases++;
      }),
      { seed: 23, numRuns: 40 },
    );
    expect(cases).toBe(40);
  });
});
