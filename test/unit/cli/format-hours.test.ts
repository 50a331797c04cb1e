/** cli/render-html.ts formatHours: durations people read in the HTML report, minutes kept under a day. */
import { describe, expect, it } from 'vitest';
import { formatHours } from '../../../src/cli/render-html.js';

describe('formatHours', () => {
  it.each([
    [0, '0'],
    [0.001, '<1m'],
    [0.75, '45m'],
    [1, '1h'],
    [1.28, '1h 17m'],
    [5.31, '5h 19m'],
    [23.99, '23h 59m'],
    [24, '1d'],
    [76, '3d 4h'],
    [24 * 400 + 5, '400d 5h'],
  ])('%d h reads %s', (h, text) => {
    expect(formatHours(h)).toBe(text);
  });
});
