/** The `quotient risk` table for people: the ranked jobs, then how the arrivals were asked. */
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { protectionWords, type RiskBody } from '../simulate/risk-document.js';
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
  const head = ['job', 'quota', 'prio', 'standing', 'GPUs', 'exposure', ...(r.horizon ? [`hit in ${r.horizon.hours} h`] : []), 'exposed by', 'protected by'];
  // Rows in rank order (the JSON's `rank`).
  const rows = r.jobs.map((j) => [
    j.job,
    j.quota,
    j.priority,
    j.standing,
    j.gpus,
    percent(j.exposure),
    ...(j.horizon && r.horizon ? [`${j.horizon.runs}/${r.horizon.runs} runs`] : []),
    j.rule?.rule ?? (j.horizon?.rule ? `${j.horizon.rule.rule} (over time)` : '-'),
    protectionCell(j),
  ]);
  lines.push(fitTable(head, rows, width));
  // The rules' policy lines once each, under the table, so the table stays narrow.
  const rules = new Map<string, { source: string; jobs: number }>();
  for (const j of r.jobs) {
    const rule = j.rule ?? j.horizon?.rule;
    if (!rule) continue;
    const seen = rules.get(rule.rule) ?? { source: rule.source, jobs: 0 };
    seen.jobs++;
    rules.set(rule.rule, seen);
  }
  for (const [rule, { source, jobs }] of rules) lines.push(display`  ${colour.cyan(rule)}  ${colour.dim(source)}  (exposes ${jobs} job(s) most)`);
  if (r.hiddenJobs > 0) lines.push(colour.dim(display`  ${r.hiddenJobs} running job(s) of other teams not shown (SEMANTICS 10)`));
  return joinDisplay(lines, display`\n`);
}

/** What protects the job: the computed changes, or why there are none. */
function protectionCell(j: RiskBody['jobs'][number]): string {
  if (j.protection) return protectionWords(j.protection).join('; ');
  // Exposed over the horizon only: no arrival asked now preempts it, so there is nothing to compute a protection against.
  if (j.horizon && j.horizon.runs > 0) return 'only over time';
  return 'not exposed';
}
