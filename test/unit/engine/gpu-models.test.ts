/**
 * GPU models: a job's gpuModels keep its pods on nodes of those models; a model no node
 * has is a reject naming the pool's models; a job that waits only because of its model
 * says so.
 */
import { describe, expect, it } from 'vitest';
import { openSession } from '../../helpers/session.js';
import { clusterDoc, jobEntry, jobsBlock, policyText, quotaEntry, quotaTreeDoc, workspaceDoc } from '../../helpers/policy-yaml.js';

const POLICY = policyText(
  quotaTreeDoc(quotaEntry('A', 32, { root: true })),
  workspaceDoc(['A']),
  clusterDoc(
    `  nodes:
    - { name: a100-0, gpus: 8, pool: p, gpuModel: NVIDIA-A100 }
    - { name: a100-1, gpus: 8, pool: p, gpuModel: NVIDIA-A100 }
    - { name: h100-0, gpus: 8, pool: p, gpuModel: NVIDIA-H100 }
    - { name: h100-1, gpus: 8, pool: p, gpuModel: NVIDIA-H100 }
` + jobsBlock(jobEntry('busy', 'A', 5, 8, 'gpuModels: [NVIDIA-A100], placement: [ { node: a100-0, gpuCount: 8 } ]')),
  ),
);

describe('GPU models', () => {
  const s = openSession(POLICY);
  const job = (models: string[] | undefined, pods = 1) => ({ ...s.policy.cluster!.jobs[0]!, name: 'new', priority: 5, pods, gpuModels: models });

  it('places pods only on nodes of the models the job asks for', async () => {
    const h = await s.answerJob('q', job(['NVIDIA-H100'], 2));
    expect(h.decision).toBe('admit');
    expect(h.placement.map((p) => p.node).sort()).toEqual(['h100-0', 'h100-1']);
    const a = await s.answerJob('q', job(['NVIDIA-A100']));
    expect(a.placement.map((p) => p.node)).toEqual(['a100-1']);
  });

  it('says the model blocks a job that would fit on other models', async () => {
    const a = await s.answerJob('q', job(['NVIDIA-A100'], 2));
    expect(a.decision).toBe('wait');
    const blocked = a.reasons.find((r) => r.code === 'placement/gpu-model');
    // The text is the behaviour here: how many pods fit on the model asked for, and on any model.
    expect(blocked?.message).toMatch(/the GPU model blocks it: 1 of its 2 pod\(s\) fit on free GPUs of NVIDIA-A100; 3 would fit on free GPUs of any model/);
    // Without a model the same job fits.
    expect((await s.answerJob('q', job(undefined, 2))).decision).toBe('admit');
  });

  it("rejects a model no node has, naming the pool's models", async () => {
    const v = await s.answerJob('q', job(['Tesla-V100-16G']));
    expect(v.decision).toBe('reject');
    expect(v.reasons[0]).toMatchObject({ code: 'placement/gpu-model' });
    // The text is the behaviour here: it names the pool's models.
    expect(v.reasons[0]!.message).toMatch(/the GPU model blocks it: the job asks for Tesla-V100-16G, and no schedulable node of pool "p" has it \(its nodes have NVIDIA-A100, NVIDIA-H100\)/);
  });

  it('rejects a gang the nodes of its models could never hold, though the whole pool could (SEMANTICS 3)', async () => {
    // Two A100 nodes hold two 8-GPU pods at most; the four nodes of the pool would hold four.
    const wide = await s.answerJob('q', job(['NVIDIA-A100'], 3));
    expect(wide.decision).toBe('reject');
    expect(wide.reasons[0]).toMatchObject({ code: 'placement/never-fits-pool' });
    expect(wide.reasons[0]!.message).toMatch(/its 2 node\(s\) of NVIDIA-A100 have 16 GPUs and room for only 2 pod\(s\)/);
    expect((await s.answerJob('q', job(undefined, 3))).decision).not.toBe('reject');
  });
});
