/**
 * Checking promises on worker threads: each policy is one Piscina task, so policies
 * spread over the workers (a policy's promises share its eligibility tables). Worth it when promises are many or
 * slow (large snapshots, many runs); for a handful of quick promises the workers'
 * start-up (~0.3 s each: loading the engine and the wasm kernel) costs more than it saves.
 */
import { Piscina } from 'piscina';
import { resolveWorkerFile } from '../engine/worker-file.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { PromiseResult } from './check-promise.js';
import type { PromiseTask } from './promise-worker.js';

export interface PromiseJob {
  /** Identifies the policy (its files) so a worker opens it once. */
  key: string;
  files: InputFile[];
  promises: string[];
}

/** Checks every job on `workers` threads; results come back per job, in input order. */
export async function checkPromisesInWorkers(jobs: PromiseJob[], options: { workers: number; runs: number; seed: number; backend: 'wasm' | 'reference' }): Promise<PromiseResult[][]> {
  const pool = new Piscina<PromiseTask, PromiseResult[]>({ filename: resolveWorkerFile('verify/promise-worker'), minThreads: options.workers, maxThreads: options.workers });
  try {
    return await Promise.all(jobs.map((j) => pool.run({ ...j, runs: options.runs, seed: options.seed, backend: options.backend })));
  } finally {
    await pool.destroy();
  }
}
