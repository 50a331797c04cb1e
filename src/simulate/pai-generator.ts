/**
 * A seeded workload shaped like the PAI 2020 trace ("MLaaS in the Wild", NSDI '22).
 * It is synthetic — the trace's job tables are too large to ship — and every report
 * made from it says so. The distributions (docs/simulate.md "The PAI-shaped generator"):
 *
 *   arrivals   diurnal: rate ∝ 1 + 0.6·sin(2π(t − 6h)/24h) (peak mid-afternoon),
 *              drawn by thinning uniform times over the span
 *   gangs      1×1 GPU 70 %, 1×2 8 %, 1×4 6 %, 1×8 10 %, 2×8 3 %, 4×8 2 %, 8×8 1 %
 *   durations  log-normal, median 30 min, σ 1.6 (heavy tail), within 1 min .. 10 days
 *   teams      the given teams by weight; priority uniform in the team's range
 *   idle       10 % acceptable, 5 % only (teams that allow idle jobs)
 *   spot       5 % bid on the market when the policy has one (general: priceLimit at
 *              30-90 % of pay-as-you-go; Lingjun: discountLimit 0.3-0.9)
 *   checkpoint 60 % of jobs, every 30 min; autoRestart (max 3) for half of those
 */
import type { IdleMode, JobSpec, Module, SpotMarket } from '../model/policy.js';
import { Random } from './random.js';
import { sortJobs, type SimJob, type Workload } from './workload.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** A team the generator submits for. */
export interface GenTeam {
  workspace: string;
  quota: string;
  module: Module;
  priority: [number, number];
  weight: number;
  /** Whether its jobs may be idle or spot. */
  flexible: boolean;
}

export interface PaiShape {
  jobs: number;
  days: number;
  seed: number;
  teams: GenTeam[];
  markets: SpotMarket[];
}

const GANGS: Array<[number, number]> = [
  [1, 1],
  [1, 2],
  [1, 4],
  [1, 8],
  [2, 8],
  [4, 8],
  [8, 8],
];
const GANG_WEIGHTS = [70, 8, 6, 10, 3, 2, 1];

/** Generates the workload; the same shape and seed give the same jobs. */
export function generatePai(shape: PaiShape): Workload {
  const rnd = new Random(shape.seed);
  const span = shape.days * DAY;
  const types = shape.markets.flatMap((m) => m.instanceTypes);
  const weights = shape.teams.map((t) => t.weight);
  const width = String(shape.jobs).length;
  const jobs: SimJob[] = [];
  for (let i = 0; i < shape.jobs; i++) {
    let t: number;
    do t = rnd.next() * span;
    while (rnd.next() * 1.6 > 1 + 0.6 * Math.sin((2 * Math.PI * (t - 6 * HOUR)) / DAY));
    const team = rnd.pick(shape.teams, weights);
    const [pods, gpu] = rnd.pick(GANGS, GANG_WEIGHTS);
    const duration = Math.round(Math.min(10 * DAY, Math.max(MIN, 30 * MIN * Math.exp(1.6 * rnd.normal()))) / 1000) * 1000;
    const priority = rnd.int(team.priority[0], team.priority[1]);
    const roll = rnd.next();
    let idle: IdleMode = 'none';
    let spot: SimJob['spot'];
    if (team.flexible && roll < 0.1) idle = 'acceptable';
    else if (team.flexible && roll < 0.15) idle = 'only';
    else if (team.flexible && roll < 0.2 && types.length) {
      const type = types[rnd.int(0, types.length - 1)]!;
      spot =
        type.pool === 'lingjun'
          ? { instanceType: type.name, discountLimit: rnd.int(3, 9) / 10 }
          : { instanceType: type.name, priceLimit: Math.round(type.payAsYouGo * (0.3 + 0.6 * rnd.next()) * 100) / 100 };
    }
    const ckpt = rnd.next() < 0.6;
    const restart = ckpt && rnd.next() < 0.5 && !(spot && types.find((x) => x.name === spot.instanceType)!.pool !== 'lingjun');
    const spec: JobSpec = {
      name: `pai-${String(i).padStart(width, '0')}`,
      workspace: team.workspace,
      quota: team.quota,
      module: team.module,
      priority,
      pods,
      resources: { gpu },
      idleResources: idle,
      ...(ckpt ? { checkpoint: { every: 30 * MIN } } : {}),
      ...(restart ? { faultTolerance: { autoRestart: true, maxRestarts: 3 } } : {}),
      src: { file: 'pai-generator', line: i + 1, column: 1, path: '' },
    };
    jobs.push({ spec, submit: Math.round(t / 1000) * 1000, duration, ...(spot ? { spot } : {}) });
  }
  return {
    source: `PAI-2020-shaped generator (synthetic): ${shape.jobs} jobs over ${shape.days} days, seed ${shape.seed}`,
    synthetic: true,
    jobs: sortJobs(jobs),
    rejected: [],
    notes: [`synthetic workload shaped like the PAI 2020 trace (docs/simulate.md): teams ${shape.teams.map((t) => `${t.workspace}/${t.quota} ×${t.weight}`).join(', ')}`],
  };
}
