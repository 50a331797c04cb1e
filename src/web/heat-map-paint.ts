/**
 * Drawing the heat map on a canvas. The base layer holds every GPU of every node, written
 * as pixels into one ImageData, so 10,000 nodes × 8 GPUs draw in milliseconds. The
 * overlay layer holds what changes
 * often — the hovered or selected node, the answer's victims and placement — and is
 * redrawn alone, so hovering never redraws the 80,000 GPUs.
 */
import type { NodeEntry } from './api-types.js';
import { cellOrigin, type HeatMapLayout } from './heat-map-layout.js';
import type { HeatMapMarks } from './heat-map-marks.js';
import { CORDONED_COLOUR, FREE_COLOUR, PLACEMENT_COLOUR, STANDING_COLOURS } from './palette.js';

/** Space around the map for the frames drawn outside a cell: both canvases are this much larger on each side, their contexts translated by it. */
export const MARGIN = 8;

/** What the GPUs are coloured by. */
export type ColourBy = 'standing' | 'team';

/** True where a Uint32 over canvas bytes reads them R, G, B, A from the lowest byte (every browser's machine today). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([0x0a0b0c0d]).buffer)[0] === 0x0d;

/** `#RRGGBB` as one opaque pixel of an ImageData's Uint32 view. */
function pixel(hex: string): number {
  const v = parseInt(hex.slice(1, 7), 16);
  const r = (v >> 16) & 255;
  const g = (v >> 8) & 255;
  const b = v & 255;
  return LITTLE_ENDIAN ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

/** The rectangle of GPU `g` of the node whose cell starts at (x, y), less a 1 px seam when slots are large. */
function slotRect(l: HeatMapLayout, x: number, y: number, g: number): [number, number, number, number] {
  const seam = l.slot >= 6 ? 1 : 0;
  return [x + (g % l.slotCols) * l.slot, y + Math.floor(g / l.slotCols) * l.slot, l.slot - seam, l.slot - seam];
}

/**
 * Draws every node on the base layer. A GPU takes the colour of the job holding it (its
 * standing, or its team's colour); a job without GPU indices fills the node's first free
 * slots. The pixels are written into one ImageData (a row of a slot is one
 * Uint32Array.fill) and put at once: 80,000 GPUs are a few hundred thousand pixel writes,
 * where as many fillRect calls cost a software canvas a few µs each. `ratio` is the
 * device's pixel ratio the canvas is sized for; the context is translated by MARGIN.
 */
export function paintNodes(ctx: CanvasRenderingContext2D, l: HeatMapLayout, nodes: readonly NodeEntry[], colourBy: ColourBy, teams: ReadonlyMap<string, string>, ratio: number): void {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.restore();
  const width = Math.max(1, Math.round(l.width * ratio));
  const height = Math.max(1, Math.round(l.height * ratio));
  const image = ctx.createImageData(width, height);
  const px = new Uint32Array(image.data.buffer);
  const fill = (x: number, y: number, w: number, h: number, colour: number): void => {
    const x0 = Math.round(x * ratio);
    const x1 = Math.min(width, Math.round((x + w) * ratio));
    const y1 = Math.min(height, Math.round((y + h) * ratio));
    for (let row = Math.round(y * ratio); row < y1; row++) px.fill(colour, row * width + x0, row * width + x1);
  };
  // GPU g of the node whose cell starts at (x, y): slotRect's arithmetic without an array per GPU.
  const seam = l.slot >= 6 ? 1 : 0;
  const side = l.slot - seam;
  const fillSlot = (x: number, y: number, g: number, colour: number): void => fill(x + (g % l.slotCols) * l.slot, y + Math.floor(g / l.slotCols) * l.slot, side, side, colour);
  const colours = new Map<string, number>();
  const colourOf = (hex: string): number => {
    let c = colours.get(hex);
    if (c === undefined) colours.set(hex, (c = pixel(hex)));
    return c;
  };
  const free = colourOf(FREE_COLOUR);
  const cordoned = colourOf(CORDONED_COLOUR);
  const capacity = l.slotCols * l.slotRows;
  const taken = new Uint8Array(capacity);
  const crosses: number[] = [];
  for (let i = 0; i < nodes.length && i < l.count; i++) {
    const n = nodes[i]!;
    const { x, y } = cellOrigin(l, i);
    const gpus = Math.min(n.gpus, capacity);
    const base = n.cordoned ? cordoned : free;
    // A full grid without seams is one rectangle; otherwise one per GPU.
    if (gpus === capacity && seam === 0) fill(x, y, l.cellWidth, l.cellHeight, base);
    else for (let g = 0; g < gpus; g++) fillSlot(x, y, g, base);
    if (n.cordoned && l.slot >= 3) crosses.push(x, y);
    if (n.jobs.length === 0) continue;
    taken.fill(0);
    for (const j of n.jobs) {
      const colour = colourOf(colourBy === 'team' ? (teams.get(j.workspace) ?? '#000000') : STANDING_COLOURS[j.standing]);
      if (j.indices.length > 0) {
        for (const g of j.indices) {
          if (g < gpus) {
            taken[g] = 1;
            fillSlot(x, y, g, colour);
          }
        }
      } else {
        let left = Math.ceil(j.gpus);
        for (let g = 0; g < gpus && left > 0; g++) {
          if (taken[g]) continue;
          taken[g] = 1;
          left -= 1;
          fillSlot(x, y, g, colour);
        }
      }
    }
  }
  // putImageData ignores the transform: it takes device pixels.
  ctx.putImageData(image, Math.round(MARGIN * ratio), Math.round(MARGIN * ratio));
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

/** Frames the cell of node `i` with an outer line of `colour` (`outset` px further out) and an inner white one. */
function frame(ctx: CanvasRenderingContext2D, l: HeatMapLayout, i: number, colour: string, width: number, outset = 0): void {
  const { x, y } = cellOrigin(l, i);
  const d = width / 2 + 1 + outset;
  ctx.lineWidth = width;
  ctx.strokeStyle = colour;
  ctx.strokeRect(x - d, y - d, l.cellWidth + 2 * d, l.cellHeight + 2 * d);
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
  // The hovered or selected node, framed in black; around a placement frame when it has one, so both show.
  if (focus >= 0 && focus < l.count) frame(ctx, l, focus, '#000000', 2, marks.placement.has(focus) ? 3 : 0);
}
