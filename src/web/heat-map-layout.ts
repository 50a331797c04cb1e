/**
 * Where each node and each of its GPUs is drawn on the heat map: a grid of node cells,
 * row by row in the API's order, each cell a small grid of GPU slots (8 GPUs: 4 × 2).
 * Pure arithmetic, so a hit test is O(1) for 10,000 nodes and the tests run it in Node.
 *
 *   x →  cell    gap
 *   ┌──┬──┬──┬──┐ ┌──┬──┬──┬──┐
 *   │0 │1 │2 │3 │ │0 │1 │2 │3 │   one node cell: slotCols × slotRows GPU slots of
 *   ├──┼──┼──┼──┤ ├──┼──┼──┼──┤   `slot` px; GPU i at column i % slotCols, row
 *   │4 │5 │6 │7 │ │4 │5 │6 │7 │   floor(i / slotCols)
 *   └──┴──┴──┴──┘ └──┴──┴──┴──┘
 */

/** The geometry of one drawing, in CSS pixels. */
export interface HeatMapLayout {
  count: number;
  /** Node cells per row, and rows. */
  cols: number;
  rows: number;
  /** GPU slots per node cell, across and down. */
  slotCols: number;
  slotRows: number;
  /** The side of a GPU slot. */
  slot: number;
  /** Space between node cells. */
  gap: number;
  cellWidth: number;
  cellHeight: number;
  width: number;
  height: number;
}

/** The options of `layoutHeatMap`. */
export interface HeatMapLayoutOptions {
  /** Nodes to draw. */
  count: number;
  /** GPUs of the largest node (its cell's slots). */
  maxGpus: number;
  /** The width available. */
  width: number;
  /** About the area the map may take, as a height for that width (it grows past it only at the smallest slot). */
  targetHeight?: number;
  /** The largest GPU slot (few nodes draw large, up to this). */
  maxSlot?: number;
}

/** Lays out `count` nodes in `width` pixels. */
export function layoutHeatMap(o: HeatMapLayoutOptions): HeatMapLayout {
  const count = Math.max(0, Math.floor(o.count));
  const gpus = Math.max(1, Math.floor(o.maxGpus));
  const width = Math.max(40, Math.floor(o.width));
  const target = o.targetHeight ?? 560;
  const slotCols = Math.ceil(Math.sqrt(gpus * 2));
  const slotRows = Math.ceil(gpus / slotCols);
  // The largest slot at which every node fits in width × target (gaps counted roughly), at least 1 px.
  const perNode = (width * target) / Math.max(1, count);
  let slot = Math.max(1, Math.min(o.maxSlot ?? 22, Math.floor(Math.sqrt(perNode / (slotCols * slotRows)) * 0.92)));
  const gapFor = (s: number): number => (s >= 8 ? 3 : s >= 3 ? 2 : 1);
  // Shrink until at least one cell fits across (a narrow screen and a wide node).
  while (slot > 1 && slotCols * slot + gapFor(slot) > width) slot -= 1;
  const gap = gapFor(slot);
  const cellWidth = slotCols * slot;
  const cellHeight = slotRows * slot;
  const cols = Math.max(1, Math.floor((width + gap) / (cellWidth + gap)));
  const rows = Math.ceil(count / cols);
  return { count, cols, rows, slotCols, slotRows, slot, gap, cellWidth, cellHeight, width, height: Math.max(0, rows * (cellHeight + gap) - gap) };
}

/** The top-left corner of node `i`'s cell. */
export function cellOrigin(l: HeatMapLayout, i: number): { x: number; y: number } {
  return { x: (i % l.cols) * (l.cellWidth + l.gap), y: Math.floor(i / l.cols) * (l.cellHeight + l.gap) };
}

/** The node at (x, y) — the gap right of and below a cell counts as the cell's — or -1 outside every node. */
export function nodeAt(l: HeatMapLayout, x: number, y: number): number {
  if (x < 0 || y < 0 || l.count === 0) return -1;
  const col = Math.floor(x / (l.cellWidth + l.gap));
  const row = Math.floor(y / (l.cellHeight + l.gap));
  if (col >= l.cols || row >= l.rows) return -1;
  const i = row * l.cols + col;
  return i < l.count ? i : -1;
}

/** The node a key moves to from `i` (arrows by cell, Home/End to the ends), or `i` for any other key. */
export function moveFrom(l: HeatMapLayout, i: number, key: string): number {
  const last = l.count - 1;
  if (last < 0) return -1;
  const from = Math.min(Math.max(i, 0), last);
  switch (key) {
    case 'ArrowRight':
      return Math.min(from + 1, last);
    case 'ArrowLeft':
      return Math.max(from - 1, 0);
    case 'ArrowDown':
      return from + l.cols <= last ? from + l.cols : from;
    case 'ArrowUp':
      return from - l.cols >= 0 ? from - l.cols : from;
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return from;
  }
}
