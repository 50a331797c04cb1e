/** A scaling answer for people: what is set, whose jobs change standing, each quota's room. */
import Table from 'cli-table3';
import type { ScaleAnswer } from '../engine/scale.js';
import { colour } from './output.js';

/** The text block for one scaling answer. */
export function renderScale(a: ScaleAnswer & { policy?: string }): string {
  const lines: string[] = [];
  lines.push(`${colour.bold(a.query)}${a.policy ? colour.dim(`  (${a.policy})`) : ''}${a.as ? colour.dim(`  as ${a.as}`) : ''}`);
  lines.push(`  set: ${a.set.map((s) => `${s.quota} ${s.before} → ${s.after}`).join(', ')}`);
  if (a.changes.length) {
    const t = new Table({ head: ['job', 'workspace', 'quota', 'prio', 'GPUs', 'standing'], style: { head: [], border: [] } });
    for (const c of a.changes) t.push([c.job, c.workspace, c.quota, c.priority ?? c.priorityBand, c.gpus, `${c.from} → ${c.to}`]);
    lines.push('  jobs whose standing changes:');
    lines.push(t.toString().replace(/^/gm, '  '));
  }
  const q = new Table({ head: ['quota', 'workspaces', 'min', 'used', 'room in quota', 'with reclaim', 'largest gang now'], style: { head: [], border: [] } });
  for (const e of a.quotas) {
    const arrow = (x: { before: number; after: number }) => (x.before === x.after ? String(x.after) : `${x.before} → ${x.after}`);
    const g = e.largestGang;
    q.push([e.quota, e.workspaces.join(', ') || '-', arrow(e.min), arrow(e.used), arrow(e.room), e.roomWithReclaim, g.gpus === 0 ? 'none' : `${g.gpus} GPUs (${g.pods} × ${g.gpuPerPod})`]);
  }
  lines.push(q.toString().replace(/^/gm, '  '));
  lines.push('  why:');
  for (const r of [...a.reasons, ...a.changes.map((c) => `${c.job}: ${c.reason}`)]) lines.push(`    - ${r}`);
  return lines.join('\n');
}
