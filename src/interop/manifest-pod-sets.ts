/**
 * The pod sets of a Kubernetes workload manifest, as Kueue's integrations count them
 * (kueue pkg/controller/jobs/*: job_controller.go `podsCount`, jobset_controller.go
 * `podsCount`, kubeflowjob_controller.go, raycluster/common.go `BuildPodSets`): each a pod
 * template and how many pods it makes. The shapes of their pods are read by
 * pod-set-shape.ts, as `import kubectl` reads a Workload's podSets.
 */
import type { PathSeg } from '../policy/parse/source-doc.js';
import { asObject } from './located-json.js';
import type { PodSetInput } from './pod-set-shape.js';

/** The kinds a manifest may be, with the API groups they come from (docs/interop.md "Manifests"). */
export const MANIFEST_KINDS: Readonly<Record<string, string>> = {
  Job: 'batch',
  JobSet: 'jobset.x-k8s.io',
  PyTorchJob: 'kubeflow.org',
  TFJob: 'kubeflow.org',
  MPIJob: 'kubeflow.org',
  XGBoostJob: 'kubeflow.org',
  PaddleJob: 'kubeflow.org',
  JAXJob: 'kubeflow.org',
  RayJob: 'ray.io',
  RayCluster: 'ray.io',
  Pod: '(core)',
  Deployment: 'apps',
  StatefulSet: 'apps',
  LeaderWorkerSet: 'leaderworkerset.x-k8s.io',
  Workload: 'kueue.x-k8s.io',
};

/** Each Kubeflow kind's map of roles (the training-operator's `*ReplicaSpecs`; MPIJob v2beta1's `mpiReplicaSpecs`). */
const REPLICA_SPECS: Readonly<Record<string, string>> = {
  PyTorchJob: 'pytorchReplicaSpecs',
  TFJob: 'tfReplicaSpecs',
  MPIJob: 'mpiReplicaSpecs',
  XGBoostJob: 'xgbReplicaSpecs',
  PaddleJob: 'paddleReplicaSpecs',
  JAXJob: 'jaxReplicaSpecs',
};

/** A count that is a product of fields (a JobSet's replicas × its Job's pods): the product, or the first factor that is not a count, as written. */
interface Factor {
  value: unknown;
  at: PathSeg[];
  field: string;
  /** Kubernetes' default when the field is absent. */
  absent: number;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** A pod set whose count is the product of `factors` (each defaulted when absent). */
function product(name: string, factors: Factor[], template: unknown, templateAt: PathSeg[]): PodSetInput {
  let total = 1;
  for (const f of factors) {
    const v = f.value === undefined ? f.absent : f.value;
    // The first factor that is not a count is the pod set's bad count, at its own field.
    if (!isCount(v)) return { name, count: v, countAt: f.at, countField: f.field, template: asObject(template), templateAt };
    total *= v;
  }
  // The field findings about the count point at: the first written, else the first (a head of one pod: its template).
  const shown = factors.find((f) => f.value !== undefined) ?? factors[0];
  return {
    name,
    count: total,
    countAt: shown?.at ?? templateAt,
    countField: shown?.field ?? `pod set ${name}`,
    ...(factors.length > 1 ? { countFrom: factors.map((f) => `${f.field} ${f.value === undefined ? `(absent: ${f.absent})` : JSON.stringify(f.value)}`).join(' × ') } : {}),
    template: asObject(template),
    templateAt,
  };
}

/** A batch/v1 Job spec's pods: parallelism (default 1), fewer when completions is smaller (Kueue's `podsCount`). */
function jobPods(spec: Record<string, unknown>, at: PathSeg[], field: string): Factor {
  const parallelism = spec.parallelism;
  const completions = spec.completions;
  if (isCount(completions) && completions < (isCount(parallelism) ? parallelism : 1)) return { value: completions, at: [...at, 'completions'], field: `${field}.completions`, absent: 1 };
  return { value: parallelism, at: [...at, 'parallelism'], field: `${field}.parallelism`, absent: 1 };
}

/**
 * The pod sets of `obj` (of `kind`, one of MANIFEST_KINDS) at `path`; a missing part
 * (no template, no replicated jobs) is `missing`, the field path it should be at.
 */
export function podSetsOf(kind: string, obj: Record<string, unknown>, path: PathSeg[]): { sets: PodSetInput[] } | { missing: PathSeg[]; what: string } {
  const spec = asObject(obj.spec) ?? {};
  const sp: PathSeg[] = [...path, 'spec'];
  const one = (name: string, f: Factor[], template: unknown, tAt: PathSeg[]): { sets: PodSetInput[] } | { missing: PathSeg[]; what: string } =>
    asObject(template) ? { sets: [product(name, f, template, tAt)] } : { missing: tAt, what: 'a pod template' };
  switch (kind) {
    case 'Pod':
      return { sets: [{ name: 'main', count: 1, countAt: path, countField: 'the Pod', template: obj, templateAt: path }] };
    case 'Job':
      return one('main', [jobPods(spec, sp, 'spec')], spec.template, [...sp, 'template']);
    case 'Deployment':
    case 'StatefulSet':
      return one('main', [{ value: spec.replicas, at: [...sp, 'replicas'], field: 'spec.replicas', absent: 1 }], spec.template, [...sp, 'template']);
    case 'JobSet': {
      const rjs: unknown[] = Array.isArray(spec.replicatedJobs) ? spec.replicatedJobs : [];
      if (rjs.length === 0) return { missing: [...sp, 'replicatedJobs'], what: 'replicatedJobs' };
      return {
        sets: rjs.map((raw, i) => {
          const rj = asObject(raw) ?? {};
          const at: PathSeg[] = [...sp, 'replicatedJobs', i];
          const jobSpec = asObject(asObject(rj.template)?.spec) ?? {};
          const field = `spec.replicatedJobs[${i}]`;
          return product(
            typeof rj.name === 'string' ? rj.name : `replicatedJobs[${i}]`,
            [{ value: rj.replicas, at: [...at, 'replicas'], field: `${field}.replicas`, absent: 1 }, jobPods(jobSpec, [...at, 'template', 'spec'], `${field}.template.spec`)],
            jobSpec.template,
            [...at, 'template', 'spec', 'template'],
          );
        }),
      };
    }
    case 'RayJob':
    case 'RayCluster': {
      const cluster = kind === 'RayJob' ? asObject(spec.rayClusterSpec) : spec;
      const cAt: PathSeg[] = kind === 'RayJob' ? [...sp, 'rayClusterSpec'] : sp;
      const cField = kind === 'RayJob' ? 'spec.rayClusterSpec' : 'spec';
      if (!cluster) return { missing: cAt, what: 'rayClusterSpec' };
      const head = asObject(cluster.headGroupSpec);
      if (!head) return { missing: [...cAt, 'headGroupSpec'], what: 'headGroupSpec' };
      const sets: PodSetInput[] = [product('head', [], head.template, [...cAt, 'headGroupSpec', 'template'])];
      const groups: unknown[] = Array.isArray(cluster.workerGroupSpecs) ? cluster.workerGroupSpecs : [];
      groups.forEach((raw, i) => {
        const g = asObject(raw) ?? {};
        const at: PathSeg[] = [...cAt, 'workerGroupSpecs', i];
        const field = `${cField}.workerGroupSpecs[${i}]`;
        sets.push(
          product(
            typeof g.groupName === 'string' ? g.groupName : `workerGroupSpecs[${i}]`,
            [
              { value: g.replicas, at: [...at, 'replicas'], field: `${field}.replicas`, absent: 1 },
              { value: g.numOfHosts, at: [...at, 'numOfHosts'], field: `${field}.numOfHosts`, absent: 1 },
            ],
            g.template,
            [...at, 'template'],
          ),
        );
      });
      return { sets };
    }
    case 'LeaderWorkerSet': {
      const lwt = asObject(spec.leaderWorkerTemplate);
      const lAt: PathSeg[] = [...sp, 'leaderWorkerTemplate'];
      if (!lwt || !asObject(lwt.workerTemplate)) return { missing: [...lAt, 'workerTemplate'], what: 'leaderWorkerTemplate.workerTemplate' };
      const replicas: Factor = { value: spec.replicas, at: [...sp, 'replicas'], field: 'spec.replicas', absent: 1 };
      const size: Factor = { value: lwt.size, at: [...lAt, 'size'], field: 'spec.leaderWorkerTemplate.size', absent: 1 };
      if (!asObject(lwt.leaderTemplate)) return { sets: [product('worker', [replicas, size], lwt.workerTemplate, [...lAt, 'workerTemplate'])] };
      // A group is its leader and size - 1 workers (LeaderWorkerSet's API: size counts the leader).
      const workers = isCount(size.value) && size.value >= 1 ? { ...size, value: size.value - 1, field: 'spec.leaderWorkerTemplate.size - 1' } : size;
      return {
        sets: [product('leader', [replicas], lwt.leaderTemplate, [...lAt, 'leaderTemplate']), product('worker', [replicas, workers], lwt.workerTemplate, [...lAt, 'workerTemplate'])],
      };
    }
    case 'Workload': {
      const podSets: unknown[] = Array.isArray(spec.podSets) ? spec.podSets : [];
      if (podSets.length === 0) return { missing: [...sp, 'podSets'], what: 'podSets' };
      return {
        sets: podSets.map((raw, i) => {
          const ps = asObject(raw) ?? {};
          const at: PathSeg[] = [...sp, 'podSets', i];
          return {
            name: typeof ps.name === 'string' ? ps.name : 'main',
            count: ps.count,
            countAt: [...at, 'count'],
            countField: `spec.podSets[${i}].count`,
            template: asObject(ps.template),
            templateAt: [...at, 'template'],
          };
        }),
      };
    }
    default: {
      const key = REPLICA_SPECS[kind];
      const roles = key === undefined ? undefined : asObject(spec[key]);
      if (key === undefined || !roles || Object.keys(roles).length === 0) return { missing: [...sp, ...(key ? [key] : [])], what: key ?? 'pod sets' };
      // Kueue names a Kubeflow pod set by its role, lower-cased (master, worker, launcher).
      return {
        sets: Object.entries(roles).map(([role, raw]) => {
          const r = asObject(raw) ?? {};
          const at: PathSeg[] = [...sp, key, role];
          return product(role.toLowerCase(), [{ value: r.replicas, at: [...at, 'replicas'], field: `spec.${key}.${role}.replicas`, absent: 1 }], r.template, [...at, 'template']);
        }),
      };
    }
  }
}
