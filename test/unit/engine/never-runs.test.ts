import { describe, expect, it } from 'vitest';
import { answerContext } from '../../../src/engine/answer-context.js';
import { emptyPoolFit, neverRuns } from '../../../src/engine/never-runs.js';
import { gangRequest } from '../../../src/engine/gang.js';
import { clusterDoc, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';
import { openSession } from '../../helpers/session.js';
import { codesOf } from '../../helpers/codes.js';
import { submit, twoTeams } from '../../helpers/two-teams.js';

describe('neverRuns (SEMANTICS 3: reject only what could never run)', () => {
  const s = twoTeams();
  const engine = { snapshot: s.snapshot!, tables: s.tables };
  const never = (job: ReturnType<typeof submit>) => neverRuns(answerContext(engine, 'q', job));

  it('is nothing for a job some state of the cluster could run, however full it is now', () => {
    expect(never(submit('B', 1))).toBeUndefined();
  });

  it('rejects a gang no empty pool could hold', () => {
    expect(codesOf(never(submit('A', 7, 8, { pods: 3 }))!)).toEqual(['placement/never-fits-pool']);
  });

  it('rejects a job more than its quota guarantees that may neither borrow nor run idle', () => {
    expect(codesOf(never(submit('B', 5, 8, { pods: 2 }))!)).toEqual(['quota/never-fits']);
  });

  it('lets such a job borrow, or run idle, instead of rejecting it', () => {
    expect(never(submit('A', 7, 8, { pods: 2 }))).toBeUndefined();
    expect(never(submit('B', 5, 8, { pods: 2, idleResources: 'acceptable' }))).toBeUndefined();
  });
});

describe('emptyPoolFit (counted over kinds of node)', () => {
  // Four kinds of node in pool p (pool 1 has none): the count over kinds is the per-node walk’s.
  const s = openSession(
    policyText(
      quotaTreeDoc(rootQuotaEntry(48, quotaEntry('A', 24) + quotaEntry('B', 24))),
      workspaceDoc(['A', 'B']),
      clusterDoc(
        '  nodeGroups:\n' +
          '    - { prefix: a-, count: 3, gpus: 8, cpu: 32, memory: 256Gi, pool: p }\n' +
          '    - { prefix: b-, count: 2, gpus: 4, cpu: 96, memory: 64Gi, pool: p }\n' +
          '    - { prefix: c-, count: 1, gpus: 8, pool: p }\n' +
          '    - { prefix: d-, count: 2, gpus: 8, cpu: 8, memory: 32Gi, pool: p }\n',
      ),
    ),
  );
  const snap = s.snapshot!;
  /** The walk over every node emptyPoolFit made before it counted kinds. */
  const walk = (req: { pool: number; gpu: number; milli?: number; cpu: number; mem: number }) => {
    let total = 0;
    const byGpu = { pods: 0, nodes: 0, gpus: 0 };
    let maxCpu = 0;
    let maxMem = 0;
    snap.cluster.nodes.forEach((node, i) => {
      if (snap.state.nodes[i]!.pool !== req.pool) return;
      const gpuFits = req.milli ? node.gpus * Math.floor(1000 / req.milli) : Math.floor(node.gpus / req.gpu);
      const cpuFits = req.cpu > 0 && node.cpu !== undefined ? Math.floor(node.cpu / req.cpu) : Infinity;
      const memFits = req.mem > 0 && node.memory !== undefined ? Math.floor(node.memory / req.mem) : Infinity;
      total += Math.min(gpuFits, cpuFits, memFits);
      byGpu.pods += gpuFits;
      byGpu.nodes++;
      byGpu.gpus += node.gpus;
      maxCpu = Math.max(maxCpu, node.cpu ?? Infinity);
      maxMem = Math.max(maxMem, node.memory ?? Infinity);
    });
    return { total, byGpu, maxCpu, maxMem };
  };

  it('gives the per-node walk’s counts for every pool and pod shape', () => {
    let compared = 0;
    for (const pool of [0, 1])
      for (const gpu of [1, 2, 4, 8])
        for (const cpu of [0, 3, 20, 50])
          for (const mem of [0, 2 ** 30, 40 * 2 ** 30]) {
            const req = { ...gangRequest(submit('A', 5, gpu), pool, snap.policy.pools[0]!), pool, gpu, cpu, mem };
            expect(emptyPoolFit(snap, req)).toEqual(walk(req));
            compared++;
          }
    const shared = { ...gangRequest(submit('A', 5, 1), 0, snap.policy.pools[0]!), milli: 300 };
    expect(emptyPoolFit(snap, shared)).toEqual(walk(shared));
    expect(compared).toBe(96);
  });
});
