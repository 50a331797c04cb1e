/**
 * Checking one promise: fast-check generates states (promise-states.ts), the engine
 * answers the submission in each, and check-expect.ts says whether the answer keeps the
 * promise. A broken promise comes back with the shrunk state as a self-contained YAML
 * file (the policy's own documents + the generated Cluster + a WhatIf), which is
 * replayed through the whole pipeline — parse, validate, answer — to prove it
 * reproduces before it is reported.
 */
import fc from 'fast-check';
import type { Answer } from '../engine/answer.js';
import type { Session } from '../engine/session.js';
import { Session as SessionClass } from '../engine/session.js';
import { Snapshot } from '../engine/snapshot.js';
import { answerJob } from '../engine/pipeline.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel } from '../kernel/types.js';
import type { RunningJob } from '../model/policy.js';
import type { PolicyPromise } from '../model/promise.js';
import { sourceText } from '../model/source.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { clusterDoc, documentsOfKinds, toYaml, whatIfDoc } from '../policy/write/to-docs.js';
import { brokenClauses } from './check-expect.js';
import { CoverageRecorder, type PromiseCoverage } from './promise-coverage.js';
import { promiseStates, type PromiseState } from './promise-states.js';

/** States per promise when `--runs` is not given (test/unit/verify/promise-mutations.test.ts holds the tester to finding broken promises within it). */
export const DEFAULT_RUNS = 200;

export interface CheckOptions {
  runs: number;
  seed: number;
  backend?: 'wasm' | 'reference';
}

export interface Counterexample {
  /** A self-contained policy file: `quotient whatif` on it reproduces the answer. */
  yaml: string;
  /** The WhatIf's name in `yaml`. */
  query: string;
  answer: Answer;
  broken: string[];
  /** True when replaying `yaml` through the whole pipeline broke the promise again. */
  replayed: boolean;
}

export interface PromiseResult {
  promise: string;
  description?: string;
  source: string;
  status: 'held' | 'broken';
  runs: number;
  seed: number;
  /** fast-check's path to the counterexample (replay with --seed and this). */
  path?: string;
  counterexample?: Counterexample;
  /** What the states explored: distinct states, decisions, rules fired (promise-coverage.ts). */
  coverage: PromiseCoverage;
}

/** Checks one promise of the session's policy. */
export async function checkPromise(session: Session, files: InputFile[], promise: PolicyPromise, options: CheckOptions): Promise<PromiseResult> {
  const kernel = createKernel(options.backend ?? 'wasm');
  const placed = session.snapshot?.jobs ?? [];
  const evaluate = async (state: PromiseState) => evaluateState(session, kernel, promise, state);
  // Coverage counts the generated states up to the first broken one, not the shrinking steps after it.
  const coverage = new CoverageRecorder(session);
  let shrinking = false;
  const details = await fc.check(
    fc.asyncProperty(promiseStates(session.policy, placed, promise), async (state) => {
      const r = await evaluate(state);
      if (!shrinking) coverage.record(state, r.answer);
      if (r.broken.length) shrinking = true;
      return r.broken.length === 0;
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  const base = { promise: promise.name, description: promise.description, source: sourceText(promise.src), seed: details.seed, coverage: coverage.result() };
  if (!details.failed) return { ...base, status: 'held', runs: details.numRuns };
  if (!details.counterexample) throw details.errorInstance ?? new Error(`checking promise ${promise.name} failed without a counterexample`);
  const [state] = details.counterexample;
  const { answer, broken } = await evaluate(state);
  const query = `${promise.name}-counterexample`;
  const yaml = counterexampleYaml(files, promise, state, query, broken);
  const replayed = await replays(yaml, query, promise, options.backend);
  // A counterexample that the pipeline does not reproduce is a state the policy forbids:
  // a defect of the generator, never a verdict on the user's policy.
  if (!replayed) throw new Error(`the counterexample to promise "${promise.name}" did not reproduce when replayed (seed ${details.seed}); this is a bug in quotient test's state generation:\n${yaml}`);
  return { ...base, status: 'broken', runs: details.numRuns, path: details.counterexamplePath ?? undefined, counterexample: { yaml, query, answer, broken, replayed } };
}

async function evaluateState(session: Session, kernel: Kernel, promise: PolicyPromise, state: PromiseState): Promise<{ answer: Answer; broken: string[] }> {
  const policy = { ...session.policy, cluster: state.cluster };
  const built = Snapshot.build(policy, state.cluster, kernel);
  if (!built.snapshot) throw new Error(`a generated state did not load: ${built.findings.map((f) => f.message).join('; ')}`);
  const answer = await answerJob({ snapshot: built.snapshot, tables: session.tables }, promise.name, state.submit);
  const jobs = new Map<string, RunningJob>(built.snapshot.jobs.map((j) => [j.name, j]));
  return { answer, broken: brokenClauses(session.tree, jobs, promise.expect, answer) };
}

function counterexampleYaml(files: InputFile[], promise: PolicyPromise, state: PromiseState, query: string, broken: string[]): string {
  const header = [
    `# Counterexample to promise "${promise.name}" (${sourceText(promise.src)})`,
    ...broken.map((b) => `#   broken: ${b}`),
    `# Replay: quotient whatif <this file> --query ${query}`,
  ].join('\n');
  const policyDocs = documentsOfKinds(files, ['QuotaTree', 'Workspace']);
  const generated = [clusterDoc(state.cluster), whatIfDoc(query, state.submit)].map(toYaml);
  return `${header}\n${[...policyDocs, ...generated].map((d) => d.trimEnd()).join('\n---\n')}\n`;
}

async function replays(yaml: string, query: string, promise: PolicyPromise, backend: 'wasm' | 'reference' = 'wasm'): Promise<boolean> {
  const { session } = SessionClass.open([{ path: 'counterexample.yaml', text: yaml }], { backend });
  const w = session?.policy.whatIfs.find((x) => x.name === query);
  if (!session?.snapshot || !w) return false;
  const answer = await session.answerJob(query, w.submit, { estimate: false });
  const jobs = new Map(session.snapshot.jobs.map((j) => [j.name, j]));
  return brokenClauses(session.tree, jobs, promise.expect, answer).length > 0;
}
