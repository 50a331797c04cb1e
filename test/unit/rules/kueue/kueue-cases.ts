/**
 * Kueue's own preemption unit tests as data (test/unit/rules/kueue/cases/*.json, written by
 * cases/translate/translate.mjs from Kueue's Go test files at ff69552), read into KueueState.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KueuePreemptor, KueueState } from '../../../../src/rules/kueue/kueue-state.js';
import { kueueState, workload, type NodeSpec, type WorkloadSpec } from './kueue-fixtures.js';

export interface KueueCase {
  name: string;
  nodes: NodeSpec[];
  workloads: WorkloadSpec[];
  incoming: WorkloadSpec;
  needPreemption: string[];
  /** How many workloads Kueue's test counts as preempted (already-evicted targets included). */
  wantPreempted: number;
  /** The victims Kueue's test marks Preempted, with their reasons. */
  want: { workload: string; reason: string }[];
}

interface CaseFile {
  source: string;
  cases: KueueCase[];
  leftOut: { name: string; reason: string }[];
}

export function readCases(file: string): CaseFile {
  return JSON.parse(readFileSync(join('test/unit/rules/kueue/cases', file), 'utf8')) as CaseFile;
}

export function caseState(c: KueueCase): { state: KueueState; preemptor: KueuePreemptor } {
  return { state: kueueState(c.nodes, c.workloads), preemptor: { workload: workload(c.incoming) } };
}
