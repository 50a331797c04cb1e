/** A Node of `kubectl get nodes -o json` → a node of the snapshot (import-kubectl.ts), or skipped with the reason. */
import { parseCpu, parseMemory } from '../model/quantity.js';
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { importedName } from './imported-name.js';
import { parseCount } from './kube-quantity.js';
import type { ImportedNode, KubectlOptions } from './kubectl-types.js';
import { asObject, type Report, shown, stringMap, where } from './located-json.js';

export function readNode(sd: SourceDoc, path: PathSeg[], obj: Record<string, unknown>, name: string, opts: KubectlOptions, report: Report, skip: (reason: string) => void): ImportedNode | undefined {
  const status = asObject(obj.status) ?? {};
  const alloc = asObject(status.allocatable) ?? {};
  const allocPath = [...path, 'status', 'allocatable'];
  const raw = alloc[opts.gpuResource];
  if (raw === undefined) {
    skip(`no ${opts.gpuResource} in status.allocatable`);
    return undefined;
  }
  const gpus = parseCount(raw);
  if (gpus === undefined) {
    const read = shown(sd, [...allocPath, opts.gpuResource], raw);
    report.warn(
      sd,
      [...allocPath, opts.gpuResource],
      'interop/bad-quantity',
      `node "${name}": ${opts.gpuResource} ${read} is not a whole number of GPUs; the node is skipped`,
      'allocatable GPUs are a whole count such as "8"',
    );
    skip(`${opts.gpuResource} ${read} is not a whole number`);
    return undefined;
  }
  if (gpus === 0) {
    skip(`0 allocatable ${opts.gpuResource}`);
    return undefined;
  }
  if (gpus > 32) {
    report.warn(
      sd,
      [...allocPath, opts.gpuResource],
      'interop/too-many-gpus',
      `node "${name}" has ${gpus} GPUs; Quotient models at most 32 per node, so the node is skipped`,
      'split the node into smaller ones by hand if you need it',
    );
    skip(`${gpus} GPUs (more than 32)`);
    return undefined;
  }
  const notes = [`GPUs from status.allocatable["${opts.gpuResource}"] = ${shown(sd, [...allocPath, opts.gpuResource], raw)}`];
  const node: ImportedNode = { name, gpus, pool: opts.pool, origin: where(sd, path), notes };
  for (const r of ['cpu', 'memory'] as const) {
    if (alloc[r] === undefined) continue;
    const v = r === 'cpu' ? parseCpu(alloc[r]) : parseMemory(alloc[r]);
    if (v === undefined)
      report.warn(
        sd,
        [...allocPath, r],
        'interop/bad-quantity',
        `node "${name}": ${r} ${shown(sd, [...allocPath, r], alloc[r])} is not a quantity; the node's ${r} is left untracked`,
        r === 'cpu' ? 'cpu is cores ("96") or millicores ("95500m")' : 'memory is a size such as "1056Gi"',
      );
    else node[r] = v;
  }
  const meta = asObject(obj.metadata) ?? {};
  const labels = stringMap(meta.labels);
  // A label's value names a model or a pool: written safe, as names are (imported-name.ts).
  const labelled = (label: string, what: string): string | undefined => {
    const value = labels[label];
    if (!value) return undefined;
    const safe = importedName(value);
    if (safe.rewritten) {
      report.warn(
        sd,
        [...path, 'metadata', 'labels', label],
        'interop/unsafe-name',
        `node "${name}": the ${what} "${safe.name}" of label ${label}: ${safe.rewritten}`,
        `relabel the node, or keep the escaped ${what}`,
      );
      notes.push(`${what} rewritten: ${safe.rewritten}`);
    }
    return safe.name;
  };
  // The labels Kueue's flavors select by, kept exactly (a flavor's nodeLabels must match them as Kubernetes has them).
  const kept = (opts.nodeLabelKeys ?? []).filter((k) => labels[k] !== undefined);
  if (kept.length > 0) {
    node.labels = Object.fromEntries(kept.map((k) => [k, labels[k]!]));
    notes.push(`labels ${kept.join(', ')} (the flavors' nodeLabels keys)`);
  }
  const model = labelled(opts.modelLabel, 'GPU model');
  if (model) {
    node.gpuModel = model;
    notes.push(`model from label ${opts.modelLabel}`);
  }
  const pool = opts.poolLabel ? labelled(opts.poolLabel, 'pool') : undefined;
  if (pool) {
    node.pool = pool;
    notes.push(`pool from label ${opts.poolLabel}`);
  } else notes.push(opts.poolLabel ? `no label ${opts.poolLabel}: pool "${opts.pool}"` : `pool "${opts.pool}" (--pool)`);
  const spec = asObject(obj.spec) ?? {};
  if (spec.unschedulable === true) {
    node.unschedulable = true;
    notes.push('spec.unschedulable: true (cordoned)');
  }
  return node;
}
