/**
 * Resource vectors. GPU is an integer count (placement works on it); cpu is in
 * millicores and memory in MiB so that every sum stays an exact integer. A quota that
 * names only `gpu` is unbounded in the others: `undefined` means "not limited / not asked".
 */
export interface Resources {
  gpu: number;
  cpu?: number;
  memory?: number;
}

/** The resource names, in the order the kernel indexes them. */
export const RESOURCE_NAMES = ['gpu', 'cpu', 'memory'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/** Adds `b` times `times` into `a` (missing dimensions count as 0). */
export function addResources(a: Resources, b: Resources, times = 1): Resources {
  return {
    gpu: a.gpu + b.gpu * times,
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
  const parts = [`${r.gpu} GPU`];
  if (r.cpu) parts.push(`${formatCpu(r.cpu)} cpu`);
  if (r.memory) parts.push(formatMemory(r.memory));
  return parts.join(', ');
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
