import { describe, expect, it } from 'vitest';
import { learnPoolWorkload, poolWorkload, toWorkloadShape } from '../../../src/engine/pool-workload.js';
import type { Pool } from '../../../src/model/policy.js';

const pool = (workload?: Pool['workload']): Pool => ({
  name: 'p',
  type: 'general',
  strategy: 'fragmentation',
  topology: 'prefer',
  victimOrder: [],
  tree: 't',
  src: { file: 'f', line: 1, column: 1, path: '' },
  ...(workload ? { workload } : {}),
});

describe('pool workload', () => {
  it('turns a typical pod into a kernel shape, a share as one GPU with its milli', () => {
    expect(toWorkloadShape({ gpu: 4, cpu: 8000, memory: 1024, weight: 2 })).toEqual({ gpu: 4, cpu: 8000, mem: 1024, weight: 2 });
    expect(toWorkloadShape({ gpu: 0.5, cpu: 0, memory: 0, weight: 1 })).toEqual({ gpu: 1, milli: 500, cpu: 0, mem: 0, weight: 1 });
  });

  it("takes the policy's workload when it gives one, the same array every time", () => {
    const p = pool([{ gpu: 8, cpu: 0, memory: 0, weight: 1 }]);
    learnPoolWorkload(p, [{ pods: 4, resources: { gpu: 1 } }]);
    expect(poolWorkload(p)).toEqual([{ gpu: 8, cpu: 0, mem: 0, weight: 1 }]);
    expect(poolWorkload(p)).toBe(poolWorkload(p));
  });

  it("learns a pool's workload from its running pods, and knows nothing before", () => {
    const p = pool();
    expect(poolWorkload(p)).toEqual([]);
    learnPoolWorkload(p, [
      { pods: 3, resources: { gpu: 1 } },
      { pods: 1, resources: { gpu: 8 } },
    ]);
    expect(
      poolWorkload(p)
        .map((s) => s.gpu)
        .sort(),
    ).toEqual([1, 8]);
  });
});
