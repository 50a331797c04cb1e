import { describe, expect, it } from 'vitest';
import { assignIndices, kernelGpus, maskToIndices, podGpus, podsGpus, Snapshot } from '../../../src/engine/snapshot.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('Snapshot', () => {
  it('indexes nodes, jobs and pools and counts usage per quota', () => {
    const snap = twoTeams().snapshot!;
    expect([...snap.nodeIndex.keys()]).toEqual(['n-0', 'n-1']);
    expect(snap.job(snap.jobIndex.get('b-run')!).quota).toBe('B');
    expect(snap.poolOf('A').name).toBe('p');
    expect(snap.usage[snap.tree.indexOf('Root')]![0]).toBe(16);
    expect(snap.capacity(snap.poolIndexOf('A'))).toBe(16);
  });

  it('places a running job given no placement, and refuses one that fits nowhere', () => {
    const s = twoTeams();
    const cluster = { ...s.policy.cluster!, jobs: [...s.policy.cluster!.jobs, { ...s.policy.cluster!.jobs[0]!, name: 'homeless', placement: [] }] };
    const { findings } = Snapshot.build(s.policy, cluster, createKernel('reference'));
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['policy/unplaceable-job', 'error']]);
  });

  it('keeps a memo until the state changes', () => {
    const snap = twoTeams().snapshot!;
    let made = 0;
    snap.memo('k', () => ++made);
    expect(snap.memo('k', () => ++made)).toBe(1);
    snap.changed();
    expect(snap.memo('k', () => ++made)).toBe(2);
  });
});

describe('GPU arithmetic', () => {
  it('assigns the lowest free aligned block, else the lowest free GPUs', () => {
    expect(assignIndices(0b0001, 8, 2)).toEqual([2, 3]);
    expect(assignIndices(0b0000, 8, 3)).toEqual([0, 1, 2]);
    expect(assignIndices(0b0101_0101, 8, 2)).toEqual([1, 3]);
  });

  it('counts GPUs whole from a mask, a share by its milli, and sums shares exactly', () => {
    expect(maskToIndices(0b1010_0001)).toEqual([0, 5, 7]);
    expect(podGpus({ mask: 0b1111 })).toBe(4);
    expect(podGpus({ mask: 1, milli: 460 })).toBe(0.46);
    expect(
      podsGpus([
        { mask: 1, milli: 200 },
        { mask: 1, milli: 684 },
        { mask: 1, milli: 116 },
      ]),
    ).toBe(1);
    expect(kernelGpus({ pods: 2, resources: { gpu: 0.46 } })).toBe(920);
  });
});
