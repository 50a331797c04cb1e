/**
 * The loading pipeline, as named stages run in order (after OPA's compiler). Each stage
 * collects every finding it can; the pipeline stops after the first stage that found an
 * error, so later stages never run on input they cannot trust and a file with errors
 * never yields a partial model.
 *
 *   parse      YAML text → documents (syntax errors, duplicate keys)
 *   validate   documents → typed specs (unknown fields, types, enums)
 *   build      specs → Policy (names resolve, ranges, sums, placements)
 *   snapshot   whole-snapshot checks (roots fit pools, usage within min, node capacity)
 *   scale      ScaleQuota documents against the trusted model: new mins fit parents and
 *              pools, and no quota stays above its new min (runs last: it needs usage)
 */
import { hasErrors, sortFindings, type Finding } from '../errors.js';
import type { Policy } from '../model/policy.js';
import { buildCluster } from './build-cluster.js';
import type { NameIndex } from './build-job.js';
import { buildPromises } from './build-promises.js';
import { buildQuotas } from './build-quotas.js';
import { buildWhatIfs } from './build-whatifs.js';
import { buildScales } from './build-scales.js';
import { buildSpotMarkets } from './build-spot-markets.js';
import { buildWorkspaces } from './build-workspaces.js';
import { checkCaps } from './check-caps.js';
import { checkScales } from './check-scales.js';
import { checkSnapshot } from './check-snapshot.js';
import { Collector } from './collector.js';
import { parseFiles, type InputFile, type SourceDoc } from './source-doc.js';
import { validateDocuments } from './validate-schema.js';

export interface LoadOptions {
  /** The time a snapshot without `at` is taken at (epoch ms); default Date.now(). */
  now?: number;
}

/** The model when there were no errors, and every finding (warnings too), sorted by location. */
export interface LoadResult {
  policy?: Policy;
  findings: Finding[];
}

function lineCol(sd: SourceDoc): { line: number; column: number } {
  const pos = sd.lines.linePos(sd.doc.range[0]);
  return { line: pos.line, column: pos.col };
}

/** Loads, validates and merges the given files into one Policy. */
export function loadPolicy(files: InputFile[], options: LoadOptions = {}): LoadResult {
  const warnings: Finding[] = [];
  const stop = (findings: Finding[]): LoadResult => ({ findings: sortFindings([...warnings, ...findings]) });

  const parsed = parseFiles(files);
  if (hasErrors(parsed.findings)) return stop(parsed.findings);
  warnings.push(...parsed.findings);

  const validated = validateDocuments(parsed.docs);
  if (hasErrors(validated.findings)) return stop(validated.findings);
  if (!validated.typed.some((d) => d.kind === 'QuotaTree')) {
    // Nothing to check against: an empty or comment-only bundle must not pass as clean.
    const first = validated.typed[0]?.sd;
    const at = first ? { file: first.file, ...lineCol(first) } : { file: files[0]?.path ?? '', line: 1, column: 1 };
    return stop([{ ...at, code: 'policy/no-quota-tree', severity: 'error', path: '', message: validated.typed.length ? 'the policy has no QuotaTree: nothing declares the quotas its documents refer to' : 'the policy holds no documents', hint: 'add a QuotaTree document (docs/policy-format.md section 2), or name the files that hold it together with these' }]);
  }

  const c = new Collector();
  const qb = buildQuotas(c, validated.typed);
  const workspaces = buildWorkspaces(c, validated.typed, qb.quotas);
  const names: NameIndex = {
    quotas: new Map(qb.quotas.map((q) => [q.name, q])),
    workspaces: new Map(workspaces.map((w) => [w.name, w])),
  };
  const { cluster, origins } = buildCluster(c, validated.typed, qb.pools, names, options.now ?? Date.now());
  const whatIfs = buildWhatIfs(c, validated.typed, names, cluster?.jobs ?? []);
  const promises = buildPromises(c, validated.typed, names);
  const scales = buildScales(c, validated.typed, qb.quotas);
  const spotMarkets = buildSpotMarkets(c, validated.typed);
  if (hasErrors(c.findings)) return stop(c.findings);
  warnings.push(...c.findings);

  if (cluster) {
    const s = new Collector();
    checkSnapshot(s, cluster, qb.pools, qb, origins);
    checkCaps(s, cluster, workspaces);
    if (hasErrors(s.findings)) return stop(s.findings);
    warnings.push(...s.findings);
  }

  const sc = new Collector();
  checkScales(sc, scales, qb.quotas, qb.pools, cluster);
  if (hasErrors(sc.findings)) return stop(sc.findings);

  const policy: Policy = { pools: qb.pools, quotas: qb.quotas, workspaces, cluster, whatIfs, scales, promises, spotMarkets, files: files.map((f) => f.path) };
  return { policy, findings: sortFindings(warnings) };
}
