/**
 * `--submit key=value ...` → a job as plain values, the `submit` of a request
 * (engine/request.ts): it meets the rules a WhatIf file's `submit` meets, and findings
 * about it name `--submit` and the key.
 */
import { QuotientError } from '../errors.js';
import { onceEach } from './flags.js';

const KEYS: Record<string, 'string' | 'number' | 'resource' | 'models'> = {
  name: 'string',
  workspace: 'string',
  quota: 'string',
  module: 'string',
  priority: 'number',
  pods: 'number',
  gpu: 'resource',
  cpu: 'resource',
  memory: 'resource',
  idleResources: 'string',
  submittedBy: 'string',
  maxRuntime: 'string',
  // The GPU models the pods may run on: `gpuModel=A` (repeatable) or `gpuModels=A|B`; commas already separate pairs.
  gpuModel: 'models',
  gpuModels: 'models',
};

/** The flag values as a job (a request's `submit`); `submittedBy` defaults to the `--as` user. */
export function submitFlags(pairs: string[], asUser?: string): Record<string, unknown> {
  const job: Record<string, unknown> = { name: 'submitted-job', ...(asUser !== undefined ? { submittedBy: asUser } : {}) };
  const resources: Record<string, unknown> = {};
  const once = onceEach('--submit', 'cli/bad-submit', 'give each key once (only gpuModel repeats: each adds a model)');
  for (const raw of pairs.flatMap((p) => p.split(','))) {
    const pair = raw.trim();
    if (!pair) continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new QuotientError('cli/bad-submit', `--submit expects key=value, got "${pair}"`, `keys: ${Object.keys(KEYS).join(', ')}`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const kind = KEYS[key];
    if (!kind) throw new QuotientError('cli/bad-submit', `--submit has no key "${key}"`, `keys: ${Object.keys(KEYS).join(', ')}`);
    if (kind !== 'models') once(key);
    const typed = kind === 'string' ? value : /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (kind === 'resource') resources[key] = typed;
    else if (kind === 'models') job.gpuModels = [...((job.gpuModels as string[] | undefined) ?? []), ...value.split('|').map((m) => m.trim())];
    else job[key] = typed;
  }
  job.resources = resources;
  return job;
}
