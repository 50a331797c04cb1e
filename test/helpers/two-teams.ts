/**
 * A small full cluster for engine and rules unit tests: Root (16 GPUs) over A (8,
 * selfPreemption 6-9 over 1-5 [DLC]) and B (8), two 8-GPU nodes, each held by one team's
 * job: a-low (A, priority 2, n-0) and b-run (B, priority 5, n-1). A priority-7 job of A
 * preempts a-low; any new job of B waits.
 */
import type { JobSpec } from '../../src/model/policy.js';
import type { Session } from '../../src/engine/session.js';
import { clusterDoc, jobEntry, jobsBlock, nodeGroupLine, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from './policy-yaml.js';
import { openSession } from './session.js';

export const TWO_TEAMS = policyText(
  quotaTreeDoc(rootQuotaEntry(16, quotaEntry('A', 8, { more: 'selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }' }) + quotaEntry('B', 8))),
  workspaceDoc(['A', 'B']),
  clusterDoc(
    nodeGroupLine(2) +
      jobsBlock(
        jobEntry('a-low', 'A', 2, 8, 'placement: [ { node: n-0, gpus: [0, 1, 2, 3, 4, 5, 6, 7] } ]'),
        jobEntry('b-run', 'B', 5, 8, 'placement: [ { node: n-1, gpus: [0, 1, 2, 3, 4, 5, 6, 7] } ]'),
      ),
  ),
);

/** A session over TWO_TEAMS (extra documents appended), on the wasm kernel unless told. */
export function twoTeams(extra = '', backend: 'wasm' | 'reference' = 'wasm'): Session {
  return openSession(extra ? `${TWO_TEAMS}---\n${extra}` : TWO_TEAMS, backend);
}

/** A submission to the two-team policy: one pod of `gpu` GPUs on `quota` at `priority`. */
export function submit(quota: 'A' | 'B', priority: number, gpu = 8, more: Partial<JobSpec> = {}): JobSpec {
  return { name: 'new', workspace: 'ws', quota, module: 'DLC', priority, pods: 1, resources: { gpu }, idleResources: 'none', src: { file: 'test', line: 1, column: 1, path: '' }, ...more };
}
