/**
 * Tables fit the terminal by wrapping their widest columns, never by cutting a cell;
 * long placements are summarised with their totals (issue 7 item 9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fitTable, terminalWidth } from '../../../src/cli/fit-table.js';
import { formatPlacement, renderAnswer } from '../../../src/cli/render-answer.js';
import type { Answer } from '../../../src/engine/answer.js';

const SOURCE = 'policies/a-rather-long-folder-name/of-a-team/quotas.yaml:14:9';
const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex -- stripping our own colours

/** The text of one column of a fitted table's body, its wrapped lines joined. */
function column(table: string, index: number): string {
  const body = table
    .split('\n')
    .filter((l) => l.includes('│'))
    .slice(1);
  return body.map((l) => l.split('│')[index + 1]!.trim()).join('');
}

describe('fitTable', () => {
  it('keeps natural widths when they fit', () => {
    const t = fitTable(['rule', 'source'], [['Quota1/childPreemption', SOURCE]], 200);
    expect(t.split('\n')).toHaveLength(5);
    expect(column(t, 1)).toBe(SOURCE);
  });

  it('fits a width by wrapping the widest column, losing no character', () => {
    for (const width of [60, 80, 100]) {
      const t = fitTable(['victim', 'GPUs', 'rule', 'source'], [['train-b-llm', 32, 'Quota1/childPreemption', SOURCE]], width);
      for (const line of t.split('\n')) expect(visible(line).length, `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(column(t, 3)).toBe(SOURCE);
      expect(column(t, 2)).toBe('Quota1/childPreemption');
      expect(column(t, 0)).toBe('train-b-llm');
    }
  });
});

describe('terminalWidth', () => {
  const saved = process.env.COLUMNS;
  afterEach(() => (saved === undefined ? delete process.env.COLUMNS : (process.env.COLUMNS = saved)));
  it('is COLUMNS when stdout is not a terminal, else a default of 120', () => {
    if (process.stdout.isTTY) return; // under vitest stdout is a pipe; the TTY case reads process.stdout.columns
    process.env.COLUMNS = '93';
    expect(terminalWidth()).toBe(93);
    process.env.COLUMNS = 'wide';
    expect(terminalWidth()).toBe(120);
  });
});

describe('placements', () => {
  const pods = (nodes: number, perNode: number) =>
    Array.from({ length: nodes * perNode }, (_, i) => ({ pod: i, node: `node-${Math.floor(i / perNode) + 1}`, gpus: [0, 1, 2, 3].map((g) => g + 4 * (i % perNode)) }));

  it('lists a short placement node by node', () => {
    expect(formatPlacement(pods(3, 2))).toBe('node-1[0-3 4-7], node-2[0-3 4-7], node-3[0-3 4-7]');
  });

  it('summarises a long one: the first nodes, how many more, and the totals', () => {
    const line = formatPlacement(pods(20, 2));
    expect(line).toBe(
      'node-1[0-3 4-7], node-2[0-3 4-7], node-3[0-3 4-7], node-4[0-3 4-7], node-5[0-3 4-7], node-6[0-3 4-7] +14 more node(s) (20 nodes, 40 pods, 160 GPUs in all; --json lists every pod)',
    );
    const answer: Answer = { query: 'q', job: 'j', quota: 'Q', decision: 'admit', standing: 'in-quota', placement: pods(20, 2), victims: [], lostGpuHours: 0, reasons: [], notes: [] };
    expect(renderAnswer(answer, 100)).toContain('+14 more node(s)');
  });
});
