import { describe, expect, it } from 'vitest';
import { bindingOverruns, computeUsage, neverFits, overruns, type Overrun } from '../../../src/engine/usage.js';
import { twoTeams } from '../../helpers/two-teams.js';

const gpus = (n: number) => ({ gpu: n, cpu: 0, memory: 0 });

describe('usage', () => {
  const s = twoTeams();
  const tree = s.tree;
  const [root, a, b] = ['Root', 'A', 'B'].map((n) => tree.indexOf(n)) as [number, number, number];

  it('counts each in-quota job at its quota and every ancestor', () => {
    const usage = computeUsage(tree, s.snapshot!.jobs);
    expect([usage[root]![0], usage[a]![0], usage[b]![0]]).toEqual([16, 8, 8]);
  });

  it('finds an in-quota job over its quota and its ancestors, from the quota up', () => {
    const over = overruns(tree, s.snapshot!.usage, a, gpus(4), 'in-quota');
    expect(over.map((o) => [tree.at(o.quota).name, o.deficit])).toEqual([
      ['A', 4],
      ['Root', 4],
    ]);
  });

  it("skips the job's own quota when it borrows", () => {
    expect(overruns(tree, s.snapshot!.usage, a, gpus(4), 'borrowing').map((o) => tree.at(o.quota).name)).toEqual(['Root']);
  });

  it('says never when the job alone is more than a guarantee', () => {
    expect(neverFits(tree, a, gpus(8), 'in-quota')).toEqual([]);
    expect(neverFits(tree, a, gpus(9), 'in-quota').map((o) => tree.at(o.quota).name)).toEqual(['A']);
  });

  it('keeps only the overruns a lower one does not already imply', () => {
    const o = (quota: number, resource: number, deficit: number): Overrun => ({ quota, resource, kind: 'min', deficit, used: 0, limit: 0, need: 0 });
    expect(bindingOverruns([o(a, 0, 4), o(root, 0, 4), o(root, 1, 2)])).toEqual([o(a, 0, 4), o(root, 1, 2)]);
    expect(bindingOverruns([o(a, 0, 2), o(root, 0, 6)])).toEqual([o(a, 0, 2), o(root, 0, 6)]);
  });
});
