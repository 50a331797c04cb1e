/** simulate/risk-html.ts: the simulate HTML report's exposure section. */
import { describe, expect, it } from 'vitest';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import type { RiskBody } from '../../../src/simulate/risk-document.js';
import { riskSectionHtml, snapshotRiskHtml } from '../../../src/simulate/risk-html.js';

const SEEDS = 'policies/inference-preempts-training';

describe('the exposure section of the simulate HTML report', () => {
  it("ranks the snapshot's jobs with the rule that exposes each and its policy line", async () => {
    const html = await snapshotRiskHtml(readBundles([SEEDS])[0]!.files, SEEDS, { seed: 1, backend: 'wasm', otherNodes: false });
    expect(html).toContain('<section class="risk">');
    expect(html).toContain('<td>Quota1/childPreemption</td><td>policies/inference-preempts-training/quotas.yaml:14:9</td>');
    expect(html.match(/<tr><td class="n">/g)).toHaveLength(5);
  });

  it('is left out when the run is on other nodes (--cluster): the snapshot is not part of it', async () => {
    expect(await snapshotRiskHtml(readBundles([SEEDS])[0]!.files, SEEDS, { seed: 1, backend: 'wasm', otherNodes: true })).toBe('');
  });

  it('escapes every value: a name cannot open markup', () => {
    const body: RiskBody = {
      policy: 'p',
      as: null,
      arrivals: { source: 'policy', trace: null, samples: 1, seed: 1, asked: 1, preempting: 1, decisions: { admit: 0, preempt: 1, wait: 0, reject: 0 } },
      horizon: null,
      jobs: [
        {
          rank: 1,
          job: '<img src=x onerror=alert(1)>',
          workspace: 'w',
          quota: 'Q"&',
          module: 'DLC',
          priority: 1,
          standing: 'in-quota',
          gpus: 8,
          exposure: 1,
          preemptingArrivals: 1,
          horizon: null,
          rule: { rule: "Q'/childPreemption", source: 'a.yaml:1:1', code: 'victim/child-preemption', arrivals: 1 },
          rules: [],
          protection: null,
        },
      ],
      hiddenJobs: 0,
    };
    const html = riskSectionHtml(body);
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('Q&#34;&#38;');
    expect(html).toContain('Q&#39;/childPreemption');
  });
});
