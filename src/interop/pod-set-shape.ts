/**
 * A pod set (a Kueue Workload's podSet, or a manifest's pod template and its count) → the
 * shape of its pods: count, GPUs, cpu and memory per pod, read as a pod's are
 * (kubectl-pod.ts). `import kubectl` reads a Workload's podSets through it
 * (kubectl-workload.ts) and `whatif --job` a manifest's (manifest-job.ts): one mapping,
 * so a job asked about is counted as the same job running would be.
 */
import { formatCpu, formatMemory } from '../model/resources.js';
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { parseCount } from './kube-quantity.js';
import { containerSum, cpuAndMemory, INT32_MAX } from './kubectl-pod.js';
import { asObject, type Report, shown } from './located-json.js';

/** One pod set as its object writes it. */
export interface PodSetInput {
  name: string;
  /** The count as written (undefined: 1, as Kubernetes defaults replicas and parallelism). */
  count: unknown;
  /** Where the count is (or would be); `countField` names it in messages (`podSets[0].count`, `spec.parallelism`). */
  countAt: PathSeg[];
  countField: string;
  /** A count worked out from several fields (a JobSet's replicas × parallelism) is given read; its text says how. */
  countFrom?: string;
  template: Record<string, unknown> | undefined;
  templateAt: PathSeg[];
}

/** The shape of a pod set's pods. */
export interface PodSetShape {
  index: number;
  name: string;
  count: number;
  gpu: number;
  cpu?: number;
  memory?: number;
  /** How a count made of several fields was worked out (`spec.replicatedJobs[0].replicas 2 × …`). */
  countFrom?: string;
}

/** How a reader reports what it cannot read: a Workload in a snapshot is skipped (a warning), a job asked about is refused (an error). */
export interface ShapeProblems {
  report: Report;
  severity: 'warning' | 'error';
  /** Who the messages are about: `Workload "ns/name"`, `Job "ns/name"`. */
  who: string;
  /** What becomes of the object, ending a message: `the Workload is not queued`. */
  then: string;
}

/**
 * The shapes of the pod sets that ask for GPUs, and the ones that do not (a launcher, a
 * head), as `name (N pod(s))`; or `skip`, the reason, after a finding at the field.
 * Pod sets of count 0 are left out.
 */
export function readPodSetShapes(sd: SourceDoc, sets: readonly PodSetInput[], gpuResource: string, p: ShapeProblems): { shapes: PodSetShape[]; noGpu: string[] } | { skip: string } {
  const say = (at: PathSeg[], code: string, message: string, hint: string): void => (p.severity === 'error' ? p.report.error(sd, at, code, message, hint) : p.report.warn(sd, at, code, message, hint));
  const shapes: PodSetShape[] = [];
  const noGpu: string[] = [];
  for (let i = 0; i < sets.length; i++) {
    const ps = sets[i]!;
    const count = ps.count === undefined ? 1 : ps.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > INT32_MAX) {
      say(
        ps.countAt,
        p.severity === 'error' ? 'interop/bad-manifest' : 'interop/bad-workload',
        `${p.who}: ${ps.countField} ${shown(sd, ps.countAt, count)} is not a pod count; ${p.then}`,
        'count is a whole number of pods, 0 or more',
      );
      return { skip: `${ps.countField} is not a pod count` };
    }
    const tmplSpec = asObject(ps.template?.spec) ?? {};
    const gpu = containerSum(ps.templateAt, tmplSpec, gpuResource, parseCount, 'limits');
    if (gpu.bad) {
      const read = shown(sd, gpu.bad.path, gpu.bad.raw);
      say(gpu.bad.path, 'interop/bad-quantity', `${p.who}: ${gpuResource} ${read} is not a whole number of GPUs; ${p.then}`, 'GPU limits are a whole count such as "8"');
      return { skip: `${gpuResource} ${read} is not a whole number` };
    }
    if (count === 0) continue;
    if (!gpu.value) {
      noGpu.push(`${ps.name} (${count} pod(s))`);
      continue;
    }
    const before = p.report.findings.length;
    const cm = cpuAndMemory(sd, ps.templateAt, tmplSpec, p.who, p.report);
    // A job asked about is refused rather than answered with a resource left untracked.
    if (p.severity === 'error') for (let k = before; k < p.report.findings.length; k++) p.report.findings[k] = { ...p.report.findings[k]!, severity: 'error' };
    shapes.push({ index: i, name: ps.name, count, gpu: gpu.value, ...cm, ...(ps.countFrom !== undefined ? { countFrom: ps.countFrom } : {}) });
  }
  return { shapes, noGpu };
}

/** A shape as the messages say it: `8 GPU(s), cpu 16, memory 64Gi`. */
export function shapeText(s: PodSetShape): string {
  return [`${s.gpu} GPU(s)`, ...(s.cpu !== undefined ? [`cpu ${formatCpu(s.cpu)}`] : []), ...(s.memory !== undefined ? [`memory ${formatMemory(s.memory)}`] : [])].join(', ');
}

/** The first shape that differs from the first one's (a Quotient job is pods of one shape, SEMANTICS 1). */
export function otherShape(shapes: readonly PodSetShape[]): PodSetShape | undefined {
  const key = (s: PodSetShape): string => `${s.gpu}/${s.cpu ?? '-'}/${s.memory ?? '-'}`;
  const head = shapes[0];
  return head === undefined ? undefined : shapes.find((s) => key(s) !== key(head));
}
