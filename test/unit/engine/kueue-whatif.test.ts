/** A what-if on a Kueue-rules tree (SEMANTICS 12): Kueue's flavor, Kueue's victims, the kernel's placement on the flavor's nodes. */
import { describe, expect, it } from 'vitest';
import { decideKueue, kueueStateOf } from '../../../src/engine/kueue-whatif.js';
import { answerWhatIf } from '../../../src/engine/whatif.js';
import type { JobSpec } from '../../../src/model/policy.js';
import { codesOf } from '../../helpers/codes.js';
import { KUEUE_POLICY } from '../../helpers/kueue-policy.js';
import { openSession } from '../../helpers/session.js';

const job = (quota: string, priority: number, gpu: number, pods = 1): JobSpec => ({
  name: 'new',
  workspace: 'ws',
  quota,
  module: 'DLC',
  priority,
  pods,
  resources: { gpu },
  idleResources: 'none',
  src: { file: 'test', line: 1, column: 1, path: '' },
});

describe('decideKueue', () => {
  const s = openSession(KUEUE_POLICY);
  const snap = s.snapshot!;

  it('admits on the flavor Kueue assigns and places every pod on its nodes', async () => {
    // A's a100 has room for 4 (Fit); the pods are 2 × 2 GPUs and go only on a100 nodes.
    const a = await answerWhatIf({ snapshot: snap, tables: s.tables }, 'q', job('A', 1, 2, 2));
    expect(a).toMatchObject({ decision: 'admit', standing: 'in-quota', victims: [] });
    expect(a.placement.every((p) => p.node.startsWith('a-'))).toBe(true);
    expect(codesOf(a.reasons)).toEqual(['kueue/unmatched-node', 'kueue/flavor-assigned', 'kueue/fits']);
  });

  it("waits with Kueue's words when no flavor can hold the job", () => {
    const a = decideKueue(snap, 'q', job('B', 1, 64), []);
    expect(a.decision).toBe('wait');
    expect(codesOf(a.reasons)).toEqual(['kueue/unmatched-node', 'kueue/flavor-assigned', 'kueue/pending']);
  });

  it('refuses a submission to a Cohort', () => {
    expect(decideKueue(snap, 'q', job('org', 1, 1), [])).toMatchObject({ decision: 'reject', reasons: [{ code: 'kueue/not-a-cluster-queue' }] });
  });

  it('builds the state once per snapshot state and never changes the kernel state', () => {
    expect(kueueStateOf(snap, snap.policy.pools[0]!)).toBe(kueueStateOf(snap, snap.policy.pools[0]!));
    const before = JSON.stringify(snap.state);
    decideKueue(snap, 'q', job('A', 1, 8, 2), []);
    expect(JSON.stringify(snap.state)).toBe(before);
  });
});
