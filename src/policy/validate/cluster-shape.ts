/**
 * A Cluster spec's shape checked by hand, for the common case: zod's schema
 * (schema.ts `clusterSpec`) costs ~10 µs a job, 0.4 s over B3's 38,633 jobs, where a
 * plain walk costs a fraction. The check is one-sided: `clusterSpecFits` says true only
 * for a value the schema accepts and returns unchanged (zod builds a copy of the same
 * keys and values); on anything else — a missing or unknown field, a wrong type, a value
 * out of range, an object that is not plain — it says false, and the caller runs zod
 * over the whole spec, so every finding, its code and its path stay zod's. Narrower is
 * always safe here (it only costs speed); wider never is.
 * test/unit/policy/cluster-shape.test.ts checks it against zod on generated specs.
 */
import { IDLE_MODES, MODULES, STANDINGS } from '../../model/policy.js';

type Obj = Record<string, unknown>;

/** A plain object (what a YAML mapping reads as), not a list, not null, not a class instance. */
function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** A name: a string of at least one character. */
function isName(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}

/** A whole number from `min` to `max` (zod's `.int()` takes safe integers only). */
function isInt(v: unknown, min: number, max: number): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

/** A cpu or memory quantity: a finite number or a string. */
function isQuantity(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

const MAX = Number.MAX_SAFE_INTEGER;

/** True when `spec` surely passes `clusterSpec` unchanged; false when zod must judge it. */
export function clusterSpecFits(spec: unknown): boolean {
  if (!isObj(spec)) return false;
  for (const key in spec) {
    const v = spec[key];
    switch (key) {
      case 'at':
        if (typeof v !== 'string') return false;
        break;
      case 'standings':
        if (v !== 'stated' && v !== 'derive') return false;
        break;
      case 'nodeGroups':
        if (!everyItem(v, (g) => nodeFits(g, true))) return false;
        break;
      case 'nodes':
        if (!everyItem(v, (n) => nodeFits(n, false))) return false;
        break;
      case 'jobs':
        if (!everyItem(v, runningJobFits)) return false;
        break;
      case 'queue':
        if (!everyItem(v, queuedJobFits)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** `v` is a list (empty allowed) whose every item fits. */
function everyItem(v: unknown, fits: (item: unknown) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!fits(item)) return false;
  return true;
}

/** A mapping of strings to strings (a node's labels). */
function isStringMap(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const key in v) if (typeof v[key] !== 'string') return false;
  return true;
}

/** One field shared by nodes and node groups; undefined for a key that is none of them. */
function nodeFieldFits(key: string, v: unknown): boolean | undefined {
  switch (key) {
    case 'gpus':
      return isInt(v, 1, 32);
    case 'cpu':
    case 'memory':
      return isQuantity(v);
    case 'pool':
      return isName(v);
    case 'instanceType':
      return typeof v === 'string';
    case 'gpuModel':
      return isName(v);
    case 'unschedulable':
      return typeof v === 'boolean';
    case 'labels':
      return isStringMap(v);
    default:
      return undefined;
  }
}

/**
 * A node group (`prefix`, `count`, `start` and the node fields) or, when not `group`, one
 * node (`name` and the node fields).
 */
function nodeFits(n: unknown, group: boolean): boolean {
  if (!isObj(n)) return false;
  let required = 0;
  for (const key in n) {
    const v = n[key];
    let ok: boolean | undefined;
    if (group) ok = key === 'prefix' ? isName(v) : key === 'count' ? isInt(v, 1, MAX) : key === 'start' ? isInt(v, 0, MAX) : undefined;
    else if (key === 'name') ok = isName(v);
    if (ok === undefined) ok = nodeFieldFits(key, v);
    if (ok !== true) return false;
    if (key === 'gpus' || key === 'pool' || key === 'name' || key === 'prefix' || key === 'count') required++;
  }
  return required === (group ? 4 : 3);
}

/** A running job: schema.ts `runningJob` (the job fields, standing, times, placement). */
function runningJobFits(j: unknown): boolean {
  return jobFits(j, false);
}

/** A queued job: schema.ts `queuedJob` (the job fields, submittedAt, duration). */
function queuedJobFits(j: unknown): boolean {
  return jobFits(j, true);
}

/** The fields of a running job or, when `queued`, of a queued one (no standing, start or placement; submittedAt required). */
function jobFits(j: unknown, queued: boolean): boolean {
  if (!isObj(j)) return false;
  // name, workspace, quota, module, priority and resources are required (and a queued job's submittedAt).
  let required = 0;
  for (const key in j) {
    const v = j[key];
    switch (key) {
      case 'name':
      case 'workspace':
      case 'quota':
        if (!isName(v)) return false;
        required++;
        break;
      case 'module':
        if (!(MODULES as readonly unknown[]).includes(v)) return false;
        required++;
        break;
      case 'priority':
        if (!isInt(v, 1, 9)) return false;
        required++;
        break;
      case 'resources':
        if (!podResourcesFit(v)) return false;
        required++;
        break;
      case 'pods':
        if (!isInt(v, 1, MAX)) return false;
        break;
      case 'idleResources':
        if (!(IDLE_MODES as readonly unknown[]).includes(v)) return false;
        break;
      case 'standing':
        if (queued || !(STANDINGS as readonly unknown[]).includes(v)) return false;
        break;
      case 'submittedAt':
        if (!queued || typeof v !== 'string') return false;
        required++;
        break;
      case 'submittedBy':
        if (!isName(v)) return false;
        break;
      case 'startedAt':
      case 'expectedEnd':
        if (queued || typeof v !== 'string') return false;
        break;
      case 'maxRuntime':
      case 'duration':
        if (typeof v !== 'string') return false;
        break;
      case 'checkpoint':
        if (!checkpointFits(v)) return false;
        break;
      case 'faultTolerance':
        if (!faultToleranceFits(v)) return false;
        break;
      case 'gpuModels':
        if (!Array.isArray(v) || v.length === 0 || !v.every(isName)) return false;
        break;
      case 'placement':
        if (queued || !everyItem(v, podPlacementFits)) return false;
        break;
      default:
        return false;
    }
  }
  return required === (queued ? 7 : 6);
}

/** GPUs per pod: positive, at most 32 (a share below 1 is the build's to check); cpu and memory quantities. */
function podResourcesFit(r: unknown): boolean {
  if (!isObj(r)) return false;
  let gpu = false;
  for (const key in r) {
    const v = r[key];
    if (key === 'gpu') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 32) return false;
      gpu = true;
    } else if (key === 'cpu' || key === 'memory') {
      if (!isQuantity(v)) return false;
    } else return false;
  }
  return gpu;
}

function checkpointFits(c: unknown): boolean {
  if (!isObj(c)) return false;
  let every = false;
  for (const key in c) {
    const v = c[key];
    if (typeof v !== 'string' || (key !== 'every' && key !== 'last')) return false;
    if (key === 'every') every = true;
  }
  return every;
}

function faultToleranceFits(f: unknown): boolean {
  if (!isObj(f)) return false;
  let autoRestart = false;
  for (const key in f) {
    const v = f[key];
    if (key === 'autoRestart') {
      if (typeof v !== 'boolean') return false;
      autoRestart = true;
    } else if (key === 'maxRestarts') {
      if (!isInt(v, 0, MAX)) return false;
    } else return false;
  }
  return autoRestart;
}

/** One pod's placement: a node, and GPU indices (at least one) or a count from 1 to 32. */
function podPlacementFits(p: unknown): boolean {
  if (!isObj(p)) return false;
  let node = false;
  for (const key in p) {
    const v = p[key];
    if (key === 'node') {
      if (!isName(v)) return false;
      node = true;
    } else if (key === 'gpus') {
      if (!Array.isArray(v) || v.length === 0) return false;
      for (const g of v) if (!isInt(g, 0, MAX)) return false;
    } else if (key === 'gpuCount') {
      if (!isInt(v, 1, 32)) return false;
    } else return false;
  }
  return node;
}
