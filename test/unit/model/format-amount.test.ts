/**
 * One way to say an amount of a resource, in every finding and answer sentence
 * (model/resources.ts `formatAmount`): a GPU count agrees in number, cpu is written as a
 * policy writes it (cores or millicores) with its name, memory with its unit.
 */
import { describe, expect, it } from 'vitest';
import { formatAmount } from '../../../src/model/resources.js';

describe('formatAmount', () => {
  it('says GPUs in the singular for one and the plural otherwise', () => {
    expect(formatAmount('gpu', 1)).toBe('1 GPU');
    expect(formatAmount('gpu', 0)).toBe('0 GPUs');
    expect(formatAmount('gpu', 12)).toBe('12 GPUs');
  });

  it('writes cpu in cores or millicores, and memory in its largest whole unit', () => {
    expect(formatAmount('cpu', 4000)).toBe('4 cpu');
    expect(formatAmount('cpu', 500)).toBe('500m cpu');
    expect(formatAmount('memory', 64 * 1024)).toBe('64Gi');
    expect(formatAmount('memory', 1536)).toBe('1536Mi');
  });
});
