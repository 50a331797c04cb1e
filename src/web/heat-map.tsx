/**
 * The GPU heat map: every node of the cluster on a canvas (heat-map-paint.ts), each GPU
 * coloured by the standing of the job holding it or by its team, with the what-if
 * answer's victims hatched and its placement framed. Hovering a node — or moving to it
 * with the arrow keys once the map has focus — shows its jobs as far as the caller may
 * see them (the API's /v1/nodes already hides the rest). Painting is measured with the
 * User Timing API as `quotient:heat-map-paint`, which the browser test and the bench read.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { NodeEntry, Standing } from './api-types.js';
import { count, gpus, ranges } from './format.js';
import { layoutHeatMap, moveFrom, nodeAt, cellOrigin } from './heat-map-layout.js';
import type { HeatMapMarks } from './heat-map-marks.js';
import { MARGIN, paintMarks, paintNodes, type ColourBy } from './heat-map-paint.js';
import { CORDONED_COLOUR, FREE_COLOUR, PLACEMENT_COLOUR, STANDING_COLOURS, STANDING_LABELS, teamColours } from './palette.js';

const STANDINGS: readonly Standing[] = ['in-quota', 'borrowing', 'idle'];
/** Teams named in the legend before "and N more". */
const LEGEND_TEAMS = 12;

/** Sizes a canvas to CSS pixels × the device's pixel ratio and returns its context, translated by MARGIN. */
function prepare(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D | null {
  const ratio = window.devicePixelRatio || 1;
  const w = width + 2 * MARGIN;
  const h = height + 2 * MARGIN;
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  const ctx = canvas.getContext('2d', { alpha: true });
  if (!ctx) return null;
  ctx.setTransform(ratio, 0, 0, ratio, ratio * MARGIN, ratio * MARGIN);
  return ctx;
}

/** The text of one node: what the tooltip and the keyboard's live region say. */
function NodeDetails({ node, marks, index }: { node: NodeEntry; marks: HeatMapMarks; index: number }) {
  const victimGpus = marks.victims.get(index);
  return (
    <>
      <strong>{node.name}</strong>
      <span class="muted">
        {' '}
        {[node.pool, node.gpuModel ?? node.instanceType].filter(Boolean).join(' · ')}
        {node.cordoned ? ' · cordoned' : ''}
      </span>
      <div>
        {gpus(node.used)} of {count(node.gpus, 'GPU')} used, {gpus(node.free)} free{node.shared > 0 ? `, ${gpus(node.shared)} shared` : ''}
      </div>
      {marks.placement.has(index) ? <div class="mark-note">the what-if job would run here</div> : null}
      {victimGpus && victimGpus.size > 0 ? <div class="mark-note">GPUs {ranges([...victimGpus])} would be preempted</div> : null}
      {node.jobs.length === 0 ? (
        <div class="muted">no jobs</div>
      ) : (
        <ul class="node-jobs">
          {node.jobs.map((j, k) => (
            <li key={k}>
              <span class={j.hidden ? 'hidden-job' : 'job-name'}>{j.hidden ? `a job of ${j.workspace}` : j.job}</span>{' '}
              <span class="muted">
                {j.quota} · {STANDING_LABELS[j.standing] ?? j.standing} · {j.priority !== undefined ? `priority ${j.priority}` : j.priorityBand}
                {j.module ? ` · ${j.module}` : ''} · {count(j.gpus, 'GPU')}
                {j.indices.length > 0 ? ` (${ranges(j.indices)})` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The heat map with its colour toggle, legend and hover details. */
export function HeatMap({ nodes, marks }: { nodes: readonly NodeEntry[]; marks: HeatMapMarks }) {
  const [colourBy, setColourBy] = useState<ColourBy>('standing');
  const [width, setWidth] = useState(0);
  const [hovered, setHovered] = useState(-1);
  const [selected, setSelected] = useState(-1);
  const box = useRef<HTMLDivElement>(null);
  const base = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = (): void => setWidth(Math.max(0, Math.floor(el.clientWidth) - 2 * MARGIN));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const maxGpus = useMemo(() => nodes.reduce((m, n) => Math.max(m, n.gpus), 1), [nodes]);
  const layout = useMemo(() => (width > 0 ? layoutHeatMap({ count: nodes.length, maxGpus, width }) : undefined), [nodes.length, maxGpus, width]);
  const teams = useMemo(() => teamColours(nodes.flatMap((n) => n.jobs.map((j) => j.workspace))), [nodes]);
  const totals = useMemo(() => {
    const t = { gpus: 0, free: 0, cordoned: 0, 'in-quota': 0, borrowing: 0, idle: 0 };
    for (const n of nodes) {
      t.gpus += n.gpus;
      t.free += n.free;
      if (n.cordoned) t.cordoned += 1;
      for (const s of STANDINGS) t[s] += n.standing[s] ?? 0;
    }
    return t;
  }, [nodes]);

  useEffect(() => {
    const canvas = base.current;
    if (!canvas || !layout) return;
    const ctx = prepare(canvas, layout.width, layout.height);
    if (!ctx) return;
    performance.mark('quotient:heat-map-paint-start');
    paintNodes(ctx, layout, nodes, colourBy, teams, window.devicePixelRatio || 1);
    performance.measure('quotient:heat-map-paint', { start: 'quotient:heat-map-paint-start', detail: { nodes: nodes.length, colourBy } });
  }, [layout, nodes, colourBy, teams]);

  const focus = hovered >= 0 ? hovered : selected;
  useEffect(() => {
    const canvas = overlay.current;
    if (!canvas || !layout) return;
    const ctx = prepare(canvas, layout.width, layout.height);
    if (ctx) paintMarks(ctx, layout, nodes, marks, focus);
  }, [layout, nodes, marks, focus]);

  const onMove = (e: MouseEvent): void => {
    if (!layout || !overlay.current) return;
    const r = overlay.current.getBoundingClientRect();
    const i = nodeAt(layout, e.clientX - r.left - MARGIN, e.clientY - r.top - MARGIN);
    if (i !== hovered) setHovered(i);
  };
  const onKey = (e: KeyboardEvent): void => {
    if (!layout) return;
    if (e.key === 'Escape') {
      setSelected(-1);
      return;
    }
    const next = moveFrom(layout, selected < 0 ? 0 : selected, e.key);
    if (next !== selected || selected < 0) {
      if (['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(e.key)) {
        e.preventDefault();
        setHovered(-1);
        setSelected(next);
      }
    }
  };

  const shown = focus >= 0 ? nodes[focus] : undefined;
  let tipStyle: Record<string, string> | undefined;
  if (shown && layout) {
    const { x, y } = cellOrigin(layout, focus);
    const right = x > layout.width * 0.6;
    tipStyle = right ? { right: `${layout.width + MARGIN - x + 8}px`, top: `${y + MARGIN}px` } : { left: `${x + MARGIN + layout.cellWidth + 10}px`, top: `${y + MARGIN}px` };
  }
  const teamList = [...teams];

  return (
    <div class="heat-map">
      <div class="heat-map-bar">
        <fieldset class="toggle">
          <legend>Colour GPUs by</legend>
          <label>
            <input type="radio" name="colour-by" value="standing" checked={colourBy === 'standing'} onChange={() => setColourBy('standing')} /> standing
          </label>
          <label>
            <input type="radio" name="colour-by" value="team" checked={colourBy === 'team'} onChange={() => setColourBy('team')} /> team
          </label>
        </fieldset>
        <p class="totals">
          {count(nodes.length, 'node')} · {count(totals.gpus, 'GPU')} · {gpus(totals['in-quota'])} in quota · {gpus(totals.borrowing)} borrowing · {gpus(totals.idle)} idle · {gpus(totals.free)} free
          {totals.cordoned > 0 ? ` · ${count(totals.cordoned, 'cordoned node')}` : ''}
        </p>
      </div>
      <ul class="legend" aria-label="Legend">
        {colourBy === 'standing'
          ? STANDINGS.map((s) => (
              <li key={s}>
                <span class="swatch" style={{ background: STANDING_COLOURS[s] }} /> {STANDING_LABELS[s]}
              </li>
            ))
          : teamList.slice(0, LEGEND_TEAMS).map(([w, c]) => (
              <li key={w}>
                <span class="swatch" style={{ background: c }} /> {w}
              </li>
            ))}
        {colourBy === 'team' && teamList.length > LEGEND_TEAMS ? <li>and {teamList.length - LEGEND_TEAMS} more (hover a node)</li> : null}
        <li>
          <span class="swatch" style={{ background: FREE_COLOUR }} /> free
        </li>
        {totals.cordoned > 0 ? (
          <li>
            <span class="swatch swatch-cordoned" style={{ background: CORDONED_COLOUR }} /> cordoned
          </li>
        ) : null}
        {marks.victims.size > 0 ? (
          <li>
            <span class="swatch swatch-victim" /> would be preempted
          </li>
        ) : null}
        {marks.placement.size > 0 ? (
          <li>
            <span class="swatch swatch-placement" style={{ borderColor: PLACEMENT_COLOUR }} /> where the job would run
          </li>
        ) : null}
      </ul>
      <div class="heat-map-canvas" ref={box}>
        <canvas ref={base} class="heat-map-base" aria-hidden="true" />
        <canvas
          ref={overlay}
          class="heat-map-overlay"
          tabIndex={0}
          role="img"
          aria-label={`GPU heat map of ${count(nodes.length, 'node')}. Arrow keys move between nodes; the node's jobs are read out below.`}
          aria-describedby="heat-map-details"
          onMouseMove={onMove}
          onMouseLeave={() => setHovered(-1)}
          onKeyDown={onKey}
          onBlur={() => setSelected(-1)}
        />
        {shown ? (
          <div class="tooltip" style={tipStyle} aria-hidden="true">
            <NodeDetails node={shown} marks={marks} index={focus} />
          </div>
        ) : null}
      </div>
      <div id="heat-map-details" class="sr-only" aria-live="polite">
        {selected >= 0 && nodes[selected] ? <NodeDetails node={nodes[selected]} marks={marks} index={selected} /> : null}
      </div>
    </div>
  );
}
