/**
 * A snapshot named beside a policy folder replaces the folder's own
 * (`quotient whatif policy/ cluster.yaml`): the live cluster a user imported is what
 * they ask about, not the example snapshot the folder may hold. Concatenating the two,
 * as Cluster documents of one folder are, would count every node twice.
 */
import type { SnapshotSource } from '../../model/policy.js';
import type { InputFile } from '../parse/source-doc.js';
import type { TypedDoc } from '../validate/validate-schema.js';

/**
 * The documents the policy is built from: when a file marked `beside` holds a Cluster,
 * the Cluster documents of the other files are left out. `from` says which files the
 * snapshot came from and which it replaced; it is undefined when no file named beside
 * a folder holds a Cluster (the snapshot is the folder's own, as always).
 */
export function replaceCluster(files: readonly InputFile[], typed: TypedDoc[]): { typed: TypedDoc[]; from?: SnapshotSource } {
  const beside = new Set(files.filter((f) => f.beside).map((f) => f.path));
  const isCluster = (d: TypedDoc) => d.kind === 'Cluster';
  const used = unique(typed.filter((d) => isCluster(d) && beside.has(d.sd.file)).map((d) => d.sd.file));
  if (used.length === 0) return { typed };
  const replaced = unique(typed.filter((d) => isCluster(d) && !beside.has(d.sd.file)).map((d) => d.sd.file));
  return { typed: typed.filter((d) => !isCluster(d) || beside.has(d.sd.file)), from: { files: used, replaced } };
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
