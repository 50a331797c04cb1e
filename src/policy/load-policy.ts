/**
 * The loading pipeline: an ordered list of named stages run by one loop (after OPA's
 * compiler). Each stage reads what the stages before it left in the shared `LoadState`,
 * adds its own part, and reports every finding it can into its own Collector; the loop
 * tags each finding with the stage's name and keeps all of them (warnings too). It stops
 * after the first stage that found an error, so later stages never run on input they
 * cannot trust and a file with errors never yields a partial model.
 *
 *   parse      YAML text → documents (syntax errors, duplicate keys)
 *   validate   documents → typed specs (unknown fields, types, enums; a QuotaTree at all)
 *   build      specs → the model's parts (names resolve, ranges, sums, placements)
 *   snapshot   whole-snapshot checks (roots fit pools, usage within min, node capacity, caps)
 *   scale      ScaleQuota documents against the trusted model: new mins fit parents and
 *              pools, and no quota stays above its new min (runs last: it needs usage)
 *
 * The engine adds one more stage when it opens a session (`place`, engine/session.ts).
 */
import { hasErrors, sortFindings, type Finding } from '../errors.js';
import { runStages, type Stage, type StageTiming } from './stages.js';
import type { Cluster, Policy, ScaleQuota, SnapshotSource, SpotMarket, WhatIf, Workspace } from '../model/policy.js';
import { replaceCluster } from './build/beside-cluster.js';
import type { PolicyPromise } from '../model/promise.js';
import { buildCluster, type JobOrigins } from './build/build-cluster.js';
import type { NameIndex } from './build/build-job.js';
import { buildPromises } from './build/build-promises.js';
import { buildQuotas, type QuotaBuild } from './build/build-quotas.js';
import { buildWhatIfs } from './build/build-whatifs.js';
import { buildScales } from './build/build-scales.js';
import { buildSpotMarkets } from './build/build-spot-markets.js';
import { buildWorkspaces } from './build/build-workspaces.js';
import { checkCaps } from './check/check-caps.js';
import { checkScales } from './check/check-scales.js';
import { checkSnapshot } from './check/check-snapshot.js';
import { deriveStandings } from './build/derive-standings.js';
import { parseFiles, type InputFile, type SourceDoc } from './parse/source-doc.js';
import { validateDocuments, type TypedDoc } from './validate/validate-schema.js';

export interface LoadOptions {
  /** The time a snapshot without `at` is taken at (epoch ms); default Date.now(). */
  now?: number;
}

/** The model when there were no errors, and every finding (warnings too), sorted by location. */
export interface LoadResult {
  policy?: Policy;
  findings: Finding[];
  /** How long each stage that ran took. */
  timings: StageTiming[];
  /** True when the result depends on the time of the load (`now`: a snapshot without `at`): the compiled-policy cache does not store it. */
  readClock?: true;
}

export type { StageName } from './stages.js';

/** What the stages hand on to each other; each stage fills its own fields. */
interface LoadState {
  files: InputFile[];
  now: number;
  /** Set when a stage read `now`. */
  readClock?: true;
  docs: SourceDoc[];
  typed: TypedDoc[];
  qb?: QuotaBuild;
  workspaces: Workspace[];
  cluster?: Cluster;
  origins: JobOrigins;
  whatIfs: WhatIf[];
  promises: PolicyPromise[];
  scales: ScaleQuota[];
  spotMarkets: SpotMarket[];
  snapshotFrom?: SnapshotSource;
}

/**
 * The stages, in order. Each runs only when every stage before it found no error: a
 * document that fails its schema is never built, a model that fails to build is never
 * checked as a snapshot, and scalings are checked against a snapshot known to be sound.
 */
const STAGES: readonly Stage<LoadState>[] = [
  {
    name: 'parse',
    run(s, c) {
      const parsed = parseFiles(s.files);
      s.docs = parsed.docs;
      for (const f of parsed.findings) c.findings.push(f);
    },
  },
  {
    name: 'validate',
    run(s, c) {
      const validated = validateDocuments(s.docs);
      s.typed = validated.typed;
      for (const f of validated.findings) c.findings.push(f);
      if (hasErrors(validated.findings) || validated.typed.some((d) => d.kind === 'QuotaTree')) return;
      // Nothing to check against: an empty or comment-only bundle must not pass as clean.
      const first = validated.typed[0]?.sd;
      const at = first ? { file: first.file, ...lineCol(first) } : { file: s.files[0]?.path ?? '', line: 1, column: 1 };
      c.findings.push({
        ...at,
        code: 'policy/no-quota-tree',
        severity: 'error',
        path: '',
        message: validated.typed.length ? 'the policy has no QuotaTree: nothing declares the quotas its documents refer to' : 'the policy holds no documents',
        hint: 'add a QuotaTree document (docs/policy-format.md section 2), or name the files that hold it together with these',
      });
    },
  },
  {
    name: 'build',
    run(s, c) {
      // A snapshot named beside the policy folder replaces the folder's (beside-cluster.ts).
      const beside = replaceCluster(s.files, s.typed);
      s.typed = beside.typed;
      s.snapshotFrom = beside.from;
      const qb = buildQuotas(c, s.typed);
      s.qb = qb;
      s.workspaces = buildWorkspaces(c, s.typed, qb.quotas);
      const names: NameIndex = {
        quotas: new Map(qb.quotas.map((q) => [q.name, q])),
        workspaces: new Map(s.workspaces.map((w) => [w.name, w])),
      };
      const { cluster, origins } = buildCluster(c, s.typed, qb.pools, names, () => {
        s.readClock = true;
        return s.now;
      });
      s.cluster = cluster;
      s.origins = origins;
      s.whatIfs = buildWhatIfs(c, s.typed, names, [...(cluster?.jobs ?? []), ...(cluster?.queue ?? [])]);
      s.promises = buildPromises(c, s.typed, names);
      s.scales = buildScales(c, s.typed, qb.quotas);
      s.spotMarkets = buildSpotMarkets(c, s.typed);
    },
  },
  {
    name: 'snapshot',
    run(s, c) {
      if (!s.cluster) return;
      deriveStandings(c, s.cluster, built(s).quotas, s.origins);
      checkSnapshot(c, s.cluster, built(s).pools, built(s), s.origins);
      checkCaps(c, s.cluster, s.workspaces);
    },
  },
  {
    name: 'scale',
    run(s, c) {
      checkScales(c, s.scales, built(s).quotas, built(s).pools, s.cluster);
    },
  },
];

/** Loads, validates and merges the given files into one Policy. */
export function loadPolicy(files: InputFile[], options: LoadOptions = {}): LoadResult {
  const state: LoadState = { files, now: options.now ?? Date.now(), docs: [], typed: [], workspaces: [], origins: new Map(), whatIfs: [], promises: [], scales: [], spotMarkets: [] };
  const timings: StageTiming[] = [];
  const { findings, failed } = runStages(STAGES, state, timings);
  const clock = state.readClock ? { readClock: true as const } : {};
  if (failed) return { findings: sortFindings(findings), timings, ...clock };
  const qb = built(state);
  const policy: Policy = {
    pools: qb.pools,
    quotas: qb.quotas,
    workspaces: state.workspaces,
    cluster: state.cluster,
    whatIfs: state.whatIfs,
    scales: state.scales,
    promises: state.promises,
    spotMarkets: state.spotMarkets,
    files: files.map((f) => f.path),
    ...(state.snapshotFrom ? { snapshotFrom: state.snapshotFrom } : {}),
  };
  return { policy, findings: sortFindings(findings), timings, ...clock };
}

export { tagStage } from './stages.js';

/** The quotas and pools the build stage made; later stages run only after it succeeded. */
function built(s: LoadState): QuotaBuild {
  if (!s.qb) throw new Error('a stage after build ran without its output');
  return s.qb;
}

function lineCol(sd: SourceDoc): { line: number; column: number } {
  const pos = sd.lines.linePos(sd.doc.range[0]);
  return { line: pos.line, column: pos.col };
}
