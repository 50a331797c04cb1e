/**
 * The tester finds broken promises: for each shipped promise, an edit of its policy
 * that breaks it must be caught within the default number of runs. The edits are
 * small and sit on rule boundaries (a priority range one wider or narrower, a guarantee
 * gone), the places generated states must reach (promise-states.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';
import { checkPromise, DEFAULT_RUNS } from '../../../src/verify/check-promise.js';

function policy(folder: string): InputFile[] {
  const dir = join('policies', folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}

/** Replaces `from` (which must occur exactly once) in the file named `file`. */
function mutate(files: InputFile[], file: string, from: string, to: string): InputFile[] {
  return files.map((f) => {
    if (!f.path.endsWith(file)) return f;
    expect(f.text.split(from).length, `"${from}" occurs once in ${f.path}`).toBe(2);
    return { ...f, text: f.text.replace(from, to) };
  });
}

const MUTATIONS: Array<{ promise: string; folder: string; edit: string; apply: (f: InputFile[]) => InputFile[] }> = [
  {
    promise: 'team-a-service-always-runs',
    folder: 'inference-preempts-training',
    edit: 'childPreemption reaches 1-2 instead of 1-3',
    apply: (f) => mutate(f, 'quotas.yaml', 'preemptiblePriority: 1-3', 'preemptiblePriority: 1-2'),
  },
  // The snapshot, kept in every state, fills Quota1.1 with a priority-2 job (always the
  // cheaper victim) and a priority-5 one: only a clause that spares priority 2 and
  // reaches 5 can break it, as an inverted range does.
  {
    promise: 'team-b-important-training-safe',
    folder: 'inference-preempts-training',
    edit: 'childPreemption reaches 4-9 instead of 1-3 (an inverted range)',
    apply: (f) => mutate(f, 'quotas.yaml', 'preemptiblePriority: 1-3', 'preemptiblePriority: 4-9'),
  },
  { promise: 'priority-5-and-up-safe-in-quota', folder: 'self-level-preemption', edit: 'lowPriority 4-5 instead of 4', apply: (f) => mutate(f, 'quotas.yaml', 'lowPriority: 4', 'lowPriority: 4-5') },
  {
    promise: 'inference-never-preempted',
    folder: 'self-level-preemption',
    edit: 'QuotaB gets a self-level clause over every module',
    apply: (f) => mutate(f, 'quotas.yaml', '          reclaim: any', '          reclaim: any\n          selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC, DSW, EAS] }'),
  },
  {
    promise: 'team-y-guarantee-is-real',
    folder: 'idle-resources',
    edit: 'TeamY guaranteed 0 GPUs instead of 16',
    apply: (f) => mutate(f, 'quotas.yaml', '- name: TeamY\n          min: { gpu: 16 }', '- name: TeamY\n          min: { gpu: 0 }'),
  },
];

describe(`a broken promise is caught within the default ${DEFAULT_RUNS} runs`, { timeout: 240_000 }, () => {
  for (const m of MUTATIONS) {
    it(`${m.promise}, after: ${m.edit}`, async () => {
      const files = m.apply(policy(m.folder));
      const { session, findings } = Session.open(files);
      if (!session) throw new Error(`the mutated policy does not load: ${findings.map((x) => x.message).join('; ')}`);
      const promise = session.policy.promises.find((p) => p.name === m.promise);
      if (!promise) throw new Error(`no promise ${m.promise}`);
      const r = await checkPromise(session, files, promise, { runs: DEFAULT_RUNS, seed: 42 });
      expect(r.status, `held over ${r.runs} runs: ${JSON.stringify(r.coverage)}`).toBe('broken');
      expect(r.counterexample?.replayed).toBe(true);
    });
  }

  it('covers every shipped promise but one that no policy edit can break', () => {
    const shipped = readdirSync('policies').flatMap((d) => {
      const { session } = Session.open(policy(d));
      return session?.policy.promises.map((p) => p.name) ?? [];
    });
    // only-idle-never-counts states the semantics itself (SEMANTICS 4: an only-idle job
    // runs idle or not at all and preempts nobody); no quota, clause or workspace edit
    // changes that, so no policy mutation can break it.
    expect(shipped.filter((p) => !MUTATIONS.some((m) => m.promise === p)).sort()).toEqual(['only-idle-never-counts']);
  });
});
