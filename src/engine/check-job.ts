/**
 * The check of a job handed to the library (`Session.answer`, `Session.answerAs`, and so
 * `BatchPool.answerAll`): a JobSpec object made by a program, not read from a WhatIf.
 * Without it a bad job was a raw TypeError (no workspace, no resources) or, worse, an
 * answer (`pods: 0` admitted with an empty placement, `priority: 'x'` preempting).
 *
 * One home per rule: the rules a WhatIf's `submit` meets are not restated here. The job
 * is written as a WhatIf document and run through the loader's own stages: the schema
 * (policy/validate-schema.ts with policy/schema.ts: types, enums, ranges, unknown fields,
 * control characters) and then the builder's checks that need nothing parsed
 * (policy/build-job.ts `checkJobFields`: the workspace and quota exist, GPU shares).
 * What this file adds is only what a document never holds:
 * - the fields in model units (`resources.cpu` in millicores, `resources.memory` in MiB,
 *   `checkpoint.every` and `maxRuntime` in ms, `checkpoint.last` in epoch ms): a document
 *   holds text (`500m`, `30m`) that parse-fields.ts turns into these numbers, so the
 *   numbers themselves have no rule in the loader: here they must be whole numbers,
 *   durations above 0, as parse-fields' parsers make them;
 * - the fields a document may leave out and the model may not (`pods`, `idleResources`,
 *   `faultTolerance.maxRestarts`): the builder fills the document's defaults, a JobSpec
 *   states them.
 * `src` (where a WhatIf was written) is not checked: no answer reads it (answer-memo.ts).
 * Neither are the fields a RunningJob adds to a JobSpec (its standing, start, placement):
 * the types let a running job be asked about as a submission, and a submission's answer
 * never reads them. Any other field is unknown, an error as in a document: a misspelt
 * optional field (`gpuModel`) would otherwise be silently ignored.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { QuotientError, type Finding } from '../errors.js';
import { checkJobFields, type NameIndex } from '../policy/build-job.js';
import { Collector } from '../policy/collector.js';
import { API_VERSION, jobSpec, type JobInput } from '../policy/schema.js';
import type { SourceDoc } from '../policy/source-doc.js';
import { validateDocuments } from '../policy/validate-schema.js';
import type { JobSpec, Policy, RunningJob } from '../model/policy.js';
import { escapeDisplay, unsafeCharacter } from '../model/display-text.js';

/** The code of the error a bad job is (docs/architecture.md, "Errors of the library"). */
export const INVALID_JOB = 'engine/invalid-job';

/** One thing wrong with a job: the field (`job.resources.gpu`), the value found there, why, and what is allowed. */
export interface JobProblem {
  /** The finding code of the rule it breaks (`policy/non-positive`, `policy/unknown-workspace`, ...). */
  code: string;
  path: string;
  /** The value at `path` (undefined when the field is missing). */
  value: unknown;
  message: string;
  hint: string;
}

/** The QuotientError a bad job is: every problem found, in one message. */
export class InvalidJobError extends QuotientError {
  constructor(
    job: unknown,
    /** Every problem found (all of one stage: see checkJob). */
    readonly problems: JobProblem[],
  ) {
    super(
      INVALID_JOB,
      `${describeJob(job)} is not a valid job (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.map((p) => `${p.path} = ${showValue(p.value)}: ${p.message}`).join('; ')}`,
      [...new Set(problems.map((p) => p.hint))].join('; '),
    );
  }
}

/** The names a job's fields point at, from a policy (the builder's index). */
export function nameIndex(policy: Policy): NameIndex {
  return { quotas: new Map(policy.quotas.map((q) => [q.name, q])), workspaces: new Map(policy.workspaces.map((w) => [w.name, w])) };
}

/**
 * The problems of `job` against the policy's names, in the job's field order within each
 * kind (model units, schema, builder); empty when it may be answered. The builder reads a
 * well-formed job, so the fields the schema refused are left out of what it is given:
 * a job with a bad `pods` and an unknown workspace is told both at once.
 */
export function checkJob(job: unknown, names: NameIndex): JobProblem[] {
  if (!isPlainObject(job))
    return [{ code: 'policy/invalid-type', path: 'job', value: job, message: 'a job must be an object (a JobSpec)', hint: 'pass a JobSpec: docs/policy-format.md lists its fields' }];
  const units: JobProblem[] = [];
  const submit = submitDocument(job, units);
  // The same schema twice over: a job that passes `jobSpec` (what the WhatIf schema holds
  // under `submit`; strict, so every key is a known field) and whose strings hold no
  // character a name may not hold (validate-schema's unsafe-string rule) has no schema
  // finding. The loader's validator, whose findings cost ~5x more
  // to make (zod with reportInput), runs only when there is something to report: a valid
  // job's check stays a few µs, against B3's ~300 µs answer.
  const valid = schemaPasses(submit) && safeStrings(submit);
  if (valid) {
    const c = new Collector();
    if (checkJobFields(c, BUILDER_DOC, SUBMIT_PATH, submit as unknown as JobInput, names) && units.length === 0) return [];
    return [...units, ...c.findings.filter((f) => f.severity === 'error').map((f) => problemOf(job, f))];
  }
  const sd = valueDoc({ apiVersion: API_VERSION, kind: 'WhatIf', metadata: { name: 'job' }, spec: { submit } });
  const schema = validateDocuments([sd]).findings.map((f) => problemOf(job, f));
  // The fields the schema found fault with; the builder sees the others only (the fields
  // in model units never reach it: they are checked above, not parsed from text).
  const broken = new Set(schema.map((p) => topField(p.path)));
  const input: Record<string, unknown> = {};
  for (const k of Object.keys(submit)) if (!broken.has(k)) input[k] = submit[k];
  // The builder's checks read resources and the names whatever the job holds: a stand-in
  // for each that is broken or missing, whose findings are dropped below (the schema
  // named them).
  const standIns = new Set(BUILDER_READS.filter((k) => !(k in input)));
  for (const k of standIns) input[k] = k === 'resources' ? { gpu: 1 } : '';
  const c = new Collector();
  checkJobFields(c, BUILDER_DOC, SUBMIT_PATH, input as unknown as JobInput, names);
  const built = c.findings.filter((f) => f.severity === 'error' && !standIns.has(topField(jobPath(f.path))));
  return [...units, ...schema, ...built.map((f) => problemOf(job, f))];
}

/**
 * Whether `submit` passes the `jobSpec` schema. zod answers at first; from the
 * COMPILE_AFTER-th check of the process on, an ajv validator compiled from the JSON Schema
 * zod makes of that same schema (as `quotient schema` ships it): ajv's generated code is
 * fast from its first calls, where zod's takes thousands of calls to warm up (B3 asks
 * 360 times: zod ~15 µs a check there, ajv ~2 µs). Compiling costs tens of ms once, so
 * a CLI run with a few WhatIfs never pays it. The two must agree (a job ajv passes must
 * pass zod; one it refuses goes to zod anyway for its findings): `strictNumbers` refuses
 * NaN and Infinity as zod does, and test/unit/engine/check-job.test.ts compares the two
 * verdicts on every field set to odd values (a compiled schema without its
 * `additionalProperties` fails it).
 */
function schemaPasses(submit: Record<string, unknown>): boolean {
  if (compiled === undefined && ++checks > COMPILE_AFTER) compiled = compileJobSchema();
  return compiled ? compiled(submit) : jobSpec.safeParse(submit).success;
}
let compiled: ValidateFunction | undefined;
let checks = 0;
/** Checks of a process answered by zod before the ajv validator is compiled. */
const COMPILE_AFTER = 32;

/** The ajv validator of the `jobSpec` schema, through its JSON Schema. */
export function compileJobSchema(): ValidateFunction {
  const schema = z.toJSONSchema(jobSpec, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema; // draft 2020-12; the keywords zod writes for a job mean the same in ajv's default draft
  return new Ajv({ strictNumbers: true, allowUnionTypes: true }).compile(schema);
}

/** The fields checkJobFields reads whatever the job holds. */
const BUILDER_READS = ['resources', 'quota', 'workspace', 'name'];

/** Where a submission sits in a WhatIf document: the builder's findings name paths under it. */
const SUBMIT_PATH = ['spec', 'submit'];

/**
 * The document the builder's checks are given: they use it only to locate findings, and
 * a job made by a program has no place in a file (the field path says where), so one
 * serves all.
 */
const BUILDER_DOC = valueDoc({});

/** True when no string value in `v` (keys are not looked at) holds a character a name may not hold (display-text.ts's rule, the one validate-schema applies). */
function safeStrings(v: unknown): boolean {
  if (typeof v === 'string') return unsafeCharacter(v) === undefined;
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) return v.every(safeStrings);
  for (const k in v) if (!safeStrings((v as Record<string, unknown>)[k])) return false;
  return true;
}

/**
 * The check of the one field the answer memo leaves out of its key besides `src`: a
 * request equal to an answered one but for its name skips checkJob (the equal request
 * passed it), so its name is checked alone, by the schema's own rule for `name`.
 */
export function checkJobName(job: unknown): JobProblem[] {
  if (!isPlainObject(job)) return checkJob(job, { quotas: new Map(), workspaces: new Map() });
  const name = job.name;
  // The common case answered without a document: a string with no unsafe character.
  if (typeof name === 'string' && name !== '' && unsafeCharacter(name) === undefined) return [];
  const sd = valueDoc({ apiVersion: API_VERSION, kind: 'WhatIf', metadata: { name: 'job' }, spec: { submit: { name } } });
  return validateDocuments([sd])
    .findings.filter((f) => topField(jobPath(f.path)) === 'name' || f.message.startsWith('spec.submit.name '))
    .map((f) => problemOf(job, f));
}

/**
 * The job as a WhatIf's `submit`: every own field but `src`, as it is (a bad value reaches
 * the schema as given), except the fields in model units, checked here into `problems`.
 * An undefined optional field is absent, as in a document.
 */
function submitDocument(job: Record<string, unknown>, problems: JobProblem[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(job)) {
    const v = job[k];
    if (k === 'src' || Object.hasOwn(RUNNING_ONLY, k)) continue;
    if (v === undefined) {
      if (k === 'pods' || k === 'idleResources') problems.push(missing(k));
      continue;
    }
    if (k === 'maxRuntime') wholeNumber(problems, 'job.maxRuntime', v, 1, 'milliseconds');
    else if (k === 'checkpoint' && isPlainObject(v)) checkpoint(problems, v);
    else if (k === 'resources' && isPlainObject(v) && (v.cpu !== undefined || v.memory !== undefined)) {
      // cpu and memory are the model's units; gpu and any unknown field go to the schema.
      const r: Record<string, unknown> = {};
      for (const rk of Object.keys(v)) {
        if (rk === 'cpu' && v.cpu !== undefined) wholeNumber(problems, 'job.resources.cpu', v.cpu, 0, 'millicores');
        else if (rk === 'memory' && v.memory !== undefined) wholeNumber(problems, 'job.resources.memory', v.memory, 0, 'MiB');
        else if (rk !== 'cpu' && rk !== 'memory') r[rk] = v[rk];
      }
      out.resources = r;
    } else if (k === 'faultTolerance' && isPlainObject(v) && v.maxRestarts === undefined) {
      problems.push(missing('faultTolerance.maxRestarts'));
      out[k] = v;
    } else out[k] = v;
  }
  for (const k of ['pods', 'idleResources'] as const) if (!(k in job)) problems.push(missing(k));
  return out;
}

/**
 * The fields a RunningJob has beyond a JobSpec's; typed so that a field added to
 * RunningJob must be added here (the record needs every key, and no other).
 */
const RUNNING_ONLY: Readonly<Record<Exclude<keyof RunningJob, keyof JobSpec>, true>> = { standing: true, startedAt: true, expectedEnd: true, placement: true, placedByEngine: true };

/** A field the document defaults and a JobSpec must state. */
function missing(field: string): JobProblem {
  const defaults: Record<string, string> = { pods: 'pods: 1 or more', idleResources: 'idleResources: none, acceptable or only', 'faultTolerance.maxRestarts': 'faultTolerance.maxRestarts: 0 or more' };
  return {
    code: 'policy/missing-field',
    path: `job.${field}`,
    value: undefined,
    message: 'is required in a JobSpec (only a WhatIf document may leave it to its default)',
    hint: `give ${defaults[field] ?? field}`,
  };
}

/** `checkpoint` in model units: `every` a duration above 0 in ms, `last` an epoch-ms time; nothing else. */
function checkpoint(problems: JobProblem[], v: Record<string, unknown>): void {
  wholeNumber(problems, 'job.checkpoint.every', v.every, 1, 'milliseconds');
  if (v.last !== undefined) wholeNumber(problems, 'job.checkpoint.last', v.last, Number.MIN_SAFE_INTEGER, 'milliseconds since 1970 (UTC)');
  for (const k of Object.keys(v)) {
    if (k !== 'every' && k !== 'last')
      problems.push({ code: 'policy/unknown-field', path: `job.checkpoint.${k}`, value: v[k], message: 'is not a field of checkpoint', hint: 'checkpoint holds every and last' });
  }
}

/** A whole number of `unit` at least `min` (parse-fields' parsers make only such numbers). */
function wholeNumber(problems: JobProblem[], path: string, v: unknown, min: number, unit: string): void {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min) return;
  const what = min > 0 ? `a whole number of ${unit} above 0` : min === 0 ? `a whole number of ${unit}, 0 or more` : `a whole number of ${unit}`;
  problems.push({
    code: typeof v === 'number' ? 'policy/out-of-range' : 'policy/invalid-type',
    path,
    value: v,
    message: `must be ${what} (the model's unit)`,
    hint: `give ${path.slice(4)} as ${what}`,
  });
}

/** A finding of the loader's stages on the job's document, as a problem of the job. */
function problemOf(job: unknown, f: Finding): JobProblem {
  // A schema message starts with the field's path (`spec.submit.pods must be ...`); a
  // missing field's finding points at its parent, so the path is read from the message.
  const lead = /^(spec\.submit(?:\.[\w-]+|\[\d+\])*)(?: |: )(.*)$/s.exec(f.message);
  const path = lead?.[1] ? jobPath(lead[1]) : jobPath(f.path);
  return { code: f.code, path, value: valueAt(job, path), message: (lead?.[2] ?? f.message).replaceAll('spec.submit', 'job'), hint: f.hint.replaceAll('spec.submit', 'job') };
}

/** `spec.submit.resources.gpu` → `job.resources.gpu`. */
function jobPath(path: string): string {
  return path === 'spec.submit' ? 'job' : path.startsWith('spec.submit') ? `job${path.slice('spec.submit'.length)}` : path;
}

/** `job.resources.gpu` → `resources`. */
function topField(path: string): string {
  return /^job\.([^.[]+)/.exec(path)?.[1] ?? '';
}

/** The value at a `job.a.b[0]` path of the job, undefined where there is none. */
function valueAt(job: unknown, path: string): unknown {
  let v = job;
  for (const seg of path.replace(/^job\.?/, '').match(/[^.[\]]+/g) ?? []) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** `job "train-7"`, or how the job is when it has no usable name. */
function describeJob(job: unknown): string {
  const name = isPlainObject(job) ? job.name : undefined;
  return typeof name === 'string' && name !== '' ? `job ${showValue(name)}` : 'the job';
}

/**
 * A value as a person reads it in a message: strings quoted, `missing` for none. Control
 * and bidirectional characters are escapes (display-text.ts): a message may reach a terminal.
 */
function showValue(v: unknown): string {
  if (v === undefined) return 'missing';
  if (typeof v === 'string') return `"${escapeDisplay(v)}"`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v === null) return String(v);
  if (typeof v === 'function' || typeof v === 'symbol') return `a ${typeof v}`;
  try {
    const text = escapeDisplay(JSON.stringify(v));
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return 'an object that cannot be shown';
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A document held as its value only. Its positions are asked for only when a finding is
 * made, and then say nothing (line 1): a job made by a program has no file; the field
 * path says where.
 */
function valueDoc(value: unknown): SourceDoc {
  let positioned: { doc: SourceDoc['doc']; lines: LineCounter } | undefined;
  const at = (): { doc: SourceDoc['doc']; lines: LineCounter } => {
    if (!positioned) {
      const lines = new LineCounter();
      positioned = { doc: parseDocument('', { lineCounter: lines }), lines };
    }
    return positioned;
  };
  return {
    file: 'job',
    index: 0,
    value,
    get doc() {
      return at().doc;
    },
    get lines() {
      return at().lines;
    },
  };
}
