/**
 * `--timings` (or QUOTIENT_TIMINGS=1): each stage of every policy the command loaded and
 * opened, and the answers, timed (policy/stages.ts), printed on stderr when the command
 * ends. One line per load, in the order the stages ran; answers summed on a line of
 * their own.
 */
import type { StageTiming } from '../policy/stages.js';
import { display } from '../model/display-text.js';
import { log } from './output.js';

/** The lines `--timings` prints for `timings` (empty when none were recorded). */
export function timingLines(timings: readonly StageTiming[]): string[] {
  const loads: StageTiming[][] = [];
  let answers = 0;
  let answerMs = 0;
  for (const t of timings) {
    if (t.stage === 'answer') {
      answers++;
      answerMs += t.ms;
      continue;
    }
    // Every load starts with `parse` (or `cache`: the compiled-policy cache served it); a stage before any (a library caller's) starts a row too.
    if (t.stage === 'parse' || t.stage === 'cache' || loads.length === 0) loads.push([]);
    loads.at(-1)!.push(t);
  }
  const ms = (x: number): string => `${x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US')} ms`;
  const lines = loads.map(
    (l) => `timings: ${l.map((t) => `${t.stage} ${ms(t.ms)}${t.findings ? ` (${t.findings} finding${t.findings === 1 ? '' : 's'})` : ''}`).join(', ')}; total ${ms(l.reduce((s, t) => s + t.ms, 0))}`,
  );
  if (answers > 0) lines.push(`timings: answer ${answers} × ${ms(answerMs / answers)} = ${ms(answerMs)}`);
  return lines;
}

/** Prints the timing lines on stderr. */
export function printTimings(timings: readonly StageTiming[]): void {
  for (const line of timingLines(timings)) log(display`${line}`);
}
