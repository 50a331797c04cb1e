/**
 * Each quota's weighted share for the views (src/engine/quota-fair-shares.ts), on
 * docs/fair-sharing.md section 3's cohort before r-pretrain arrives: research 4 of 6,
 * vision 10 of 6, nlp 4 of 6, 18 lendable. Vision's share is (10 − 6) × 1000 / 18 = 222.2,
 * which Kueue's status.fairSharing.weightedShare rounds up to 223; the others borrow
 * nothing (0, whatever their weight); the root cohort is 0.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { quotaFairShares, shareJson, shareText } from '../../../src/engine/quota-fair-shares.js';
import { quotaView } from '../../../src/engine/views/quota-view.js';

const GOLDEN = readFileSync('test/golden/kueue/fair-sharing-worked-example.yaml', 'utf8');
/** The golden case's policy and Cluster, without its WhatIf and Expect. */
const POLICY = GOLDEN.slice(0, GOLDEN.indexOf('---\napiVersion: quotient.dev/v1\nkind: WhatIf'));

function open(text: string): Session {
  const { session, findings } = Session.open([{ path: 'fs.yaml', text }], { answerMemo: false });
  if (!session) throw new Error(JSON.stringify(findings));
  return session;
}

function view(session: Session) {
  const snap = session.snapshot!;
  return quotaView({ policy: session.policy, tree: snap.tree, jobs: snap.jobs, usage: snap.usage, fairShares: quotaFairShares(snap) });
}

describe('quotaFairShares', () => {
  it("gives every quota of a fair-sharing tree Kueue's rounded weighted share and its weight", () => {
    const shares = quotaFairShares(open(POLICY).snapshot!);
    expect([...shares]).toEqual([
      ['org', { weightedShare: 0, weight: 1 }],
      ['research', { weightedShare: 0, weight: 2 }],
      ['vision', { weightedShare: 223, weight: 1 }],
      ['nlp', { weightedShare: 0, weight: 1 }],
    ]);
  });

  it('the quota view carries it as fairShare', () => {
    const v = view(open(POLICY));
    expect(v.quotas.map((q) => [q.name, q.fairShare])).toEqual([
      ['org', { weightedShare: 0, weight: 1 }],
      ['research', { weightedShare: 0, weight: 2 }],
      ['vision', { weightedShare: 223, weight: 1 }],
      ['nlp', { weightedShare: 0, weight: 1 }],
    ]);
  });

  it('a borrowing quota of weight 0 has an infinite share, written "infinite" in JSON', () => {
    const text = POLICY.replace('        - name: vision\n', '        - name: vision\n          fairSharing: { weight: 0 }\n');
    const shares = quotaFairShares(open(text).snapshot!);
    expect(shares.get('vision')).toEqual({ weightedShare: Infinity, weight: 0 });
    expect(shareJson(Infinity)).toBe('infinite');
    expect(shareText(223)).toBe('223');
    expect(view(open(text)).quotas.find((q) => q.name === 'vision')!.fairShare).toEqual({ weightedShare: 'infinite', weight: 0 });
  });

  it('a Kueue tree without spec.fairSharing has no shares: fairShare is null on each of its quotas', () => {
    const text = POLICY.replace(/ {2}fairSharing:\n {4}preemptionStrategies: \[[^\]]*\]\n/, '');
    expect(text).not.toBe(POLICY);
    const s = open(text);
    expect(quotaFairShares(s.snapshot!).size).toBe(0);
    expect(view(s).quotas.map((q) => q.fairShare)).toEqual([null, null, null, null]);
  });

  it("a PAI tree's quota view has no fairShare field at all (its output unchanged)", () => {
    const s = open(readFileSync('test/serve/fixtures/two-teams.yaml', 'utf8'));
    expect(quotaFairShares(s.snapshot!).size).toBe(0);
    for (const q of view(s).quotas) expect('fairShare' in q).toBe(false);
  });
});
