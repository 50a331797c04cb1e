import { describe, expect, it } from 'vitest';
import { gangRequest } from '../../../src/engine/gang.js';
import type { Pool } from '../../../src/model/policy.js';

const pool = (over: Partial<Pool> = {}): Pool => ({
  name: 'p',
  type: 'general',
  strategy: 'binpack',
  topology: 'prefer',
  victimOrder: ['priority', 'lost-work', 'gpus', 'count', 'recency'],
  tree: 't',
  src: { file: 'f', line: 1, column: 1, path: '' },
  ...over,
});

describe('gangRequest', () => {
  it("asks the job's pods of its GPUs, cpu and memory on the pool it is given", () => {
    expect(gangRequest({ pods: 3, resources: { gpu: 4, cpu: 2000, memory: 1024 } }, 2, pool())).toEqual({ pods: 3, gpu: 4, cpu: 2000, mem: 1024, pool: 2, strategy: 'binpack', strict: false });
  });

  it('asks one GPU slot with its milli for a share of one GPU', () => {
    expect(gangRequest({ pods: 1, resources: { gpu: 0.25 } }, 0, pool())).toMatchObject({ gpu: 1, milli: 250, cpu: 0, mem: 0 });
  });

  it("carries strict topology, the allowed GPU models and a fragmentation pool's workload", () => {
    expect(gangRequest({ pods: 1, resources: { gpu: 8 } }, 0, pool({ topology: 'strict' }), 0b10)).toMatchObject({ strict: true, models: 0b10 });
    const frag = gangRequest({ pods: 1, resources: { gpu: 2 } }, 0, pool({ strategy: 'fragmentation', workload: [{ gpu: 2, cpu: 0, memory: 0, weight: 1 }] }));
    expect(frag.workload).toEqual([{ gpu: 2, cpu: 0, mem: 0, weight: 1 }]);
    expect('workload' in gangRequest({ pods: 1, resources: { gpu: 2 } }, 0, pool())).toBe(false);
  });
});
