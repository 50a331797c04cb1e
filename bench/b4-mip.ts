/**
 * B4's independent exact solver: the victim choice of one alternative (SEMANTICS 5.3) as
 * a mixed-integer program solved by HiGHS, sharing nothing with the engine or the kernel
 * but their input types.
 *
 *   x_j in {0,1}   candidate j is preempted
 *   y_n in Z>=0    pods of the gang placed on node n of the request's pool
 *   g*y_n   <= freeGpus_n + sum_j gpus(j on n) x_j     (GPUs by count: no strict topology)
 *   c*y_n   <= freeCpu_n  + sum_j cpu(j on n) x_j      (when the pod asks for cpu)
 *   m*y_n   <= freeMem_n  + sum_j mem(j on n) x_j      (when it asks for memory)
 *   sum_n y_n >= pods
 *   sum_{j relieves k} amount_j,k x_j >= deficit_k     (every quota constraint)
 *
 * The objective is lexicographic, solved as a sequence of MIPs in the given order, each
 * optimum fixed before the next: 1 minimise the most important victim's level (z >=
 * level_j x_j), then forbid every candidate above it; 2 lost work (rounded millionths of
 * a GPU-hour, as SEMANTICS' comparison); 3 GPUs; 4 victims; 5 maximise the oldest
 * victim's start rank (s <= rank_j + M(1 - x_j)). Exact for states without strict
 * topology, which is why B4 generates none.
 */
import * as highsModule from 'highs';
import type { Candidate, GangRequest, KernelSnapshot, QuotaConstraint } from '../src/kernel/types.js';

/** The one-shot HiGHS API B4 uses (the package is CommonJS; its loader is the default export). */
interface Highs {
  solve(lp: string, options?: object): { Status: string; ObjectiveValue: number; Columns: Record<string, { Primal: number }> };
}
const highsLoader = (highsModule as unknown as { default: () => Promise<Highs> }).default;
let solver: Highs | undefined;

/** The optimum of one alternative: the victims (job indices, ascending), or null when infeasible. */
export async function mipOptimum(
  state: KernelSnapshot,
  req: GangRequest,
  candidates: readonly Candidate[],
  constraints: readonly QuotaConstraint[],
  order: readonly number[],
): Promise<number[] | null> {
  solver ??= await highsLoader();
  const jobs = candidates.map((c) => state.jobs[c.job]!);
  const x = (i: number) => `x${i}`;
  const poolNodes = state.nodes.map((n, i) => ({ n, i })).filter(({ n }) => n.pool === req.pool);
  const rows: string[] = [];
  let r = 0;
  const row = (expr: string, rel: string, rhs: number) => rows.push(` r${r++}: ${expr || '0 x0'} ${rel} ${fmt(rhs)}`);

  for (const { n, i } of poolNodes) {
    const freeGpus = popcount(~n.usedMask & (n.gpus >= 32 ? 0xffffffff : 2 ** n.gpus - 1));
    const gpuTerms: string[] = [];
    const cpuTerms: string[] = [];
    const memTerms: string[] = [];
    candidates.forEach((c, k) => {
      for (const pod of state.jobs[c.job]!.pods) {
        if (pod.node !== i) continue;
        gpuTerms.push(`- ${popcount(pod.mask)} ${x(k)}`);
        if (pod.cpu) cpuTerms.push(`- ${fmt(pod.cpu)} ${x(k)}`);
        if (pod.mem) memTerms.push(`- ${fmt(pod.mem)} ${x(k)}`);
      }
    });
    row(`${req.gpu} y${i} ${gpuTerms.join(' ')}`, '<=', freeGpus);
    if (req.cpu > 0) row(`${fmt(req.cpu)} y${i} ${cpuTerms.join(' ')}`, '<=', n.freeCpu);
    if (req.mem > 0) row(`${fmt(req.mem)} y${i} ${memTerms.join(' ')}`, '<=', n.freeMem);
  }
  row(poolNodes.map(({ i }) => `+ y${i}`).join(' '), '>=', req.pods);
  constraints.forEach((con, k) => {
    const terms: string[] = [];
    candidates.forEach((c, j) => {
      if (!((c.constraintMask >>> k) & 1)) return;
      const pods = state.jobs[c.job]!.pods;
      const amount = con.resource === 0 ? pods.reduce((s, p) => s + popcount(p.mask), 0) : con.resource === 1 ? pods.reduce((s, p) => s + p.cpu, 0) : pods.reduce((s, p) => s + p.mem, 0);
      if (amount) terms.push(`+ ${fmt(amount)} ${x(j)}`);
    });
    row(terms.join(' '), '>=', con.deficit);
  });

  const level = jobs.map((j) => j.rank * 100 + j.priority);
  const starts = [...new Set(jobs.map((j) => j.startedAt))].sort((a, b) => a - b);
  const startRank = jobs.map((j) => starts.indexOf(j.startedAt));
  const lost = jobs.map((j) => Math.floor(j.lostWork * 1e6 + 0.5));
  const fixed: string[] = [];
  const all = candidates.map((_, k) => k);
  let values: number[] | null = null;

  for (const id of order) {
    let objective: string;
    let sense = 'Minimize';
    const extra: string[] = [];
    const bounds: string[] = [];
    if (id === 1) {
      objective = 'z';
      all.forEach((k) => extra.push(` l${k}: z - ${level[k]} ${x(k)} >= 0`));
      bounds.push(' z >= -1');
    } else if (id === 2) {
      objective = all.map((k) => `+ ${lost[k]} ${x(k)}`).join(' ');
    } else if (id === 3) {
      objective = all.map((k) => `+ ${jobs[k]!.gpus} ${x(k)}`).join(' ');
    } else if (id === 4) {
      objective = all.map((k) => `+ ${x(k)}`).join(' ');
    } else {
      sense = 'Maximize';
      objective = 's';
      const big = starts.length + 1;
      all.forEach((k) => extra.push(` t${k}: s + ${big} ${x(k)} <= ${startRank[k]! + big}`));
      bounds.push(` 0 <= s <= ${big}`);
    }
    const lp = [
      `${sense}`,
      ` obj: ${objective || '0 x0'}`,
      'Subject To',
      ...rows,
      ...fixed,
      ...extra,
      'Bounds',
      ...poolNodes.map(({ i }) => ` y${i} >= 0`),
      ...bounds,
      'General',
      ...poolNodes.map(({ i }) => ` y${i}`),
      'Binary',
      ...all.map((k) => ` ${x(k)}`),
      'End',
    ].join('\n');
    const result = solver.solve(lp, { output_flag: false, mip_rel_gap: 0, mip_abs_gap: 0 });
    if (result.Status !== 'Optimal') return null;
    const cols = result.Columns;
    values = all.map((k) => Math.round(cols[x(k)]?.Primal ?? 0));
    const best = Math.round(result.ObjectiveValue);
    if (id === 1) all.forEach((k) => level[k]! > best && fixed.push(` f${fixed.length}: ${x(k)} = 0`));
    else if (id === 5) fixed.push(...extra.map((e) => e.replace(/^ t/, ' u')), ` h5: s >= ${best}`);
    else fixed.push(` f${fixed.length}: ${objective} ${sense === 'Minimize' ? '<=' : '>='} ${best}`);
  }
  return values
    ? all
        .filter((k) => values[k] === 1)
        .map((k) => candidates[k]!.job)
        .sort((a, b) => a - b)
    : null;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(6);
}

function popcount(mask: number): number {
  let n = 0;
  for (let v = mask >>> 0; v !== 0; v &= v - 1) n++;
  return n;
}
