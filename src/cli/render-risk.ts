/** The `quotient risk` table for people: the ranked jobs, then how the arrivals were asked. */
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { protectionWords, ruleWords, type RiskBody } from '../simulate/risk-document.js';
import { fitTable, terminalWidth } from './fit-table.js';
import { colour } from './output.js';

/** A share as a percentage with one decimal: `23.0 %`. */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}

/** The report as a table. */
export function renderRisk(r: RiskBody, width = terminalWidth()): Display {
  const a = r.arrivals;
  const from = a.source === 'trace' ? display`the mix of ${a.trace ?? ''}` : display`every submission the policy's workspaces may make`;
  const lines: Display[] = [
    display`${colour.bold(r.policy)}${r.as === null ? '' : display` as ${r.as}`}: preemption exposure of ${r.jobs.length} running job(s)`,
    display`  ${a.asked} arrivals (seed ${a.seed}) drawn from ${from}; ${a.preempting} would preempt (admit ${a.decisions.admit}, preempt ${a.decisions.preempt}, wait ${a.decisions.wait}, reject ${a.decisions.reject})`,
  ];
  if (r.horizon)
    lines.push(display`  over ${r.horizon.hours} h: ${r.horizon.runs} simulated runs, ${r.horizon.ratePerHour} arrivals per hour, each running ${r.horizon.meanDurationHours} h on average`);
  const head = ['#', 'job', 'quota', 'prio', 'standing', 'GPUs', 'exposure', ...(r.horizon ? [`preempted within ${r.horizon.hours} h`] : []), 'rule that exposes it', 'protected by'];
  const rows = r.jobs.map((j) => [
    j.rank,
    j.job,
    j.quota,
    j.priority,
    j.standing,
    j.gpus,
    percent(j.exposure),
    ...(j.horizon ? [`${percent(j.horizon.share)} of runs`] : []),
    ruleWords(j.rule),
    j.protection ? protectionWords(j.protection).join('; ') : j.exposure === 0 ? 'not exposed' : '-',
  ]);
  lines.push(fitTable(head, rows, width));
  if (r.hiddenJobs > 0) lines.push(colour.dim(display`  ${r.hiddenJobs} running job(s) of other teams not shown (SEMANTICS 10)`));
  return joinDisplay(lines, display`\n`);
}
