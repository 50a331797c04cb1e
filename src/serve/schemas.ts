/**
 * The routes' JSON Schemas: what Fastify validates requests with (400 with the field's
 * path, docs/serve.md "Errors") and what /openapi.json is made from. The responses'
 * schemas describe what the handlers send; test/serve/openapi.test.ts holds real
 * responses to them. A submission's own fields (`submit`) are not validated here but by
 * the policy loader's stages (src/serve/ask.ts), whose findings name each field the way a
 * policy file's would; their schema is published as components.schemas.JobSubmit.
 */
import * as z from '../policy/validate/zod.js';
import { jobSpec } from '../policy/validate/schema.js';

const finding = {
  type: 'object',
  required: ['file', 'line', 'column', 'code', 'severity', 'path', 'message', 'hint'],
  properties: {
    file: { type: 'string', description: 'The file, or `request` for the request body (line and column 0 unless the body is a PAI request).' },
    line: { type: 'integer', minimum: 0 },
    column: { type: 'integer', minimum: 0 },
    start: { type: 'integer', minimum: 0 },
    end: { type: 'integer', minimum: 0 },
    code: { type: 'string' },
    severity: { type: 'string', enum: ['error', 'warning'] },
    path: { type: 'string', description: 'The field path: `spec.quotas[0].min.gpu`, or in a request `submit.priority`.' },
    message: { type: 'string' },
    hint: { type: 'string' },
    stage: { type: 'string' },
  },
} as const;

const findings = { type: 'array', items: finding } as const;

/** The Error document (error-document.ts). */
export const errorSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'status', 'code', 'message', 'hint'],
  properties: {
    apiVersion: { type: 'string', enum: ['quotient/v1'] },
    kind: { type: 'string', enum: ['Error'] },
    status: { type: 'integer' },
    code: { type: 'string', description: 'Stable: serve/..., auth/... (docs/serve.md)' },
    message: { type: 'string' },
    hint: { type: 'string' },
    path: { type: 'string', description: 'The field at fault, when one is.' },
    requestId: { type: 'string' },
  },
  additionalProperties: false,
} as const;

/** A WhatIfReport (schemas/whatif-report.json holds every field of an answer). */
const whatIfReport = {
  type: 'object',
  description: 'quotient whatif --json, byte for byte: schemas/whatif-report.json describes every field of an answer.',
  required: ['apiVersion', 'kind', 'findings', 'answers'],
  properties: {
    apiVersion: { type: 'string', enum: ['quotient/v1'] },
    kind: { type: 'string', enum: ['WhatIfReport'] },
    findings,
    answers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['policy', 'query', 'job', 'quota', 'decision', 'standing', 'placement', 'victims', 'reasons', 'lostGpuHours', 'notes'],
        properties: {
          policy: { type: 'string' },
          query: { type: 'string' },
          job: { type: 'string' },
          quota: { type: 'string' },
          decision: { type: 'string', enum: ['admit', 'preempt', 'wait', 'reject'] },
          standing: { type: ['string', 'null'] },
          placement: { type: 'array', items: { type: 'object' } },
          victims: { type: 'array', items: { type: 'object' } },
          reasons: { type: 'array', items: { type: 'object', required: ['code', 'message'] } },
          lostGpuHours: { type: 'number' },
          notes: { type: 'array', items: { type: 'object', required: ['code', 'message'] } },
          as: { type: 'string' },
          snapshot: { type: 'object' },
          estimate: { type: 'object' },
        },
      },
    },
  },
  additionalProperties: false,
} as const;

const envelope = (kind: string) =>
  ({
    apiVersion: { type: 'string', enum: ['quotient/v1'] },
    kind: { type: 'string', enum: [kind] },
    version: { type: 'string', description: 'The policy version the listing comes from.' },
    policy: { type: 'string' },
    snapshot: { type: 'object', required: ['name', 'at'], properties: { name: { type: 'string' }, at: { type: 'string', format: 'date-time' } } },
  }) as const;

const standing = { type: 'string', enum: ['in-quota', 'borrowing', 'idle'] } as const;

const jobEntry = {
  type: 'object',
  required: ['job', 'workspace', 'quota', 'priorityBand', 'standing', 'pods', 'gpusPerPod', 'gpus', 'nodes'],
  description: 'A running job; one the caller may not see has `hidden: true`, `job: "(hidden: WORKSPACE)"` and none of module, priority, times, submittedBy, source.',
  properties: {
    job: { type: 'string' },
    hidden: { type: 'boolean', enum: [true] },
    workspace: { type: 'string' },
    quota: { type: 'string' },
    module: { type: 'string' },
    priority: { type: 'integer' },
    priorityBand: { type: 'string' },
    standing,
    pods: { type: 'integer' },
    gpusPerPod: { type: 'number' },
    gpus: { type: 'number' },
    nodes: { type: 'array', items: { type: 'string' } },
    startedAt: { type: 'string', format: 'date-time' },
    expectedEnd: { type: 'string', format: 'date-time' },
    submittedBy: { type: 'string' },
    checkpoint: { type: 'object', properties: { everyMinutes: { type: 'number' }, last: { type: 'string' } } },
    source: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const gpusOf = { type: 'number', description: 'GPUs' } as const;

// A queued job's entry holds a running job's fields but those of a placed, started job (engine/views/job-entry.ts).
const { standing: _standing, nodes: _nodes, startedAt: _startedAt, expectedEnd: _expectedEnd, checkpoint: _checkpoint, ...queuedShared } = jobEntry.properties;

const queuedEntry = {
  type: 'object',
  required: ['job', 'workspace', 'quota', 'priorityBand', 'pods', 'gpusPerPod', 'gpus', 'submittedAt', 'position', 'strategy'],
  description: 'A queued job; one the caller may not see has `hidden: true`, `job: "(hidden: WORKSPACE)"` and none of module, priority, submittedBy, source.',
  properties: {
    ...queuedShared,
    submittedAt: { type: 'string', format: 'date-time' },
    position: { type: 'integer', minimum: 1 },
    strategy: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const quotaView = {
  type: 'object',
  required: ['apiVersion', 'kind', 'version', 'policy', 'snapshot', 'pools', 'quotas'],
  properties: {
    ...envelope('QuotaView'),
    pools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'nodes', 'gpus', 'cordonedNodes'],
        properties: { name: { type: 'string' }, type: { type: 'string' }, nodes: { type: 'integer' }, gpus: { type: 'number' }, cordonedNodes: { type: 'integer' } },
        additionalProperties: false,
      },
    },
    quotas: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'parent', 'children', 'depth', 'pool', 'workspaces', 'min', 'max', 'used', 'inQuota', 'borrowing', 'lent', 'idle', 'free', 'jobs', 'reclaim', 'source'],
        properties: {
          name: { type: 'string' },
          parent: { type: ['string', 'null'] },
          children: { type: 'array', items: { type: 'string' } },
          depth: { type: 'integer' },
          pool: { type: 'string' },
          workspaces: { type: 'array', items: { type: 'string' } },
          min: { type: 'object', required: ['gpu'], properties: { gpu: gpusOf, cpu: { type: 'number', description: 'millicores' }, memory: { type: 'number', description: 'MiB' } } },
          max: {
            type: ['object', 'null'],
            description: 'The ceiling (SEMANTICS 3): per resource it names, what the in-quota and borrowing jobs of the subtree never exceed; null when the quota has none',
            properties: { gpu: gpusOf, cpu: { type: 'number', description: 'millicores' }, memory: { type: 'number', description: 'MiB' } },
            additionalProperties: false,
          },
          used: { ...gpusOf, description: 'usage(Q), what admission checks against min (SEMANTICS 3)' },
          inQuota: gpusOf,
          borrowing: gpusOf,
          lent: { ...gpusOf, description: 'min(free, GPUs of borrowing jobs on its same-level quotas)' },
          idle: gpusOf,
          free: { ...gpusOf, description: 'max(0, min - used)' },
          jobs: { type: 'integer' },
          reclaim: { type: 'string' },
          selfPreemption: { type: 'object' },
          childPreemption: { type: 'object' },
          fairShare: {
            type: ['object', 'null'],
            description:
              'SEMANTICS 13, trees under Kueue\'s rules only: the weighted share (Kueue\'s status.fairSharing.weightedShare, rounded up; "infinite" for a borrowing quota of weight 0) and weight; null when the tree has no fair sharing',
            required: ['weightedShare', 'weight'],
            properties: { weightedShare: { type: ['number', 'string'] }, weight: { type: 'number' } },
            additionalProperties: false,
          },
          source: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

const nodeView = {
  type: 'object',
  required: ['apiVersion', 'kind', 'version', 'policy', 'snapshot', 'nodes'],
  properties: {
    ...envelope('NodeView'),
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'pool', 'gpus', 'used', 'free', 'shared', 'cordoned', 'standing', 'jobs'],
        properties: {
          name: { type: 'string' },
          pool: { type: 'string' },
          gpuModel: { type: 'string' },
          instanceType: { type: 'string' },
          gpus: { type: 'integer' },
          used: gpusOf,
          free: { type: 'integer' },
          shared: { type: 'integer' },
          cordoned: { type: 'boolean' },
          standing: { type: 'object', required: ['in-quota', 'borrowing', 'idle'], properties: { 'in-quota': gpusOf, borrowing: gpusOf, idle: gpusOf } },
          jobs: {
            type: 'array',
            items: {
              type: 'object',
              required: ['job', 'workspace', 'quota', 'standing', 'priorityBand', 'pods', 'gpus', 'indices'],
              properties: {
                job: { type: 'string' },
                hidden: { type: 'boolean', enum: [true] },
                workspace: { type: 'string' },
                quota: { type: 'string' },
                standing,
                priorityBand: { type: 'string' },
                priority: { type: 'integer' },
                module: { type: 'string' },
                pods: { type: 'integer' },
                gpus: gpusOf,
                indices: { type: 'array', items: { type: 'integer' } },
              },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

const jobView = {
  type: 'object',
  required: ['apiVersion', 'kind', 'version', 'policy', 'snapshot', 'running', 'queued'],
  properties: {
    ...envelope('JobView'),
    running: { type: 'array', items: jobEntry },
    queued: { type: 'array', items: queuedEntry, description: "The snapshot's queued jobs (SEMANTICS 8), each quota's in the order its strategy tries them." },
  },
  additionalProperties: false,
} as const;

const jobExplanation = {
  type: 'object',
  required: ['apiVersion', 'kind', 'version', 'policy', 'snapshot', 'job', 'standing', 'path', 'preemptibleBy'],
  properties: {
    ...envelope('JobExplanation'),
    job: jobEntry,
    standing: {
      type: 'object',
      required: ['standing', 'code', 'reason'],
      properties: { standing, code: { type: 'string', enum: ['standing/in-quota', 'standing/borrowing', 'standing/idle'] }, reason: { type: 'string' } },
      additionalProperties: false,
    },
    path: {
      type: 'array',
      items: {
        type: 'object',
        required: ['quota', 'min', 'max', 'used'],
        properties: { quota: { type: 'string' }, min: gpusOf, max: { type: ['number', 'null'], description: 'The GPU ceiling; null when the quota has none' }, used: gpusOf },
        additionalProperties: false,
      },
    },
    preemptibleBy: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rule', 'kind', 'source', 'summary', 'reason', 'preemptors'],
        properties: {
          rule: { type: 'string' },
          kind: { type: 'string', enum: ['reclaim-idle', 'reclaim-borrowed', 'self', 'child'] },
          source: { type: 'string' },
          summary: { type: 'string' },
          reason: { type: 'string' },
          preemptors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['quotas', 'priorities', 'standing'],
              properties: {
                quotas: { type: 'array', items: { type: 'string' } },
                anyQuotaOf: { type: 'string', description: 'Every quota of this pool (then `quotas` is empty).' },
                priorities: { type: 'string' },
                standing: { type: 'string', enum: ['in-quota', 'borrowing'] },
              },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

const serveStatus = {
  type: 'object',
  required: ['apiVersion', 'kind', 'ready', 'version', 'policy', 'loadedAt', 'snapshot', 'findings', 'lastLoad', 'viewer'],
  properties: {
    apiVersion: { type: 'string', enum: ['quotient/v1'] },
    kind: { type: 'string', enum: ['ServeStatus'] },
    ready: { type: 'boolean' },
    version: { type: ['string', 'null'] },
    policy: { type: ['string', 'null'] },
    loadedAt: { type: ['string', 'null'] },
    snapshot: {
      type: ['object', 'null'],
      properties: {
        name: { type: 'string' },
        at: { type: 'string' },
        source: { type: 'string', enum: ['files', 'command'] },
        command: { type: 'string' },
        checkedAt: { type: 'string' },
      },
    },
    findings,
    lastLoad: {
      type: ['object', 'null'],
      required: ['version', 'at', 'ok', 'findings'],
      properties: { version: { type: ['string', 'null'] }, at: { type: 'string' }, ok: { type: 'boolean' }, stage: { type: 'string', enum: ['read', 'snapshot-command', 'open'] }, findings },
      additionalProperties: false,
    },
    viewer: {
      type: 'object',
      required: ['admin', 'workspaces'],
      properties: { user: { type: 'string' }, admin: { type: 'boolean' }, as: { type: 'string' }, workspaces: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 503: errorSchema } as const;

const asQuery = { as: { type: 'string', minLength: 1, maxLength: 256, description: "An administrator's view as this user sees it (SEMANTICS 10)." } } as const;

/** The schema of each /v1 route. */
export const ROUTE_SCHEMAS = {
  whatif: {
    summary: "What if this job were submitted now? The CLI's WhatIfReport, byte for byte",
    tags: ['answers'],
    body: {
      type: 'object',
      description: "One of submit, submits or query. A job is a WhatIf spec.submit (components.schemas.JobSubmit), validated as a policy file's: its findings come back in a 400 WhatIfReport.",
      properties: {
        submit: { type: 'object', description: 'A WhatIf spec.submit: see components.schemas.JobSubmit' },
        submits: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'object' }, description: 'Several jobs, answered in order' },
        query: { type: 'string', minLength: 1, maxLength: 253, description: 'A WhatIf document of the policy, by name' },
        estimate: { type: 'boolean', description: "Estimate a wait answer's start (default true)" },
        as: asQuery.as,
      },
      additionalProperties: false,
      oneOf: [{ required: ['submit'] }, { required: ['submits'] }, { required: ['query'] }],
    },
    response: {
      200: whatIfReport,
      ...errors,
      400: { description: 'An invalid job (a WhatIfReport whose findings name the fields) or a body that does not fit (an Error)', anyOf: [whatIfReport, errorSchema] },
    },
  },
  pai: {
    summary: 'What if this PAI DLC CreateJob request were submitted now?',
    tags: ['answers'],
    body: { type: 'object', description: 'A PAI DLC CreateJob request body (docs/interop.md)' },
    querystring: { type: 'object', properties: { ...asQuery, estimate: { type: 'string', enum: ['true', 'false'] } }, additionalProperties: false },
    response: {
      200: whatIfReport,
      ...errors,
      400: { description: 'An invalid request (a WhatIfReport whose findings point into the body) or a body that does not fit (an Error)', anyOf: [whatIfReport, errorSchema] },
    },
  },
  kubernetes: {
    summary: 'What if this Kubernetes manifest (a Job, JobSet, PyTorchJob, RayJob, Deployment, Kueue Workload…) were submitted now?',
    tags: ['answers'],
    description:
      'The body is the manifest as `kubectl apply -f` takes it, JSON (application/json) or YAML (application/yaml): one workload, with the LocalQueues, ClusterQueues and priority classes it needs beside it (several documents or a List). Read as `quotient whatif --job job.yaml` reads it (docs/interop.md "Kubernetes manifests"); findings point at the body\'s lines.',
    consumes: ['application/json', 'application/yaml'],
    body: { anyOf: [{ type: 'object' }, { type: 'string' }], description: 'A Kubernetes manifest (docs/interop.md)' },
    querystring: {
      type: 'object',
      properties: { ...asQuery, estimate: { type: 'string', enum: ['true', 'false'] }, namespace: { type: 'string', minLength: 1, maxLength: 63 } },
      additionalProperties: false,
    },
    response: {
      200: whatIfReport,
      ...errors,
      400: { description: 'An invalid manifest (a WhatIfReport whose findings point into the body) or a body that does not fit (an Error)', anyOf: [whatIfReport, errorSchema] },
    },
  },
  quotas: {
    summary: 'The quota tree with guarantees and usage',
    tags: ['listings'],
    querystring: { type: 'object', properties: asQuery, additionalProperties: false },
    response: { 200: quotaView, ...errors },
  },
  nodes: {
    summary: 'Every node with its GPUs and the jobs on it the caller may see',
    tags: ['listings'],
    querystring: { type: 'object', properties: { ...asQuery, pool: { type: 'string', minLength: 1, maxLength: 253 } }, additionalProperties: false },
    response: { 200: nodeView, ...errors },
  },
  jobs: {
    summary: 'The running jobs with their standing, and the queue',
    tags: ['listings'],
    querystring: {
      type: 'object',
      properties: {
        ...asQuery,
        quota: { type: 'string', minLength: 1, maxLength: 253 },
        workspace: { type: 'string', minLength: 1, maxLength: 253 },
        mine: { type: 'string', enum: ['true', 'false'] },
      },
      additionalProperties: false,
    },
    response: { 200: jobView, ...errors },
  },
  explain: {
    summary: 'Why a job has its standing, and what could preempt it',
    tags: ['listings'],
    params: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 253 } } },
    querystring: { type: 'object', properties: asQuery, additionalProperties: false },
    response: { 200: jobExplanation, ...errors },
  },
  status: {
    summary: 'The version served, the snapshot, and the findings of the last load',
    tags: ['operations'],
    querystring: { type: 'object', properties: asQuery, additionalProperties: false },
    response: { 200: serveStatus, ...errors },
  },
} as const;

/** The JSON Schema of a job (a WhatIf's `submit`), from the policy schema itself: for /openapi.json only. */
export function jobSubmitSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(jobSpec, { io: 'input', target: 'openapi-3.0' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}
