/**
 * `standings: derive` (a real cluster's snapshot): the quota tree decides which jobs run
 * within their guarantees — highest priority, then longest running, stay in-quota; a job
 * over a guarantee borrows where selfPreemption.highPriority lets it and the quotas above
 * have room, otherwise it runs idle — each one a located warning. Without it the contract
 * stands: unstated standings are in-quota and a quota over its min is refused.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { clusterDoc, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const TREE = policyText(
  quotaTreeDoc(rootQuotaEntry(24, quotaEntry('A', 8, { more: 'selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }' }) + quotaEntry('B', 8), 'P')),
  workspaceDoc(['A', 'B', 'P'], { name: 'w' }),
);

/** A snapshot of 4 nodes of 8 GPUs; `jobs` are YAML flow maps (name, quota, priority, gpus, startedAt, standing?). */
function snapshot(standings: string, jobs: Array<{ name: string; quota: string; priority: number; gpu: number; started: string; standing?: string }>): string {
  const lines = jobs.map(
    (j, i) =>
      `    - { name: ${j.name}, workspace: w, quota: ${j.quota}, module: DLC, priority: ${j.priority}, pods: 1, resources: { gpu: ${j.gpu} }, startedAt: "2026-11-23T${j.started}:00Z", placement: [ { node: n${i}, gpuCount: ${j.gpu} } ]${j.standing ? `, standing: ${j.standing}` : ''} }`,
  );
  const body = `${standings ? `  standings: ${standings}\n` : ''}  nodeGroups: [ { prefix: n, count: ${Math.max(4, jobs.length)}, gpus: 8, pool: p } ]\n  jobs:\n${lines.join('\n')}\n`;
  return clusterDoc(body, { name: 'live', at: '2026-11-23T12:00:00Z' });
}

function load(cluster: string) {
  const { policy, findings } = loadPolicy([
    { path: 'tree.yaml', text: TREE },
    { path: 'cluster.yaml', text: cluster },
  ]);
  const standing = new Map(policy?.cluster?.jobs.map((j) => [j.name, `${j.standing}/${j.idleResources}`]));
  return { policy, findings, standing };
}

describe('standings: derive', () => {
  const jobs = [
    { name: 'a-train', quota: 'A', priority: 7, gpu: 8, started: '01:00' },
    { name: 'a-serve', quota: 'A', priority: 6, gpu: 4, started: '02:00' },
    { name: 'a-debug', quota: 'A', priority: 2, gpu: 2, started: '03:00' },
    { name: 'b-old', quota: 'B', priority: 3, gpu: 8, started: '01:00' },
    { name: 'b-new', quota: 'B', priority: 3, gpu: 4, started: '05:00' },
  ];

  it('keeps the most important and oldest in quota, lets highPriority jobs borrow, and runs the rest idle', () => {
    const { findings, standing } = load(snapshot('derive', jobs));
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(Object.fromEntries(standing)).toEqual({
      'a-train': 'in-quota/none',
      // Priority 6 is in A's highPriority 6-9 and P has room: it borrows.
      'a-serve': 'borrowing/none',
      // Priority 2 may not borrow: idle, on capacity beyond the tree.
      'a-debug': 'idle/acceptable',
      // Same priority: the longer-running job keeps the guarantee.
      'b-old': 'in-quota/none',
      'b-new': 'idle/acceptable',
    });
  });

  it('says so for every job it does not leave in quota, at the job', () => {
    const { findings } = load(snapshot('derive', jobs));
    const warned = findings.filter((f) => f.code === 'policy/derived-standing');
    expect(warned.map((f) => [f.file, f.line, f.path])).toEqual([
      ['cluster.yaml', 10, 'spec.jobs[1]'],
      ['cluster.yaml', 11, 'spec.jobs[2]'],
      ['cluster.yaml', 13, 'spec.jobs[4]'],
    ]);
    // The text is the behaviour here: each warning says which standing the job gets, and why.
    expect(warned[0]!.message).toMatch(/a-serve.*runs borrowing \(its priority 6 is in A's selfPreemption.highPriority 6-9/);
    expect(warned[1]!.message).toMatch(/a-debug.*does not let it borrow \(priority 2 is not in A's selfPreemption.highPriority 6-9\).*runs idle/);
    expect(warned[2]!.message).toMatch(/b-new.*B's selfPreemption.highPriority: it has no selfPreemption/);
  });

  it('runs a would-be borrower idle when the quota above has no room to lend', () => {
    const full = [...jobs.slice(0, 2), { name: 'b-big', quota: 'B', priority: 8, gpu: 8, started: '01:00' }, { name: 'p-own', quota: 'P', priority: 9, gpu: 8, started: '01:00' }];
    const { findings, standing } = load(snapshot('derive', full));
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(standing.get('a-serve')).toBe('idle/acceptable');
    // The text is the behaviour here: the warning says why the job runs idle.
    expect(findings.find((f) => f.code === 'policy/derived-standing' && f.message.includes('a-serve'))!.message).toMatch(/quota "P" above it has no room to lend/);
  });

  it('lets borrowing.priority widen who borrows, and keeps every max on the path (SEMANTICS 3, 5.2)', () => {
    // B: min 8, max 12, any priority borrows. b-old fills its guarantee; b-new (4 GPUs) borrows up
    // to the ceiling (12 of 12); b-late (2 GPUs) fits neither: B's max is full, so it runs idle.
    const tree = policyText(
      quotaTreeDoc(rootQuotaEntry(24, quotaEntry('A', 8) + quotaEntry('B', 8, { more: 'max: { gpu: 12 }, borrowing: { priority: 1-9 }' }), 'P')),
      workspaceDoc(['A', 'B', 'P'], { name: 'w' }),
    );
    const { policy, findings } = loadPolicy([
      { path: 'tree.yaml', text: tree },
      {
        path: 'cluster.yaml',
        text: snapshot('derive', [
          { name: 'b-old', quota: 'B', priority: 3, gpu: 8, started: '01:00' },
          { name: 'b-new', quota: 'B', priority: 3, gpu: 4, started: '02:00' },
          { name: 'b-late', quota: 'B', priority: 3, gpu: 2, started: '03:00' },
        ]),
      },
    ]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(Object.fromEntries(policy!.cluster!.jobs.map((j) => [j.name, j.standing]))).toEqual({ 'b-old': 'in-quota', 'b-new': 'borrowing', 'b-late': 'idle' });
    const late = findings.find((f) => f.code === 'policy/derived-standing' && f.message.includes('b-late'))!;
    expect(late.message).toMatch(/quota "B"'s max of 12 GPUs/);
  });

  it('keeps a stated standing and counts it first', () => {
    const stated = [
      { name: 'a-stated', quota: 'A', priority: 1, gpu: 8, started: '06:00', standing: 'in-quota' },
      { name: 'a-top', quota: 'A', priority: 9, gpu: 4, started: '00:00' },
    ];
    const { findings, standing } = load(snapshot('derive', stated));
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(standing.get('a-stated')).toBe('in-quota/none');
    expect(standing.get('a-top')).toBe('borrowing/none');
  });

  it('is off by default: the same snapshot with unstated standings is refused as over quota (SEMANTICS 2)', () => {
    for (const mode of ['', 'stated']) {
      const { policy, findings } = load(snapshot(mode, jobs));
      expect(policy).toBeUndefined();
      expect(findings.some((f) => f.code === 'policy/over-quota')).toBe(true);
    }
  });
});
