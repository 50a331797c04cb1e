import { describe, expect, it } from 'vitest';
import { noteAssignedIndices } from '../../../src/engine/assigned-indices.js';
import { codesOf } from '../../helpers/codes.js';
import { clusterDoc, jobEntry, jobsBlock, nodeGroupLine, policyText, quotaEntry, quotaTreeDoc, workspaceDoc } from '../../helpers/policy-yaml.js';
import { openSession } from '../../helpers/session.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('noteAssignedIndices', () => {
  it("leaves an answer alone when every running job's GPU indices were given", async () => {
    const s = twoTeams();
    const a = await s.answerJob('q', submit('A', 7));
    expect(noteAssignedIndices(a, s.snapshot!)).toBe(a);
  });

  it('adds a coded reason, and a note on each victim whose indices Quotient assigned', async () => {
    const s = openSession(
      policyText(
        quotaTreeDoc(quotaEntry('A', 8, { root: true, more: 'selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }' })),
        workspaceDoc(['A']),
        clusterDoc(nodeGroupLine(1) + jobsBlock(jobEntry('counted', 'A', 2, 8, 'placement: [ { node: n-0, gpuCount: 8 } ]'))),
      ),
    );
    const a = await s.answerJob('q', submit('A', 7));
    expect(codesOf(a.reasons)).toContain('placement/indices-assigned');
    expect(a.victims.map((v) => v.job)).toEqual(['counted']);
    // The text is the behaviour here: the victim's sentence says its indices were Quotient's guess.
    expect(a.victims[0]!.reason).toContain('its GPU indices were assigned by Quotient');
  });
});
