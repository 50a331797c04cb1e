/**
 * Resource vectors. GPU is a count (placement works on it), whole except for a pod that
 * shares one GPU (0.46: 460 milli-GPUs); cpu is in millicores and memory in MiB so that
 * every sum stays an exact integer. GPU sums are kept in whole milli-GPUs (`addGpu`). A
 * quota that names only `gpu` is unbounded in the others: `undefined` means "not limited
 * / not asked".
 */
export interface Resources {
  gpu: number;
  cpu?: number;
  memory?: number;
}

/** A whole GPU in milli-GPUs: a pod's share of one GPU is a whole number of these. */
export const MILLI_PER_GPU = 1000;

/** True when a per-pod GPU ask is a share of one GPU (GPU sharing) rather than whole GPUs. */
export function isGpuShare(gpu: number): boolean {
  return gpu > 0 && gpu < 1;
}

/** A pod's share of one GPU in milli-GPUs (0 when it asks whole GPUs). */
export function shareMilli(gpu: number): number {
  return isGpuShare(gpu) ? Math.round(gpu * MILLI_PER_GPU) : 0;
}

/**
 * `a + b` for GPU amounts, rounded to whole milli-GPUs: sums of shares (0.1 + 0.2) stay
 * the nearest double to the exact milli sum, so comparisons with `min` never err.
 */
export function addGpu(a: number, b: number): number {
  return Math.round((a + b) * MILLI_PER_GPU) / MILLI_PER_GPU;
}

/** GPUs as people write them: `8`, `0.46`, `2.5` (shares summed), never float noise. */
export function formatGpu(gpu: number): string {
  return String(Math.round(gpu * MILLI_PER_GPU) / MILLI_PER_GPU);
}

/** The resource names, in the order the kernel indexes them. */
export const RESOURCE_NAMES = ['gpu', 'cpu', 'memory'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/** Adds `b` times `times` into `a` (missing dimensions count as 0). */
export function addResources(a: Resources, b: Resources, times = 1): Resources {
  return {
    gpu: addGpu(a.gpu, b.gpu * times),
    cpu: (a.cpu ?? 0) + (b.cpu ?? 0) * times,
    memory: (a.memory ?? 0) + (b.memory ?? 0) * times,
  };
}

/** A zero vector. */
export function zeroResources(): Resources {
  return { gpu: 0, cpu: 0, memory: 0 };
}

/** Prints a resource vector the way policies write it: `8 GPU, 16 cpu, 64Gi`. */
export function formatResources(r: Resources): string {
  const parts = [`${formatGpu(r.gpu)} GPU`];
  if (r.cpu) parts.push(`${formatCpu(r.cpu)} cpu`);
  if (r.memory) parts.push(formatMemory(r.memory));
  return parts.join(', ');
}

/**
 * One amount of one resource, as every sentence says it: `1 GPU`, `8 GPUs`, `500m cpu`,
 * `64Gi` (a memory amount names its unit, so it needs no word).
 */
export function formatAmount(resource: ResourceName, v: number): string {
  if (resource === 'gpu') return `${v} GPU${v === 1 ? '' : 's'}`;
  return resource === 'cpu' ? `${formatCpu(v)} cpu` : formatMemory(v);
}

/** Millicores as the user would write them. */
export function formatCpu(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** MiB as the user would write them. */
export function formatMemory(mib: number): string {
  if (mib % (1024 * 1024) === 0) return `${mib / (1024 * 1024)}Ti`;
  if (mib % 1024 === 0) return `${mib / 1024}Gi`;
  return `${mib}Mi`;
}
