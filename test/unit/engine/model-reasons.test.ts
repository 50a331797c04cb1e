import { describe, expect, it } from 'vitest';
import { modelRefusal, noteModelBlock } from '../../../src/engine/model-reasons.js';
import { codesOf } from '../../helpers/codes.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('GPU model reasons', () => {
  const s = twoTeams();
  const snap = s.snapshot!;

  it("refuses a model no schedulable node of the pool has, naming the pool's models", () => {
    expect(modelRefusal(snap, submit('A', 7), 'p')).toBeUndefined();
    // The text is the behaviour here: it names the model asked for and the ones the pool has.
    expect(modelRefusal(snap, submit('A', 7, 8, { gpuModels: ['H100'] }), 'p')).toBe(
      'the GPU model blocks it: the job asks for H100, and no schedulable node of pool "p" has it (its nodes have (no model))',
    );
  });

  it('adds nothing to an answer that did not wait or was not held back by the model', async () => {
    const admitted = await s.answerJob('q', submit('A', 7));
    expect(noteModelBlock(admitted, snap, { ...submit('A', 7), gpuModels: ['H100'] })).toBe(admitted);
    const waits = await s.answerJob('q', submit('B', 5));
    expect(codesOf(noteModelBlock(waits, snap, submit('B', 5)).reasons)).toEqual(codesOf(waits.reasons));
  });
});
