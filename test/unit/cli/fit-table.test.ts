/**
 * Tables fit the terminal by wrapping their widest columns, never by cutting a cell;
 * long placements are summarised with their totals (issue 7 item 9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fitTable, terminalWidth, wrapWords } from '../../../src/cli/fit-table.js';
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
    const t = fitTable(['rule', 'source'], [['Quota1/childPreemption', SOURCE]], 200).text;
    expect(t.split('\n')).toHaveLength(5);
    expect(column(t, 1)).toBe(SOURCE);
  });

  it('fits a width by wrapping the widest column, losing no character', () => {
    for (const width of [60, 80, 100]) {
      const t = fitTable(['victim', 'GPUs', 'rule', 'source'], [['train-b-llm', 32, 'Quota1/childPreemption', SOURCE]], width).text;
      for (const line of t.split('\n')) expect(visible(line).length, `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(column(t, 3)).toBe(SOURCE);
      expect(column(t, 2)).toBe('Quota1/childPreemption');
      expect(column(t, 0)).toBe('train-b-llm');
    }
  });
});

describe('wrapWords', () => {
  const SENTENCE = 'in quota: Quota1.1 guarantees 48 GPUs and its jobs use 40 GPUs; the job needs 16 GPUs';

  it('breaks lines at spaces only, when every word fits the width', () => {
    for (const max of [10, 12, 20, 33]) {
      const lines = wrapWords(SENTENCE, max);
      for (const l of lines) expect(l.length, `${max}: "${l}"`).toBeLessThanOrEqual(max);
      // Every word is whole on some line, and the lines joined by spaces are the text again.
      expect(lines.flatMap((l) => l.split(' '))).toEqual(SENTENCE.split(' '));
      expect(lines.join(' ')).toBe(SENTENCE);
    }
  });

  it('breaks only a word longer than the width: after a / or - in its second half, else at the edge', () => {
    const lines = wrapWords('see policies/inference-preempts-training/quotas.yaml:14:9', 20);
    expect(lines[0]).toBe('see');
    expect(lines[1]).toBe('policies/inference-');
    expect(lines.slice(1).join('')).toBe('policies/inference-preempts-training/quotas.yaml:14:9');
    expect(wrapWords('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it("keeps the cell's own line breaks", () => {
    expect(wrapWords('a b\nc d', 10)).toEqual(['a b', 'c d']);
  });
});

describe('fitTable keeps words whole', () => {
  const head = ['question', 'job', 'why'];
  const rows = [['whatif team-b-needs-16', 'Quota1.1/workspace-b DLC p5 2×8', 'in quota: Quota1.1 guarantees 48 GPUs and its jobs use 40 GPUs; the job needs 16 GPUs, 8 GPUs over']];
  /** The table's lines of text, borders removed. */
  const texts = (t: string) => t.split('\n').flatMap((l) => l.split('│').map((c) => c.trim()));

  it('wraps at spaces when narrowing to the longest words is enough', () => {
    for (const width of [60, 80, 120]) {
      const t = fitTable(head, rows, width).text;
      for (const line of t.split('\n')) expect(line.length, `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      // Each word of each cell is whole on one line: nothing broken mid-word.
      const words = new Set(texts(t).flatMap((c) => c.split(' ')));
      for (const w of rows[0]!.flatMap((c) => c.split(' '))) expect(words.has(w), `width ${width}: "${w}" broken`).toBe(true);
    }
  });

  it('never breaks the first column: a table that cannot fit without it is printed as records, every cell whole', () => {
    const t = fitTable(head, rows, 40, '').text;
    expect(t).not.toMatch(/│/);
    for (const line of t.split('\n')) expect(line.length, line).toBeLessThanOrEqual(40);
    expect(t.split('\n')[0]).toBe('whatif team-b-needs-16');
    expect(t.split('\n')[1]).toBe('  job: Quota1.1/workspace-b DLC p5 2×8');
    // The why pair is wider than a line: it wraps on lines of its own, continued two further in.
    const why = t.split('\n').slice(2);
    expect(why[0]).toMatch(/^ {2}why: /);
    for (const l of why.slice(1)) expect(l).toMatch(/^ {4}\S/);
    expect(why.map((l) => l.trim()).join(' ')).toBe(`why: ${rows[0]![2]}`);
  });

  it('packs the short cells of a record onto shared lines, each as `key: value`, none split', () => {
    const wide = ['victim', 'quota', 'prio', 'module', 'standing', 'GPUs', 'lost GPU-h', 'rule', 'source'];
    const victim = ['dsw-c-finetune', 'Quota1.2', '3', 'DSW', 'in-quota', '24', '6', 'Quota1/childPreemption', 'policies/inference-preempts-training/quotas.yaml:14:9'];
    const t = fitTable(wide, [victim, victim], 80).text;
    expect(t).not.toMatch(/│/);
    const lines = t.split('\n');
    expect(lines).toHaveLength(2 * 4);
    expect(lines[0]).toBe('  dsw-c-finetune');
    expect(lines[1]).toBe('    quota: Quota1.2 · prio: 3 · module: DSW · standing: in-quota · GPUs: 24');
    expect(lines[2]).toBe('    lost GPU-h: 6 · rule: Quota1/childPreemption');
    expect(lines[3]).toBe('    source: policies/inference-preempts-training/quotas.yaml:14:9');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
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
    expect(renderAnswer(answer, 100).text).toContain('+14 more node(s)');
  });
});
