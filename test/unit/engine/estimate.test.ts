import { describe, expect, it } from 'vitest';
import { canEstimate } from '../../../src/engine/estimate.js';
import { openSession } from '../../helpers/session.js';
import { shippedBundle } from '../../helpers/shipped.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('canEstimate', () => {
  it('estimates only when some running job gives an expected end', () => {
    expect(canEstimate(twoTeams().policy)).toBe(false);
    expect(canEstimate(openSession(shippedBundle('when-will-it-start')).policy)).toBe(true);
  });

  it('cannot estimate without a snapshot', () => {
    expect(canEstimate({ ...twoTeams().policy, cluster: undefined })).toBe(false);
  });
});
