/**
 * Promise documents → PolicyPromise. A malformed promise gets a located finding like any
 * other policy error: names that do not exist, ranges outside their bounds, values of
 * the wrong kind.
 */
import { IDLE_MODES, MODULES, type IdleMode, type Module, type Standing } from '../../model/policy.js';
import type { IntChoice, JobSelector, PolicyPromise, SubmitTemplate } from '../../model/promise.js';
import type { Collector } from '../collector.js';
import { uniqueDocs } from './unique-docs.js';
import type { NameIndex } from './build-job.js';
import { parseRange } from './parse-fields.js';
import type { PromiseSpec } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';
import type { TypedDoc } from '../validate/validate-schema.js';

type Choice = number | string | Array<number | string>;

/** Builds every Promise document. */
export function buildPromises(c: Collector, docs: TypedDoc[], names: NameIndex): PolicyPromise[] {
  const out: PolicyPromise[] = [];
  for (const td of uniqueDocs(c, docs, 'Promise', 'policy/duplicate-promise', 'promise names are unique')) {
    const spec = td.spec as PromiseSpec;
    const before = c.findings.length;
    const sd = td.sd;
    const at = (...p: PathSeg[]): PathSeg[] => ['spec', ...p];
    const s = spec.submit;
    const submit: SubmitTemplate = {
      workspace: s.workspace === undefined ? undefined : names_(c, sd, at('submit', 'workspace'), s.workspace, [...names.workspaces.keys()], 'workspace'),
      quota: s.quota === undefined ? undefined : names_(c, sd, at('submit', 'quota'), s.quota, [...names.quotas.keys()], 'quota'),
      module: s.module === undefined ? undefined : (names_(c, sd, at('submit', 'module'), s.module, [...MODULES], 'module') as Module[] | undefined),
      priority: s.priority === undefined ? undefined : ints(c, sd, at('submit', 'priority'), s.priority, 1, 9),
      pods: s.pods === undefined ? undefined : ints(c, sd, at('submit', 'pods'), s.pods, 1, 64),
      gpu: s.gpu === undefined ? undefined : ints(c, sd, at('submit', 'gpu'), s.gpu, 1, 32),
      idleResources: s.idleResources === undefined ? undefined : (names_(c, sd, at('submit', 'idleResources'), s.idleResources, [...IDLE_MODES], 'idle-resources mode') as IdleMode[] | undefined),
    };
    const cl = spec.cluster ?? {};
    const cluster = {
      jobs: cl.jobs === undefined ? range(0, 16) : ints(c, sd, at('cluster', 'jobs'), cl.jobs, 0, 200),
      priority: cl.priority === undefined ? range(1, 9) : ints(c, sd, at('cluster', 'priority'), cl.priority, 1, 9),
      workspaces: cl.workspaces === undefined ? undefined : names_(c, sd, at('cluster', 'workspaces'), cl.workspaces, [...names.workspaces.keys()], 'workspace'),
      keepSnapshotJobs: cl.keepSnapshotJobs ?? true,
    };
    const e = spec.expect;
    const expect: PolicyPromise['expect'] = {
      decision: e.decision === undefined ? undefined : list(e.decision),
      standing: e.standing === undefined ? undefined : list(e.standing),
      neverPreempts: e.neverPreempts ? selector(c, sd, at('expect', 'neverPreempts'), e.neverPreempts, names) : undefined,
      maxLostGpuHours:
        e.maxLostGpuHours === undefined
          ? undefined
          : typeof e.maxLostGpuHours === 'number'
            ? { limit: e.maxLostGpuHours }
            : { limit: e.maxLostGpuHours.limit, of: e.maxLostGpuHours.of ? selector(c, sd, at('expect', 'maxLostGpuHours', 'of'), e.maxLostGpuHours.of, names) : undefined },
      maxVictims: e.maxVictims,
    };
    if (Object.values(expect).every((v) => v === undefined)) {
      c.error(sd, at('expect'), 'policy/empty-promise', `Promise "${td.name}" expects nothing`, 'give at least one of decision, standing, neverPreempts, maxLostGpuHours, maxVictims');
    }
    if (c.findings.length > before) continue;
    out.push({ name: td.name, description: spec.description, submit, cluster: { ...cluster, jobs: cluster.jobs!, priority: cluster.priority! }, expect, src: sourceAt(sd, []) });
  }
  return out;
}

function list<T>(v: T | T[]): T[] {
  return Array.isArray(v) ? v : [v];
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

function names_(c: Collector, sd: SourceDoc, path: PathSeg[], value: Choice, known: string[], what: string): string[] | undefined {
  const values = list(value).map(String);
  let ok = true;
  values.forEach((v, i) => {
    if (!known.includes(v)) {
      c.error(sd, Array.isArray(value) ? [...path, i] : path, 'policy/unknown-name', `the promise names ${what} "${v}", which the policy does not have`, closest(v, known, what));
      ok = false;
    }
  });
  return ok ? [...new Set(values)] : undefined;
}

/** `8`, `[8, 16]` or `"1-4"` → the integer values, each within lo..hi. */
function ints(c: Collector, sd: SourceDoc, path: PathSeg[], value: Choice, lo: number, hi: number): IntChoice | undefined {
  const out: number[] = [];
  for (const [i, v] of list(value).entries()) {
    const at = Array.isArray(value) ? [...path, i] : path;
    if (typeof v === 'number') {
      if (!Number.isInteger(v) || v < lo || v > hi) {
        c.error(sd, at, 'policy/out-of-range', `${v} is not a whole number in ${lo}..${hi}`, `use values from ${lo} to ${hi}`);
        return undefined;
      }
      out.push(v);
      continue;
    }
    const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(v) ?? /^\s*(\d+)\s*$/.exec(v);
    if (!m) {
      c.error(sd, at, 'policy/bad-range', `"${v}" is not a number or a range`, 'write a number (8), a list ([8, 16]) or a range ("1-4")');
      return undefined;
    }
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a > b) {
      c.error(sd, at, 'policy/reversed-range', `range ${a}-${b} runs backwards`, `write ${b}-${a}`);
      return undefined;
    }
    if (a < lo || b > hi) {
      c.error(sd, at, 'policy/out-of-range', `range ${a}-${b} leaves ${lo}..${hi}`, `use values from ${lo} to ${hi}`);
      return undefined;
    }
    out.push(...range(a, b));
  }
  return [...new Set(out)].sort((x, y) => x - y);
}

function selector(c: Collector, sd: SourceDoc, path: PathSeg[], s: NonNullable<PromiseSpec['expect']['neverPreempts']>, names: NameIndex): JobSelector {
  const out: JobSelector = {};
  if (s.quota !== undefined) {
    if (!names.quotas.has(s.quota))
      c.error(sd, [...path, 'quota'], 'policy/unknown-quota', `the promise names quota "${s.quota}", which no QuotaTree declares`, closest(s.quota, [...names.quotas.keys()], 'quota'));
    out.quota = s.quota;
  }
  if (s.workspace !== undefined) {
    if (!names.workspaces.has(s.workspace))
      c.error(
        sd,
        [...path, 'workspace'],
        'policy/unknown-workspace',
        `the promise names workspace "${s.workspace}", which no Workspace declares`,
        closest(s.workspace, [...names.workspaces.keys()], 'workspace'),
      );
    out.workspace = s.workspace;
  }
  if (s.module !== undefined) out.module = list(s.module);
  if (s.priority !== undefined) out.priority = parseRange(c, sd, [...path, 'priority'], s.priority);
  if (s.standing !== undefined) out.standing = list<Standing>(s.standing);
  return out;
}
