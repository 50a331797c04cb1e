/**
 * Fair sharing made visible by the server (real HTTP on 127.0.0.1): GET /v1/quotas's
 * `fairShare` and /metrics's quotient_quota_weighted_share, on docs/fair-sharing.md
 * section 3's cohort before r-pretrain arrives. Documented there: vision runs 10 of its 6,
 * share (10 − 6) × 1000 / 18 = 222.2 (Kueue's rounded weightedShare: 223); research (4 of
 * 6, weight 2) and nlp (4 of 6) borrow nothing, share 0; the root cohort org is 0.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { serve, type TestServer } from './serve-helpers.js';

const GOLDEN = readFileSync('test/golden/kueue/fair-sharing-worked-example.yaml', 'utf8');

describe('fair sharing in the listings and metrics', () => {
  let s: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-fair-'));
    const file = join(dir, 'fair.yaml');
    // The golden case's policy and Cluster, without its WhatIf and Expect.
    writeFileSync(file, GOLDEN.slice(0, GOLDEN.indexOf('---\napiVersion: quotient.dev/v1\nkind: WhatIf')));
    s = await serve([file]);
  });

  it('GET /v1/quotas: each quota of the fair-sharing tree has fairShare {weightedShare, weight}', async () => {
    const doc = (await (await s.get('/v1/quotas', 'bob')).json()) as { quotas: Array<{ name: string; fairShare: unknown }> };
    expect(doc.quotas.map((q) => [q.name, q.fairShare])).toEqual([
      ['org', { weightedShare: 0, weight: 1 }],
      ['research', { weightedShare: 0, weight: 2 }],
      ['vision', { weightedShare: 223, weight: 1 }],
      ['nlp', { weightedShare: 0, weight: 1 }],
    ]);
  });

  it('/metrics: quotient_quota_weighted_share per quota, the same numbers', async () => {
    const text = await (await s.get('/metrics')).text();
    const lines = text.split('\n').filter((l) => l.startsWith('quotient_quota_weighted_share{'));
    expect(lines).toEqual([
      'quotient_quota_weighted_share{quota="org"} 0',
      'quotient_quota_weighted_share{quota="research"} 0',
      'quotient_quota_weighted_share{quota="vision"} 223',
      'quotient_quota_weighted_share{quota="nlp"} 0',
    ]);
  });

  it('a PAI policy: no fairShare field and no share series', async () => {
    const p = await serve(['test/serve/fixtures/two-teams.yaml']);
    const doc = (await (await p.get('/v1/quotas', 'bob')).json()) as { quotas: Array<Record<string, unknown>> };
    for (const q of doc.quotas) expect('fairShare' in q).toBe(false);
    const text = await (await p.get('/metrics')).text();
    expect(text.split('\n').filter((l) => l.startsWith('quotient_quota_weighted_share{'))).toEqual([]);
  });
});
