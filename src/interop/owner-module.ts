/**
 * A job's module from the kind of the object that owns its pods, when no pod label says
 * it (SEMANTICS 1: modules matter to preemption filters and workspace policies, so a
 * serving Deployment imported as training would be preemptible where it is not).
 * Serving controllers are EAS, batch and training controllers DLC, notebooks DSW;
 * `--module-map KIND=MODULE,...` changes or adds kinds.
 */
import { MODULES, type Module } from '../model/policy.js';

/** The default kind → module table (docs/interop.md "Modules"). */
export const DEFAULT_OWNER_MODULES: ReadonlyMap<string, Module> = new Map<string, Module>([
  ['Deployment', 'EAS'],
  ['ReplicaSet', 'EAS'],
  ['InferenceService', 'EAS'],
  ['LeaderWorkerSet', 'EAS'],
  ['Job', 'DLC'],
  ['PyTorchJob', 'DLC'],
  ['MPIJob', 'DLC'],
  ['TFJob', 'DLC'],
  ['RayJob', 'DLC'],
  ['JobSet', 'DLC'],
  ['Notebook', 'DSW'],
  ['StatefulSet', 'DSW'],
]);

/** `KIND=MODULE,...` over the defaults; an entry that is not one is the error's text. */
export function parseModuleMap(text: string): { map: Map<string, Module> } | { error: string } {
  const map = new Map(DEFAULT_OWNER_MODULES);
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) return { error: 'names no KIND=MODULE' };
  for (const e of entries) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(e);
    if (!m) return { error: `"${e}" is not KIND=MODULE` };
    if (!(MODULES as readonly string[]).includes(m[2]!)) return { error: `"${e}": ${m[2] || '(empty)'} is not a module (${MODULES.join(', ')})` };
    map.set(m[1]!, m[2] as Module);
  }
  return { map };
}

/** How a pod's module was chosen, for the job's comment. */
export interface ModuleChoice {
  module: Module;
  /** `label quotient.dev/module`, `owner kind PyTorchJob`, or `default (--module)`. */
  from: string;
}

/** The module of a pod without a module label: its owner's kind in `map`, else `fallback`. */
export function moduleOfOwner(ownerKind: string | undefined, map: ReadonlyMap<string, Module>, fallback: Module): ModuleChoice {
  const byKind = ownerKind === undefined ? undefined : map.get(ownerKind);
  if (byKind) return { module: byKind, from: `owner kind ${ownerKind}` };
  return { module: fallback, from: ownerKind === undefined ? 'no owner: the default (--module)' : `owner kind ${ownerKind} is not in the module map: the default (--module)` };
}

/** The map for the summary: `EAS: Deployment, ReplicaSet; DLC: Job, ...`. */
export function describeModuleMap(map: ReadonlyMap<string, Module>): string {
  return MODULES.map((m) => [m, [...map].filter(([, v]) => v === m).map(([k]) => k)] as const)
    .filter(([, kinds]) => kinds.length)
    .map(([m, kinds]) => `${m}: ${kinds.join(', ')}`)
    .join('; ');
}
