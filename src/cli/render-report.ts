/** A simulation report for people: totals, per team, per quota, preemptions by rule, the spot market. */
import { display, joinDisplay, type Display } from '../model/display-text.js';
import type { GroupFigures, Report, WaitStats } from '../simulate/report.js';
import { fitTable, terminalWidth } from './fit-table.js';
import { colour } from './output.js';

function groupRow(g: GroupFigures): Array<string | number> {
  const waiting = g.wait.stillWaiting ? `${g.wait.stillWaiting} (${g.wait.longestStillWaiting} h)` : 0;
  return [g.name, g.jobs, g.completed, g.unfinished, g.endedPreempted, g.rejected, g.wait.p50, g.wait.p95, g.wait.max, waiting, g.gpuHours.total, g.preempted, g.lostGpuHours, g.restarts];
}

const GROUP_HEAD = ['', 'jobs', 'done', 'unfinished', 'ended preempted', 'rejected', 'wait p50 h', 'p95 h', 'max h', 'still waiting (longest)', 'GPU-h', 'preempted', 'lost GPU-h', 'restarts'];

/** "501 still waiting at the end, the longest 176 h": the censored waits, said so. */
export function stillWaitingText(w: WaitStats): string {
  if (w.stillWaiting === 0) return '';
  return `; ${w.stillWaiting} still waiting at the end, the longest ${w.longestStillWaiting} h (with them: p50 ≥ ${w.p50WithWaiting} h, p95 ≥ ${w.p95WithWaiting} h)`;
}

/** The report as text tables. */
export function renderReport(r: Report): Display {
  const out: Display[] = [];
  const t = r.totals;
  out.push(colour.bold(`Simulation of ${r.policy}`));
  out.push(
    // A synthetic workload's source already says so, with its jobs and seed (pai-generator.ts).
    display`  workload: ${r.workload.synthetic ? r.workload.source : `${r.workload.source}, ${r.workload.jobs} jobs${r.workload.rejectedRows ? `, ${r.workload.rejectedRows} row(s) left out` : ''}; seed ${r.seed}`}`,
  );
  out.push(
    display`  cluster: ${r.cluster.nodes} nodes, ${r.cluster.gpus} GPUs${r.cluster.runningAtStart ? `, ${r.cluster.runningAtStart} snapshot job(s) running at hour 0` : ''}${r.cluster.queuedAtStart ? `, ${r.cluster.queuedAtStart} queued` : ''}; ${r.hours} simulated hours${r.until !== null ? ` (stopped at --until ${r.until} h)` : ''}${r.cycleSeconds ? `; queues tried every ${r.cycleSeconds} s` : ''}`,
  );
  const room = t.sharedRoomGpuHours === undefined ? '' : ` (${t.sharedRoomGpuHours} of it room on shared GPUs)`;
  out.push(display`  GPU-hours: ${t.usedGpuHours} used + ${t.idleGpuHours} idle${room} = ${t.capacityGpuHours} capacity; utilisation ${(t.utilisation * 100).toFixed(2)}%`);
  // Used GPU-hours by the standing the jobs ran with: borrowing and idle capacity are where teams contend.
  const by = (k: 'inQuota' | 'borrowing' | 'idle') => Math.round(r.teams.reduce((s, g) => s + g.gpuHours[k], 0) * 100) / 100;
  out.push(display`  used by standing: ${by('inQuota')} in quota, ${by('borrowing')} borrowed, ${by('idle')} on idle capacity`);
  out.push(
    display`  jobs: ${t.completed} done, ${t.unfinished} unfinished, ${t.endedPreempted} ended preempted, ${t.rejected} rejected; ${t.preemptions} preemption(s), ${t.restarts} restart(s), ${t.lostGpuHours} GPU-hours lost`,
  );
  out.push(display`  queue wait (h): p50 ${t.wait.p50}, p95 ${t.wait.p95}, max ${t.wait.max} over ${t.wait.started} started job(s)${stillWaitingText(t.wait)}`);
  out.push(display``);
  out.push(colour.bold('Teams'));
  const width = terminalWidth();
  out.push(fitTable(['team', ...GROUP_HEAD.slice(1)], r.teams.map(groupRow), width, ''));
  out.push(colour.bold('Quotas'));
  const quotaRows = r.quotas.map((q) => {
    const row = groupRow(q);
    const used = `${(q.guaranteeUsed * 100).toFixed(1)}%`;
    // A parent's guarantee covers its children's use: its subtree's share beside its own jobs'.
    const guarantee = q.subtree.quotas > 1 ? `${used} own, ${(q.subtree.guaranteeUsed * 100).toFixed(1)}% subtree` : used;
    return [row[0]!, q.minGpu, guarantee, ...row.slice(1)];
  });
  out.push(fitTable(['quota', 'min', 'guarantee used', ...GROUP_HEAD.slice(1)], quotaRows, width, ''));
  out.push(...renderBlocked(r, width));
  if (r.preemptions.byRule.length) {
    out.push(colour.bold('Preemptions by rule'));
    out.push(
      fitTable(
        ['rule', 'source', 'count', 'lost GPU-h'],
        r.preemptions.byRule.map((x) => [x.rule, x.source, x.count, x.lostGpuHours]),
        width,
        '',
      ),
    );
    out.push(
      fitTable(
        ['victim team', 'count', 'lost GPU-h'],
        r.preemptions.byVictimTeam.map((x) => [x.team, x.count, x.lostGpuHours]),
        width,
        '',
      ),
    );
  }
  if (r.spot.byInstanceType.length) {
    out.push(colour.bold(`Spot market${r.spot.synthetic ? ' (synthetic series)' : ''}`));
    const head = ['instance type', 'pay-as-you-go /h', 'jobs', 'GPU-h', 'cost', 'pay-as-you-go', 'saved', 'released: price', 'inventory'];
    out.push(
      fitTable(
        head,
        r.spot.byInstanceType.map((x) => [x.name, x.payAsYouGoPrice, x.jobs, x.gpuHours, x.cost, x.payAsYouGo, x.saved, x.interruptions.price, x.interruptions.inventory]),
        width,
        '',
      ),
    );
  }
  if (r.rejections.length) {
    out.push(colour.bold('Rejected by the engine'));
    for (const x of r.rejections.slice(0, 10)) out.push(display`  ${x.job} (${x.quota}) at hour ${x.hour}: ${x.reason}`);
    if (r.totals.rejected > 10) out.push(display`  … and ${r.totals.rejected - 10} more (see --json)`);
  }
  for (const n of [...r.workload.notes, ...r.notes]) out.push(colour.dim(`note: ${n}`));
  return joinDisplay(out);
}

/** Blocked queues, the heads that held back most, and the run's findings. */
function renderBlocked(r: Report, width: number): Display[] {
  const out: Display[] = [];
  const blocked = r.queues.filter((q) => q.blockedHours > 0);
  if (blocked.length === 0) return out;
  out.push(colour.bold('Blocked queues'));
  for (const q of blocked) {
    const starved = q.starvedHours > 0 ? `, starved ${q.starvedHours} h with ${q.starvedIdleGpus} GPUs free on average` : '';
    out.push(display`  ${q.quota} (${q.strategy}): a blocked head held the queue ${q.blockedHours} h, ${q.heldBackGpuHours} GPU-h held back${starved}`);
    for (const x of q.reasons.slice(0, 4)) out.push(display`    ${colour.dim('·')} ${x.code} ${x.hours} h: ${x.message}`);
  }
  if (r.blockedHeads.length) {
    out.push(
      fitTable(
        ['blocked head', 'quota', 'GPUs', 'blocked h', 'held back GPU-h', 'reasons'],
        r.blockedHeads.map((h) => [h.job, h.quota, h.gpus, h.blockedHours, h.heldBackGpuHours, [...new Set(h.reasons.map((x) => x.code))].join(', ')]),
        width,
        '',
      ),
    );
  }
  for (const f of r.findings) out.push(display`  ${colour.bold(f.severity)} ${f.code} ${f.quota}: ${f.message}`, display`    hint: ${f.hint}`);
  return out;
}
