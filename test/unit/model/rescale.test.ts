import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_PARAMETERS, type Quota, type RunningJob } from '../../../src/model/policy.js';
import { rescaleStandings } from '../../../src/model/rescale.js';

const src = { file: 't.yaml', line: 1, column: 1, path: '' };
const quota = (name: string, parent: string | null, gpu: number, children: string[] = []): Quota => ({
  name,
  parent,
  children,
  min: { gpu },
  queueStrategy: 'fifo',
  queue: DEFAULT_QUEUE_PARAMETERS,
  reclaim: 'any',
  pool: 'p',
  src,
  reclaimSrc: src,
});
const job = (name: string, q: string, priority: number, startedAt: number): RunningJob => ({
  name,
  workspace: 'ws',
  quota: q,
  module: 'DLC',
  priority,
  pods: 1,
  resources: { gpu: 8 },
  idleResources: 'none',
  standing: 'in-quota',
  startedAt,
  placement: [],
  placedByEngine: false,
  src,
});

describe('rescaleStandings', () => {
  const quotas = [quota('Root', null, 32, ['A', 'B']), quota('A', 'Root', 16), quota('B', 'Root', 16)];

  it('turns the newest lowest-priority job borrowing when a quota shrinks below its usage', () => {
    const jobs = [job('old-low', 'A', 1, 1000), job('new-low', 'A', 1, 2000)];
    const r = rescaleStandings(
      quotas,
      jobs,
      new Map([
        ['A', 8],
        ['B', 24],
      ]),
    );
    expect(r.changes.map((c) => [c.job.name, c.from, c.to])).toEqual([['new-low', 'in-quota', 'borrowing']]);
    expect(r.usage[1]).toBe(8);
    expect(r.over).toEqual([]);
  });

  it('breaks ties by name in code-unit order, the same on every machine whatever its locale', () => {
    // Equal priority and start: the tie-break decides. 'z' (U+007A) sorts before 'ä' (U+00E4)
    // by code unit, while many locales put "ä" first.
    const jobs = [job('ä-job', 'A', 1, 1000), job('z-job', 'A', 1, 1000)];
    const r = rescaleStandings(
      quotas,
      jobs,
      new Map([
        ['A', 8],
        ['B', 24],
      ]),
    );
    expect(r.changes.map((c) => c.job.name)).toEqual(['z-job']);
  });

  it('takes borrowers back in quota, most important first, when a quota grows', () => {
    const borrowing = (j: RunningJob): RunningJob => ({ ...j, standing: 'borrowing' });
    const small = [quota('Root', null, 32, ['A', 'B']), quota('A', 'Root', 8), quota('B', 'Root', 24)];
    const jobs = [borrowing(job('b1', 'A', 3, 1000)), borrowing(job('b2', 'A', 7, 1000)), job('base', 'A', 5, 1000)];
    // A grows 8 → 16: room for one more 8-GPU job in quota: the priority-7 borrower.
    const r = rescaleStandings(
      small,
      jobs,
      new Map([
        ['A', 16],
        ['B', 16],
      ]),
    );
    expect(r.changes.map((c) => [c.job.name, c.to])).toEqual([['b2', 'in-quota']]);
  });

  it('turns only as many jobs borrowing as the shrink needs: a later, larger job makes the earlier small ones needless', () => {
    const sized = (j: RunningJob, gpu: number): RunningJob => ({ ...j, resources: { gpu } });
    // A (min 16) runs big (8 GPUs, oldest) and two newer 1-GPU jobs: 10 GPUs. Shrunk to 2
    // it is 8 over.
    const jobs = [sized(job('big', 'A', 1, 1000), 8), sized(job('small-1', 'A', 1, 3000), 1), sized(job('small-2', 'A', 1, 2000), 1)];
    const r = rescaleStandings(
      quotas,
      jobs,
      new Map([
        ['A', 2],
        ['B', 30],
      ]),
    );
    // Greedy takes small-1, small-2 (still 8 over), then big; the reprieve returns both
    // small jobs: big alone brings A to 2.
    expect(r.changes.map((c) => [c.job.name, c.to])).toEqual([['big', 'borrowing']]);
    expect(r.usage[1]).toBe(2);
  });

  it('returns borrowers in quota wherever a changed min has room, also one that shrinks', () => {
    const small = [quota('Root', null, 32, ['A', 'B']), quota('A', 'Root', 24), quota('B', 'Root', 8)];
    const jobs = [{ ...job('b1', 'A', 3, 1000), standing: 'borrowing' as const }, job('base', 'A', 5, 1000)];
    // A shrinks 24 → 16: base (8) in quota leaves room for the 8-GPU borrower.
    const r = rescaleStandings(
      small,
      jobs,
      new Map([
        ['A', 16],
        ['B', 16],
      ]),
    );
    expect(r.changes.map((c) => [c.job.name, c.to])).toEqual([['b1', 'in-quota']]);
    // An unchanged min takes no one back.
    expect(rescaleStandings(small, jobs, new Map([['A', 24]])).changes).toEqual([]);
  });
});
