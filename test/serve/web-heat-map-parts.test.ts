/**
 * The heat map's arithmetic and marks, in Node (no browser): every node gets a cell inside
 * the width, the hit test finds the node drawn at a point, the arrow keys walk the grid,
 * and a what-if answer marks its visible victims by name and its hidden victims only
 * where the job would be placed, never another team's job elsewhere.
 */
import { describe, expect, it } from 'vitest';
import type { NodeEntry, NodeJob, WhatIfAnswer } from '../../src/web/api-types.js';
import { cellOrigin, layoutHeatMap, moveFrom, nodeAt } from '../../src/web/heat-map-layout.js';
import { marksOf } from '../../src/web/heat-map-marks.js';
import { ranges } from '../../src/web/format.js';

describe('layoutHeatMap', () => {
  it.each([
    [1, 8, 600],
    [16, 8, 760],
    [1_000, 8, 900],
    [10_000, 8, 900],
    [10_000, 8, 320],
    [500, 16, 700],
    [7, 1, 60],
  ])('fits %i nodes of %i GPUs in %i px, each at its own cell, and finds each node at its cell', (count, gpus, width) => {
    const l = layoutHeatMap({ count, maxGpus: gpus, width });
    expect(l.slotCols * l.slotRows).toBeGreaterThanOrEqual(gpus);
    expect(l.cols * l.rows).toBeGreaterThanOrEqual(count);
    expect(l.cols * (l.cellWidth + l.gap) - l.gap).toBeLessThanOrEqual(l.width);
    let checked = 0;
    for (let i = 0; i < count; i += Math.max(1, Math.floor(count / 500))) {
      const { x, y } = cellOrigin(l, i);
      expect(x + l.cellWidth).toBeLessThanOrEqual(l.width);
      expect(y + l.cellHeight).toBeLessThanOrEqual(l.height);
      // Every pixel of the cell, corners included, hits this node.
      expect([nodeAt(l, x, y), nodeAt(l, x + l.cellWidth - 0.01, y + l.cellHeight - 0.01)]).toEqual([i, i]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(Math.min(count, 400));
    expect(nodeAt(l, -1, 0)).toBe(-1);
    expect(nodeAt(l, l.width + 50, 0)).toBe(-1);
  });

  it('keeps 10,000 8-GPU nodes in about the height asked, with at least a pixel a GPU', () => {
    const l = layoutHeatMap({ count: 10_000, maxGpus: 8, width: 900 });
    expect(l.slot).toBeGreaterThanOrEqual(1);
    expect(l.height).toBeLessThanOrEqual(700);
  });

  it('finds nothing past the last node of a partial last row', () => {
    const l = layoutHeatMap({ count: 5, maxGpus: 8, width: 200 });
    expect(l.rows).toBeGreaterThan(1);
    const { y } = cellOrigin(l, 4);
    expect(nodeAt(l, l.width - 1, y + 1)).toBe(-1);
  });
});

describe('moveFrom (arrow keys on the heat map)', () => {
  const l = layoutHeatMap({ count: 25, maxGpus: 8, width: 300 });
  it('moves by one across, by a row down and up, to the ends with Home and End, and stops at the edges', () => {
    expect(moveFrom(l, 0, 'ArrowRight')).toBe(1);
    expect(moveFrom(l, 0, 'ArrowLeft')).toBe(0);
    expect(moveFrom(l, 0, 'ArrowDown')).toBe(l.cols);
    expect(moveFrom(l, l.cols, 'ArrowUp')).toBe(0);
    expect(moveFrom(l, 0, 'ArrowUp')).toBe(0);
    expect(moveFrom(l, 24, 'ArrowRight')).toBe(24);
    expect(moveFrom(l, 24, 'ArrowDown')).toBe(24);
    expect(moveFrom(l, 7, 'Home')).toBe(0);
    expect(moveFrom(l, 7, 'End')).toBe(24);
    expect(moveFrom(l, 7, 'x')).toBe(7);
  });
});

const job = (j: Partial<NodeJob> & { job: string; indices: number[] }): NodeJob => ({
  workspace: 'ws-a',
  quota: 'qa',
  standing: 'in-quota',
  priorityBand: 'low (1-3)',
  pods: 1,
  gpus: j.indices.length,
  ...j,
});
const node = (name: string, jobs: NodeJob[]): NodeEntry => ({ name, pool: 'p', gpus: 8, used: 8, free: 0, shared: 0, cordoned: false, standing: { 'in-quota': 8, borrowing: 0, idle: 0 }, jobs });
const answer = (a: Partial<WhatIfAnswer>): WhatIfAnswer => ({
  policy: 'p',
  query: 'submit',
  job: 'submitted-job',
  quota: 'q',
  decision: 'preempt',
  standing: 'in-quota',
  placement: [],
  victims: [],
  reasons: [],
  notes: [],
  lostGpuHours: 0,
  ...a,
});
const victim = { quota: 'qb', standing: 'in-quota' as const, gpus: 4, rule: 'Q/childPreemption', source: 'q.yaml:1:1', code: 'victim/child-preemption', reason: 'r' };

describe('marksOf (a what-if answer on the heat map)', () => {
  const nodes = [
    node('n0', [job({ job: 'train', workspace: 'ws-b', quota: 'qb', indices: [0, 1, 2, 3] }), job({ job: '(hidden: ws-c)', hidden: true, workspace: 'ws-c', quota: 'qc', indices: [4, 5, 6, 7] })]),
    node('n1', [job({ job: 'train', workspace: 'ws-b', quota: 'qb', indices: [0, 1, 2, 3] })]),
    node('n2', [job({ job: '(hidden: ws-c)', hidden: true, workspace: 'ws-c', quota: 'qc', indices: [0, 1] })]),
  ];

  it('marks a visible victim by name on every node it runs on, and the placement nodes', () => {
    const m = marksOf(nodes, answer({ placement: [{ pod: 0, node: 'n0', gpus: [0, 1, 2, 3] }], victims: [{ ...victim, job: 'train' }] }));
    expect([...m.placement]).toEqual([0]);
    expect([...m.victims.entries()].map(([i, g]) => [i, [...g]])).toEqual([
      [0, [0, 1, 2, 3]],
      [1, [0, 1, 2, 3]],
    ]);
  });

  it('marks a hidden victim only on the nodes the job would be placed on, matched by workspace, quota, standing and band', () => {
    const hidden = { ...victim, job: '(hidden: ws-c)', hidden: true as const, workspace: 'ws-c', quota: 'qc', priorityBand: 'low (1-3)' };
    const m = marksOf(nodes, answer({ placement: [{ pod: 0, node: 'n0', gpus: [4, 5, 6, 7] }], victims: [hidden] }));
    expect([...m.victims.entries()].map(([i, g]) => [i, [...g]])).toEqual([[0, [4, 5, 6, 7]]]);
    // Another band is another job: nothing marked.
    expect(marksOf(nodes, answer({ placement: [{ pod: 0, node: 'n0', gpus: [4] }], victims: [{ ...hidden, priorityBand: 'high (7-9)' }] })).victims.size).toBe(0);
  });

  it('marks nothing without an answer or for an answer that places nothing', () => {
    expect(marksOf(nodes, undefined).victims.size + marksOf(nodes, undefined).placement.size).toBe(0);
    expect(marksOf(nodes, answer({ decision: 'wait' })).placement.size).toBe(0);
  });
});

describe('ranges', () => {
  it('writes GPU indices as ranges', () => {
    expect(ranges([0, 1, 2, 3, 6, 8, 9])).toBe('0-3, 6, 8-9');
    expect(ranges([5, 5, 4])).toBe('4-5');
    expect(ranges([])).toBe('');
  });
});
