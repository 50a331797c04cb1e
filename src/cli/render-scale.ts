/** A scaling answer for people: what is set, whose jobs change standing, each quota's room. */
import type { ScaleAnswer } from '../engine/scale.js';
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { fitTable, terminalWidth } from './fit-table.js';
import { colour } from './output.js';

/** The text block for one scaling answer, its tables fitted to `width` columns (the terminal's by default). */
export function renderScale(a: ScaleAnswer & { policy?: string }, width = terminalWidth()): Display {
  const lines: Display[] = [];
  lines.push(display`${colour.bold(a.query)}${a.policy ? colour.dim(`  (${a.policy})`) : ''}${a.as ? colour.dim(`  as ${a.as}`) : ''}`);
  lines.push(display`  set: ${a.set.map((s) => `${s.quota} ${s.before} → ${s.after}`).join(', ')}`);
  if (a.changes.length) {
    lines.push(display`  jobs whose standing changes:`);
    lines.push(
      fitTable(
        ['job', 'workspace', 'quota', 'prio', 'GPUs', 'standing'],
        a.changes.map((c) => [c.job, c.workspace, c.quota, c.priority ?? c.priorityBand, c.gpus, `${c.from} → ${c.to}`]),
        width,
      ),
    );
  }
  const arrow = (x: { before: number; after: number }) => (x.before === x.after ? String(x.after) : `${x.before} → ${x.after}`);
  // A `max` column only when some quota has a ceiling (SEMANTICS 3): tables without one read as before.
  const ceilings = a.quotas.some((e) => e.max !== undefined);
  const quotaRows = a.quotas.map((e) => {
    const g = e.largestGang;
    return [
      e.quota,
      e.workspaces.join(', ') || '-',
      arrow(e.min),
      ...(ceilings ? [e.max ?? '-'] : []),
      arrow(e.used),
      arrow(e.room),
      e.roomWithReclaim,
      g.gpus === 0 ? 'none' : `${g.gpus} GPUs (${g.pods} × ${g.gpuPerPod})`,
    ];
  });
  lines.push(fitTable(['quota', 'workspaces', 'min', ...(ceilings ? ['max'] : []), 'used', 'room in quota', 'with reclaim', 'largest gang now'], quotaRows, width));
  lines.push(display`  why:`);
  for (const r of [...a.reasons.map((x) => x.message), ...a.changes.map((c) => `${c.job}: ${c.reason}`)]) lines.push(display`    - ${r}`);
  return joinDisplay(lines);
}
