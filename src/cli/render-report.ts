/** A simulation report for people: totals, per team, per quota, preemptions by rule, the spot market. */
import Table from 'cli-table3';
import type { GroupFigures, Report } from '../simulate/report.js';
import { colour } from './output.js';

const style = { head: [], border: [] };

function groupRow(g: GroupFigures): Array<string | number> {
  return [g.name, g.jobs, g.completed, g.unfinished, g.endedPreempted, g.rejected, g.wait.p50, g.wait.p95, g.wait.max, g.gpuHours.total, g.preempted, g.lostGpuHours, g.restarts];
}

const GROUP_HEAD = ['', 'jobs', 'done', 'unfinished', 'ended preempted', 'rejected', 'wait p50 h', 'p95 h', 'max h', 'GPU-h', 'preempted', 'lost GPU-h', 'restarts'];

/** The report as text tables. */
export function renderReport(r: Report): string {
  const out: string[] = [];
  const t = r.totals;
  out.push(colour.bold(`Simulation of ${r.policy}`));
  out.push(
    `  workload: ${r.workload.source}${r.workload.synthetic ? ' (synthetic)' : ''}, ${r.workload.jobs} jobs${r.workload.rejectedRows ? `, ${r.workload.rejectedRows} row(s) left out` : ''}; seed ${r.seed}`,
  );
  out.push(
    `  cluster: ${r.cluster.nodes} nodes, ${r.cluster.gpus} GPUs; ${r.hours} simulated hours${r.until !== null ? ` (stopped at --until ${r.until} h)` : ''}${r.cycleSeconds ? `; queues tried every ${r.cycleSeconds} s` : ''}`,
  );
  out.push(`  GPU-hours: ${t.usedGpuHours} used + ${t.idleGpuHours} idle = ${t.capacityGpuHours} capacity; utilisation ${(t.utilisation * 100).toFixed(2)}%`);
  out.push(
    `  jobs: ${t.completed} done, ${t.unfinished} unfinished, ${t.endedPreempted} ended preempted, ${t.rejected} rejected; ${t.preemptions} preemption(s), ${t.restarts} restart(s), ${t.lostGpuHours} GPU-hours lost`,
  );
  out.push(`  queue wait (h): p50 ${t.wait.p50}, p95 ${t.wait.p95}, max ${t.wait.max} over ${t.wait.started} started job(s)`);
  out.push('');
  out.push(colour.bold('Teams'));
  const teams = new Table({ head: ['team', ...GROUP_HEAD.slice(1)], style });
  for (const g of r.teams) teams.push(groupRow(g));
  out.push(teams.toString());
  out.push(colour.bold('Quotas'));
  const quotas = new Table({ head: ['quota', 'min', 'guarantee used', ...GROUP_HEAD.slice(1)], style });
  for (const q of r.quotas) {
    const row = groupRow(q);
    quotas.push([row[0]!, q.minGpu, `${(q.guaranteeUsed * 100).toFixed(1)}%`, ...row.slice(1)]);
  }
  out.push(quotas.toString());
  if (r.preemptions.byRule.length) {
    out.push(colour.bold('Preemptions by rule'));
    const rules = new Table({ head: ['rule', 'source', 'count', 'lost GPU-h'], style });
    for (const x of r.preemptions.byRule) rules.push([x.rule, x.source, x.count, x.lostGpuHours]);
    out.push(rules.toString());
    const victims = new Table({ head: ['victim team', 'count', 'lost GPU-h'], style });
    for (const x of r.preemptions.byVictimTeam) victims.push([x.team, x.count, x.lostGpuHours]);
    out.push(victims.toString());
  }
  if (r.spot.byInstanceType.length) {
    out.push(colour.bold(`Spot market${r.spot.synthetic ? ' (synthetic series)' : ''}`));
    const spot = new Table({ head: ['instance type', 'pay-as-you-go /h', 'jobs', 'GPU-h', 'cost', 'pay-as-you-go', 'saved', 'released: price', 'inventory'], style });
    for (const x of r.spot.byInstanceType) spot.push([x.name, x.payAsYouGoPrice, x.jobs, x.gpuHours, x.cost, x.payAsYouGo, x.saved, x.interruptions.price, x.interruptions.inventory]);
    out.push(spot.toString());
  }
  if (r.rejections.length) {
    out.push(colour.bold('Rejected by the engine'));
    for (const x of r.rejections.slice(0, 10)) out.push(`  ${x.job} (${x.quota}) at hour ${x.hour}: ${x.reason}`);
    if (r.totals.rejected > 10) out.push(`  … and ${r.totals.rejected - 10} more (see --json)`);
  }
  for (const n of [...r.workload.notes, ...r.notes]) out.push(colour.dim(`note: ${n}`));
  return out.join('\n');
}
