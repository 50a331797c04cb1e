/**
 * Drawing the heat map on a canvas. The base layer holds every GPU of every node, drawn
 * in batches of one colour (one fillStyle change per colour, not per GPU), so 10,000
 * nodes × 8 GPUs draw in tens of milliseconds. The overlay layer holds what changes
 * often — the hovered or selected node, the answer's victims and placement — and is
 * redrawn alone, so hovering never redraws the 80,000 GPUs.
 */
import type { NodeEntry } from './api-types';
import { cellOrigin, type HeatMapLayout } from './heat-map-layout';
import type { HeatMapMarks } from './heat-map-marks';
import { CORDONED_COLOUR, FREE_COLOUR, PLACEMENT_COLOUR, STANDING_COLOURS } from './palette';

/** Space around the map for the frames drawn outside a cell: both canvases are this much larger on each side, their contexts translated by it. */
export const MARGIN = 5;

/** What the GPUs are coloured by. */
export type ColourBy = 'standing' | 'team';

/** Rectangles to fill, by colour: x, y, w, h, ... */
type Batches = Map<string, number[]>;

function add(batches: Batches, colour: string, x: number, y: number, w: number, h: number): void {
  let list = batches.get(colour);
  if (!list) batches.set(colour, (list = []));
  list.push(x, y, w, h);
}

/** The rectangle of GPU `g` of the node whose cell starts at (x, y), less a 1 px seam when slots are large. */
function slotRect(l: HeatMapLayout, x: number, y: number, g: number): [number, number, number, number] {
  const seam = l.slot >= 6 ? 1 : 0;
  return [x + (g % l.slotCols) * l.slot, y + Math.floor(g / l.slotCols) * l.slot, l.slot - seam, l.slot - seam];
}

/**
 * Draws every node on the base layer (a context already scaled to CSS pixels and sized
 * to the layout). A GPU takes the colour of the job holding it (its standing, or its
 * team's colour); a job without GPU indices fills the node's first free slots.
 */
export function paintNodes(ctx: CanvasRenderingContext2D, l: HeatMapLayout, nodes: readonly NodeEntry[], colourBy: ColourBy, teams: ReadonlyMap<string, string>): void {
  ctx.clearRect(-MARGIN, -MARGIN, l.width + 2 * MARGIN, l.height + 2 * MARGIN);
  const batches: Batches = new Map();
  const capacity = l.slotCols * l.slotRows;
  const taken = new Uint8Array(capacity);
  const crosses: number[] = [];
  for (let i = 0; i < nodes.length && i < l.count; i++) {
    const n = nodes[i]!;
    const { x, y } = cellOrigin(l, i);
    const gpus = Math.min(n.gpus, capacity);
    const base = n.cordoned ? CORDONED_COLOUR : FREE_COLOUR;
    // A full grid without seams is one rectangle; otherwise one per GPU.
    if (gpus === capacity && l.slot < 6) add(batches, base, x, y, l.cellWidth, l.cellHeight);
    else for (let g = 0; g < gpus; g++) add(batches, base, ...slotRect(l, x, y, g));
    if (n.cordoned && l.slot >= 3) crosses.push(x, y);
    if (n.jobs.length === 0) continue;
    taken.fill(0);
    for (const j of n.jobs) {
      const colour = colourBy === 'team' ? (teams.get(j.workspace) ?? '#000000') : STANDING_COLOURS[j.standing];
      if (j.indices.length > 0) {
        for (const g of j.indices) {
          if (g < gpus) {
            taken[g] = 1;
            add(batches, colour, ...slotRect(l, x, y, g));
          }
        }
      } else {
        let left = Math.ceil(j.gpus);
        for (let g = 0; g < gpus && left > 0; g++) {
          if (taken[g]) continue;
          taken[g] = 1;
          left -= 1;
          add(batches, colour, ...slotRect(l, x, y, g));
        }
      }
    }
  }
  for (const [colour, r] of batches) {
    ctx.fillStyle = colour;
    for (let k = 0; k < r.length; k += 4) ctx.fillRect(r[k]!, r[k + 1]!, r[k + 2]!, r[k + 3]!);
  }
  if (crosses.length > 0) {
    // A cordoned node is crossed out, so it reads as "nothing new lands here" without its colour.
    ctx.strokeStyle = '#000000';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let k = 0; k < crosses.length; k += 2) {
      const x = crosses[k]!;
      const y = crosses[k + 1]!;
      ctx.moveTo(x, y);
      ctx.lineTo(x + l.cellWidth, y + l.cellHeight);
      ctx.moveTo(x + l.cellWidth, y);
      ctx.lineTo(x, y + l.cellHeight);
    }
    ctx.stroke();
  }
}

let hatch: CanvasPattern | null | undefined;

/** Black diagonal stripes on transparent: the victims' GPUs. */
function hatchPattern(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  if (hatch !== undefined) return hatch;
  const tile = document.createElement('canvas');
  tile.width = 6;
  tile.height = 6;
  const t = tile.getContext('2d');
  if (!t) return (hatch = null);
  t.strokeStyle = '#000000';
  t.lineWidth = 2;
  t.beginPath();
  t.moveTo(-1, 7);
  t.lineTo(7, -1);
  t.moveTo(5, 7);
  t.lineTo(7, 5);
  t.moveTo(-1, 1);
  t.lineTo(1, -1);
  t.stroke();
  return (hatch = ctx.createPattern(tile, 'repeat'));
}

/** Frames the cell of node `i` with an outer line of `colour` and an inner white one. */
function frame(ctx: CanvasRenderingContext2D, l: HeatMapLayout, i: number, colour: string, width: number): void {
  const { x, y } = cellOrigin(l, i);
  ctx.lineWidth = width;
  ctx.strokeStyle = colour;
  ctx.strokeRect(x - width / 2 - 1, y - width / 2 - 1, l.cellWidth + width + 2, l.cellHeight + width + 2);
  ctx.lineWidth = 1;
  ctx.strokeStyle = '#FFFFFF';
  ctx.strokeRect(x - 0.5, y - 0.5, l.cellWidth + 1, l.cellHeight + 1);
}

/** Draws the overlay: victims hatched, the placement framed, the focused node framed in black. */
export function paintMarks(ctx: CanvasRenderingContext2D, l: HeatMapLayout, nodes: readonly NodeEntry[], marks: HeatMapMarks, focus: number): void {
  ctx.clearRect(-MARGIN, -MARGIN, l.width + 2 * MARGIN, l.height + 2 * MARGIN);
  const pattern = hatchPattern(ctx);
  for (const [i, gpus] of marks.victims) {
    const n = nodes[i];
    if (!n) continue;
    const { x, y } = cellOrigin(l, i);
    ctx.fillStyle = pattern ?? 'rgba(0, 0, 0, 0.6)';
    for (const g of gpus) if (g < n.gpus) ctx.fillRect(...slotRect(l, x, y, g));
    // At a few pixels a cell cannot show stripes: a black frame says "victim" there.
    if (l.slot < 4) frame(ctx, l, i, '#000000', 1);
  }
  for (const i of marks.placement) frame(ctx, l, i, PLACEMENT_COLOUR, l.slot >= 4 ? 3 : 2);
  if (focus >= 0 && focus < l.count) frame(ctx, l, focus, '#000000', 2);
}
