import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../../src/engine/answer-snapshot.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('snapshotOf', () => {
  it("says nothing when the policy's own files hold its Cluster", () => {
    expect(snapshotOf(twoTeams().policy)).toBeUndefined();
  });

  it('names the Cluster, its time and the files beside the folder that hold it, and what it replaced', () => {
    const policy = { ...twoTeams().policy, snapshotFrom: { files: ['live.yaml'], replaced: ['policies/x/cluster.yaml'] } };
    expect(snapshotOf(policy)).toEqual({ name: 'c', at: '2026-11-20T12:00:00.000Z', files: ['live.yaml'], replaced: ['policies/x/cluster.yaml'] });
  });
});
