/** A what-if answer for people: a headline, the placement, a victims table, the reasons. */
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { formatGpu } from '../model/resources.js';
import { fitTable, terminalWidth, wrapWords } from './fit-table.js';
import { colour } from './output.js';
import { describeSnapshot } from './snapshot-note.js';
import type { QueueAnswer, QueuedJobAnswer } from '../engine/answer.js';
import type { StartEstimate } from '../engine/estimate.js';
import type { FullAnswer } from '../engine/pipeline.js';

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

/** Placements listed node by node up to this many nodes; beyond, the first few and a count. */
const PLACEMENT_NODES_SHOWN = 8;

/**
 * The placement as `node[gpus]`, one entry per node; a long one (a gang over many nodes)
 * shows its first nodes and then how many more, with the totals (`--json` lists every pod).
 */
export function formatPlacement(placement: Array<{ node: string; gpus: number[]; gpuMilli?: number }>): string {
  const byNode = new Map<string, number[][]>();
  const shared: string[] = [];
  // A sharing pod names its GPU and its share: `node-3 gpu 2 (460m)`.
  for (const p of placement) {
    if (p.gpuMilli) shared.push(`${p.node} gpu ${p.gpus.join(',')} (${p.gpuMilli}m)`);
    else byNode.set(p.node, [...(byNode.get(p.node) ?? []), p.gpus]);
  }
  const entries = [...[...byNode].map(([n, g]) => `${n}[${g.map(formatGpus).join(' ')}]`), ...shared];
  if (entries.length <= PLACEMENT_NODES_SHOWN) return entries.join(', ');
  const shown = PLACEMENT_NODES_SHOWN - 2;
  const gpus = formatGpu(placement.reduce((s, p) => s + (p.gpuMilli ? p.gpuMilli / 1000 : p.gpus.length), 0));
  return `${entries.slice(0, shown).join(', ')} +${entries.length - shown} more node(s) (${entries.length} nodes, ${placement.length} pods, ${gpus} GPUs in all; --json lists every pod)`;
}

/** The text block for one answer, its tables fitted to `width` columns (the terminal's by default). */
export function renderAnswer(a: FullAnswer, width = terminalWidth()): Display {
  const lines: Display[] = [];
  const decision = DECISION_COLOUR[a.decision](a.decision.toUpperCase());
  lines.push(display`${colour.bold(a.query)}${a.policy ? colour.dim(`  (${a.policy})`) : ''}${'as' in a ? colour.dim(`  as ${a.as}`) : ''}`);
  if (a.snapshot) lines.push(colour.dim(`  ${describeSnapshot(a.snapshot)}`));
  lines.push(display`  ${a.job} on ${a.quota}: ${decision}${a.standing ? ` — runs ${a.standing}` : ''}`);
  if (a.placement.length) lines.push(display`  placement: ${formatPlacement(a.placement)}`);
  if (a.victims.length) {
    const rows = a.victims.map((v) =>
      'hidden' in v ? [v.job, v.quota, v.priorityBand, '-', v.standing, v.gpus, '-', v.rule, v.source] : [v.job, v.quota, v.priority, v.module, v.standing, v.gpus, v.lostGpuHours, v.rule, v.source],
    );
    lines.push(fitTable(['victim', 'quota', 'prio', 'module', 'standing', 'GPUs', 'lost GPU-h', 'rule', 'source'], rows, width));
    for (const v of a.victims) lines.push(display`  ${colour.dim('·')} ${v.job}: ${v.reason}`);
  }
  if (a.reasons.length) {
    lines.push(display`  ${a.decision === 'wait' || a.decision === 'reject' ? 'why not:' : 'why:'}`);
    for (const r of a.reasons) lines.push(...bullet(r.message, '    - ', width));
  }
  // A rejected job never runs, so it never takes a place in its queue: no position to print.
  if (a.queue && a.decision !== 'reject') lines.push(...renderQueue(a.queue, a.quota, width));
  if (a.estimate) lines.push(...renderEstimate(a.estimate, a.quota));
  if (a.notes.length) {
    lines.push(display`  note:`);
    for (const n of a.notes) lines.push(display`    - ${n.message}`);
  }
  return joinDisplay(lines);
}

/** A reason longer than this is wrapped and, past REASON_LINES lines, shortened for people (`--json` keeps it whole). */
const LONG_REASON = 240;
/** The most lines one reason takes in the table. */
const REASON_LINES = 6;

/**
 * One bullet for people. A short one is one line as it is (a script's grep finds it); a
 * long one (a queue/held sentence holding its holder's every reason ran to 1,500
 * characters on one line) is wrapped under its bullet to `width`, and past REASON_LINES
 * lines cut with how much was left out and where it is whole.
 */
export function bullet(text: string, lead: string, width: number): Display[] {
  if ([...text].length <= LONG_REASON) return [display`${lead}${text}`];
  const indent = ' '.repeat(lead.length);
  const wrapped = wrapWords(text.replace(/\s*\n\s*/g, ' '), Math.max(40, width - lead.length));
  if (wrapped.length <= REASON_LINES) return wrapped.map((l, i) => display`${i === 0 ? lead : indent}${l}`);
  const shown = wrapped.slice(0, REASON_LINES - 1);
  const left = [...text].length - shown.reduce((n, l) => n + [...l].length + 1, 0);
  return [...shown.map((l, i) => display`${i === 0 ? lead : indent}${l}`), display`${indent}… ${left.toLocaleString('en-US')} more character(s); --json or -o yaml holds the whole reason`];
}

/** A wait answer's start estimate: when (or why not), the queue position, and what it assumes. */
function renderEstimate(e: StartEstimate, quota: string): Display[] {
  const where = display`queue position ${e.queuePosition} in ${quota} (${e.queueStrategy})`;
  const head =
    e.start === null
      ? display`  ${colour.bold('estimated start:')} none — ${e.reason ?? ''}; ${where}`
      : display`  ${colour.bold('estimated start:')} ${e.start} (in ${e.inHours ?? ''} h), ${where}; runs ${e.standing ?? ''}${e.victims.length ? `, preempting ${e.victims.join(', ')}` : ''}`;
  // An estimate that rests on runtimeDefault's assumed ends says so on its first line.
  const assumed = e.assumedEnds.length ? [display`  ${colour.yellow('assumed:')} ${e.assumedEnds.length} running job(s) give no expected end; their ends are assumed from runtimeDefault`] : [];
  return [head, ...assumed, ...(e.assumptions.length ? [display`  the estimate assumes:`] : []), ...e.assumptions.map((x) => display`    - ${x}`)];
}

/** The queues at the snapshot time (SEMANTICS 8): the job's place, the queued jobs served before it, the one holding it. */
function renderQueue(q: QueueAnswer, quota: string, width: number): Display[] {
  const name = (j: QueuedJobAnswer): Display => ('hidden' in j ? display`${j.job} ${j.quota} ${j.priorityBand}` : display`${j.job} (${j.quota}, priority ${j.priority})`);
  const lines = [display`  ${colour.bold('queue:')} position ${q.position} in ${quota} (${q.strategy})${q.started.length ? `; ${q.started.length} queued job(s) taken as started first` : ''}`];
  for (const s of q.started) lines.push(display`    - ${name(s)}: ${s.decision}, runs ${s.standing}${s.victims.length ? `, preempting ${s.victims.join(', ')}` : ''}`);
  if (q.heldBy) {
    lines.push(display`  ${colour.bold('held by:')} ${name(q.heldBy)}, which cannot run now:`);
    for (const r of q.heldBy.reasons) lines.push(...bullet(r.message, '    - ', width));
  }
  return lines;
}
