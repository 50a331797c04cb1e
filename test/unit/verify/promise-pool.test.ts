import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { checkPromise } from '../../../src/verify/check-promise.js';
import { checkPromisesInWorkers } from '../../../src/verify/promise-pool.js';

describe('checkPromisesInWorkers', () => {
  it('gives the same results on worker threads as on the calling thread, per policy and in order', async () => {
    const bundles = readBundles(['policies/', 'docs/examples/broken-promise']);
    const options = { runs: 300, seed: 7, backend: 'wasm' as const };
    const jobs = bundles.map((b) => {
      const { session } = Session.open(b.files);
      return { key: b.label, files: b.files, promises: session!.policy.promises.map((p) => p.name), session: session! };
    });
    const inWorkers = await checkPromisesInWorkers(
      jobs.map(({ key, files, promises }) => ({ key, files, promises })),
      { ...options, workers: 2 },
    );
    const inThread = await Promise.all(jobs.map(async (j) => Promise.all(j.session.policy.promises.map((p) => checkPromise(j.session, j.files, p, options)))));
    expect(inWorkers).toEqual(inThread);
    expect(inWorkers.flat().some((r) => r.status === 'broken')).toBe(true);
    // 300 runs of every shipped promise, twice: minutes on a loaded 2-core machine.
  }, 240_000);
});
