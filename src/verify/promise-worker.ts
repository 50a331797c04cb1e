/**
 * Piscina worker for `quotient test --workers N`: checks the promises of one policy. A
 * task carries a whole policy so that its rules' eligibility tables are built once, not
 * once per worker per promise.
 */
import { Session } from '../engine/session.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { checkPromise, type PromiseResult } from './check-promise.js';

/** One task: some promises of one policy, with the run settings. */
export interface PromiseTask {
  key: string;
  files: InputFile[];
  promises: string[];
  runs: number;
  seed: number;
  backend: 'wasm' | 'reference';
}

const sessions = new Map<string, Session>();

/** Checks the task's promises in order; the policy was validated by the caller. */
export default async function checkPromiseTask(task: PromiseTask): Promise<PromiseResult[]> {
  let session = sessions.get(task.key);
  if (!session) {
    const opened = Session.open(task.files, { backend: task.backend });
    if (!opened.session) throw new Error(`the policy did not load in the worker: ${opened.findings.map((f) => f.code).join(', ')}`);
    session = opened.session;
    sessions.set(task.key, session);
  }
  const results: PromiseResult[] = [];
  for (const name of task.promises) {
    const promise = session.policy.promises.find((p) => p.name === name);
    if (!promise) throw new Error(`no promise ${name}`);
    results.push(await checkPromise(session, task.files, promise, { runs: task.runs, seed: task.seed, backend: task.backend }));
  }
  return results;
}
