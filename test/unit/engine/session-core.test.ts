/**
 * engine/session-core.ts: `SessionCore.load` (the async open check and whatif use, which
 * asks the compiled-policy cache before importing the loader) opens exactly what the
 * synchronous `Session.open` opens, cold and warm, and stops on the same findings.
 */
import { describe, expect, it } from 'vitest';
import { PolicyCache } from '../../../src/engine/policy-cache.js';
import { SessionCore } from '../../../src/engine/session-core.js';
import { Session } from '../../../src/engine/session.js';
import { shippedBundle } from '../../helpers/shipped.js';
import { tempDirs } from '../../helpers/temp-dirs.js';
import { TWO_TEAMS } from '../../helpers/two-teams.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const tempDir = tempDirs('quotient-session-core-test-');

describe('SessionCore.load', () => {
  it('opens a policy as Session.open does, cold and from the cache, with the same answers', async () => {
    const files = shippedBundle('inference-preempts-training');
    const open = Session.open(files, { now: NOW, backend: 'reference', cache: false });
    const cache = new PolicyCache(tempDir());
    for (const expectHit of [false, true]) {
      const loaded = await SessionCore.load(files, { now: NOW, backend: 'reference', cache });
      expect(loaded.findings).toEqual(open.findings);
      expect(JSON.stringify(loaded.session!.policy)).toBe(JSON.stringify(open.session!.policy));
      for (const w of open.session!.policy.whatIfs) expect(await loaded.session!.answerJob(w.name, w.submit)).toEqual(await open.session!.answerJob(w.name, w.submit));
      expect(cache.stats.hits).toBe(expectHit ? 1 : 0);
    }
  });

  it('gives the findings that stop a policy, and no session', async () => {
    const bad = [{ path: 't.yaml', text: TWO_TEAMS.replace('priority: 2', 'priority: 12') }];
    const loaded = await SessionCore.load(bad, { now: 0, cache: false });
    expect(loaded.session).toBeUndefined();
    expect(loaded.findings.map((f) => f.code)).toEqual(['policy/priority-out-of-range']);
  });
});
