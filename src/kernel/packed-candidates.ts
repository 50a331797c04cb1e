/**
 * A candidate list's columns, kept beside it: the job indices and masks of a `Candidate[]`
 * in typed arrays, made by whoever builds the list (engine/preemption-problem.ts), so the
 * wasm kernel copies them into its memory without reading one object per candidate (at
 * 100,000 nodes a distinct question's problem has ~86,000 candidates, and reading them
 * was the largest JS cost of its victim search). The list stays the contract
 * (`VictimAlternative.candidates`): a kernel that does not look here, the TypeScript twin
 * included, reads the objects, which say the same.
 */
import type { Candidate } from './types.js';

/** Columns of a candidate list: entry i is candidates[i]'s job and constraintMask. */
export interface CandidateColumns {
  readonly jobs: Int32Array;
  readonly masks: Int32Array;
}

const columnsOf = new WeakMap<readonly Candidate[], CandidateColumns>();

/** Keeps `columns` beside `candidates`; they must hold the same entries, and neither may change afterwards. */
export function packCandidates(candidates: readonly Candidate[], columns: CandidateColumns): void {
  if (columns.jobs.length !== candidates.length || columns.masks.length !== candidates.length) throw new Error('packCandidates: the columns and the list differ in length');
  columnsOf.set(candidates, columns);
}

/** The columns kept beside `candidates`, if any. */
export function packedCandidates(candidates: readonly Candidate[]): CandidateColumns | undefined {
  return columnsOf.get(candidates);
}
