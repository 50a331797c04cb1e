/**
 * Pipelines as data (after OPA's compiler): an ordered list of named stages, run by one
 * loop that tags every finding with the stage that made it, times each stage, and stops
 * after the first stage that found an error, so a later stage never runs on input it
 * cannot trust. Loading (load-policy.ts: parse, validate, build, snapshot, scale) and
 * opening a session (engine/session.ts: compile, place, tabulate) are such lists.
 */
import { hasErrors, type Finding } from '../errors.js';
import { Collector } from './collector.js';

/**
 * Every stage's name, in the order a policy goes through them. `cache` stands for the loading
 * stages when the compiled-policy cache served them (engine/policy-cache.ts); `answer` is the
 * time spent answering.
 */
export type StageName = 'cache' | 'parse' | 'validate' | 'build' | 'snapshot' | 'scale' | 'compile' | 'place' | 'tabulate' | 'answer';

/** One named stage: reads what the stages before it left in `state`, fills its own part, records findings into `c`. */
export interface Stage<S> {
  name: StageName;
  run(state: S, c: Collector): void;
}

/** How long one stage took, and what it found. */
export interface StageTiming {
  stage: StageName;
  ms: number;
  findings: number;
}

/** `findings`, each tagged with the stage that found it (kept when already set). */
export function tagStage(findings: Finding[], stage: StageName): Finding[] {
  return findings.map((f) => (f.stage ? f : { ...f, stage }));
}

/**
 * Runs `stages` in order over `state`: every finding tagged with its stage, each stage
 * timed into `timings` (and the process's record, stage-timings below). Stops after the
 * first stage with an error (`failed`).
 */
export function runStages<S>(stages: readonly Stage<S>[], state: S, timings: StageTiming[]): { findings: Finding[]; failed: boolean } {
  const findings: Finding[] = [];
  for (const stage of stages) {
    const c = new Collector();
    const start = performance.now();
    stage.run(state, c);
    recordTiming(timings, { stage: stage.name, ms: performance.now() - start, findings: c.findings.length });
    // One by one: a stage may find hundreds of thousands (a spread of them overflows the stack).
    for (const f of tagStage(c.findings, stage.name)) findings.push(f);
    if (hasErrors(c.findings)) return { findings, failed: true };
  }
  return { findings, failed: false };
}

/**
 * Every stage timed in this process, in order, when timings are on (`QUOTIENT_TIMINGS=1`
 * or the CLI's `--timings`): the CLI prints them on stderr when a command ends.
 */
const processTimings: StageTiming[] = [];
let recording = process.env.QUOTIENT_TIMINGS === '1';

/** Turns the process's record on (the CLI's `--timings`). */
export function recordTimings(on = true): void {
  recording = on;
}

/** The stages timed in this process so far (empty unless recording). */
export function timingsSoFar(): readonly StageTiming[] {
  return processTimings;
}

/** Adds one timing to `into`, and to the process's record when recording. */
export function recordTiming(into: StageTiming[] | undefined, t: StageTiming): void {
  into?.push(t);
  if (recording) processTimings.push(t);
}
