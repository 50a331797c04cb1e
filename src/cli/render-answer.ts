/** A what-if answer for people: a headline, the placement, a victims table, the reasons. */
import Table from 'cli-table3';
import type { Answer } from '../engine/answer.js';
import type { ViewedAnswer } from '../engine/visibility.js';
import { colour } from './output.js';

const DECISION_COLOUR = { admit: colour.green, preempt: colour.yellow, wait: colour.magenta, reject: colour.red } as const;

/** GPU indices compactly: `0-3,6`. */
export function formatGpus(gpus: number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < gpus.length) {
    let j = i;
    while (j + 1 < gpus.length && gpus[j + 1] === gpus[j]! + 1) j++;
    parts.push(i === j ? String(gpus[i]) : `${gpus[i]}-${gpus[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The text block for one answer. */
export function renderAnswer(a: (Answer | ViewedAnswer) & { policy?: string }): string {
  const lines: string[] = [];
  const decision = DECISION_COLOUR[a.decision](a.decision.toUpperCase());
  lines.push(`${colour.bold(a.query)}${a.policy ? colour.dim(`  (${a.policy})`) : ''}${'as' in a ? colour.dim(`  as ${a.as}`) : ''}`);
  lines.push(`  ${a.job} on ${a.quota}: ${decision}${a.standing ? ` — runs ${a.standing}` : ''}`);
  if (a.placement.length) {
    const byNode = new Map<string, number[][]>();
    for (const p of a.placement) byNode.set(p.node, [...(byNode.get(p.node) ?? []), p.gpus]);
    lines.push(`  placement: ${[...byNode].map(([n, g]) => `${n}[${g.map(formatGpus).join(' ')}]`).join(', ')}`);
  }
  if (a.victims.length) {
    const t = new Table({ head: ['victim', 'quota', 'prio', 'module', 'standing', 'GPUs', 'lost GPU-h', 'rule', 'source'], style: { head: [], border: [] } });
    for (const v of a.victims) {
      if ('hidden' in v) t.push([v.job, v.quota, v.priorityBand, '-', v.standing, v.gpus, '-', v.rule, v.source]);
      else t.push([v.job, v.quota, v.priority, v.module, v.standing, v.gpus, v.lostGpuHours, v.rule, v.source]);
    }
    lines.push(t.toString().replace(/^/gm, '  '));
    for (const v of a.victims) lines.push(`  ${colour.dim('·')} ${v.job}: ${v.reason}`);
  }
  if (a.reasons.length) {
    lines.push(`  ${a.decision === 'wait' || a.decision === 'reject' ? 'why not:' : 'why:'}`);
    for (const r of a.reasons) lines.push(`    - ${r.message}`);
  }
  if (a.notes.length) {
    lines.push('  note:');
    for (const n of a.notes) lines.push(`    - ${n.message}`);
  }
  return lines.join('\n');
}
