/**
 * The openb pod trace (Alibaba cluster-trace-gpu-v2023, `openb_pod_list_*.csv`) as a
 * workload on a policy (docs/simulate.md "The openb replay"). Each pod becomes a
 * one-pod job submitted at `creation_time` and running `deletion_time − creation_time`
 * seconds, with its cpu_milli and memory_mib. The mapping is ours, and configurable:
 *
 *   QoS → priority and idle mode   Guaranteed 9/none, LS 6/none, Burstable 4/acceptable,
 *                                   BE 2/only (best effort runs on idle capacity)
 *   pods → teams                    by a stable hash of the pod name, over the quotas
 *                                   given with weights (default: every quota that one
 *                                   workspace uses, weight 1); module DLC when the
 *                                   workspace allows it, else its first module
 *   GPU sharing (gpu_milli < 1000)  the pod asks that share of one GPU (`gpu: 0.46`,
 *                                   docs/policy-format.md "GPU sharing"): shares split a GPU
 *   GPU models (gpu_spec)           `gpuModels`, the `|`-separated models (empty: any model),
 *                                   matched against the nodes' `model` (cluster-loaders.ts)
 *   idle jobs                       checkpoint every 30m, autoRestart up to 3 restarts
 *                                   (the seeds' advice for idle-resource jobs)
 *
 * CPU-only pods (num_gpu 0) are left out — the simulation places GPU jobs — and the
 * notes say how many; so are zero-length pods given one second.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { Finding } from '../errors.js';
import { codePoint, unsafeCharacter } from '../model/display-text.js';
import type { IdleMode, JobSpec, Module, Policy, Workspace } from '../model/policy.js';
import { MILLI_PER_GPU } from '../model/resources.js';
import { formatCount, MAX_JOBS } from '../policy/parse/number-limits.js';
import { isRefusal, readSimTime, shownValue } from '../policy/parse/number-text.js';
import { sortJobs, type SimJob, type Workload } from './workload.js';

export const OPENB_QOS = ['Guaranteed', 'LS', 'Burstable', 'BE'] as const;
export type OpenbQos = (typeof OPENB_QOS)[number];

/** How the trace maps onto a policy. */
export interface OpenbMapping {
  qos: Record<OpenbQos, { priority: number; idle: IdleMode }>;
  teams: Array<{ quota: string; workspace: string; weight: number; module: Module }>;
}

/** The default QoS mapping (docs/simulate.md). */
export const DEFAULT_QOS: OpenbMapping['qos'] = {
  Guaranteed: { priority: 9, idle: 'none' },
  LS: { priority: 6, idle: 'none' },
  Burstable: { priority: 4, idle: 'acceptable' },
  BE: { priority: 2, idle: 'only' },
};

/** The module a team's jobs use: DLC (training) when the workspace allows it, else its first module. */
function moduleOf(ws: Workspace): Module {
  return ws.modules.includes('DLC') ? 'DLC' : ws.modules[0]!;
}

/** The default teams: every quota that exactly one workspace uses, weight 1. */
export function defaultTeams(policy: Policy): OpenbMapping['teams'] {
  return policy.quotas.flatMap((q) => {
    const ws = policy.workspaces.filter((w) => w.quotas.includes(q.name));
    return ws.length === 1 ? [{ quota: q.name, workspace: ws[0]!.name, weight: 1, module: moduleOf(ws[0]!) }] : [];
  });
}

/** FNV-1a of a string: a stable team choice whatever the row order. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Reads an openb pod list into a workload under `mapping`. */
export function readOpenb(file: string, text: string, mapping: OpenbMapping): Workload {
  const rejected: Finding[] = [];
  const jobs: SimJob[] = [];
  const total = mapping.teams.reduce((s, t) => s + t.weight, 0);
  let cpuOnly = 0;
  let shared = 0;
  let constrained = 0;
  let zero = 0;
  const bad = (line: number, field: string, value: string, message: string) =>
    rejected.push({
      file,
      line,
      column: 1,
      code: 'trace/bad-value',
      severity: 'error',
      path: field,
      message: `${field} = "${shownValue(value)}": ${message}`,
      hint: 'openb columns: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time',
    });
  const rows = parseCsv(text, { columns: true, info: true, skip_empty_lines: true, trim: true, bom: true }) as unknown as Array<{ record: Record<string, string>; info: { lines: number } }>;
  const past = rows[MAX_JOBS];
  if (past) {
    const message = `the file holds more than ${formatCount(MAX_JOBS)} pods, the most one workload may hold`;
    const f: Finding = { file, line: past.info.lines, column: 1, code: 'trace/too-many-jobs', severity: 'error', path: '', message, hint: 'replay a part of the pod list' };
    return { source: file, synthetic: false, jobs: [], rejected: [f], notes: [] };
  }
  for (const { record: r, info } of rows) {
    const line = info.lines;
    const gpus = Number(r.num_gpu);
    // No gpu_milli column or an empty cell: whole GPUs.
    const milliText = r.gpu_milli ?? '';
    const milli = milliText === '' ? MILLI_PER_GPU : Number(milliText);
    const models = [
      ...new Set(
        (r.gpu_spec ?? '')
          .split('|')
          .map((m) => m.trim())
          .filter(Boolean),
      ),
    ];
    // Seconds from the start, within number-limits.ts's MAX_TIME_MS like every simulated time (number-text.ts).
    const createdMs = readSimTime(r.creation_time ?? '', 'time');
    const deletedMs = readSimTime(r.deletion_time ?? '', 'time');
    const qos = r.qos as OpenbQos;
    let ok = true;
    if (!Number.isInteger(gpus) || gpus < 0 || gpus > 32) ok = !bad(line, 'num_gpu', r.num_gpu ?? '', 'is not a GPU count 0..32');
    if (isRefusal(createdMs)) ok = !bad(line, 'creation_time', r.creation_time ?? '', `${createdMs.refused} in seconds`);
    else if (isRefusal(deletedMs) || deletedMs < createdMs)
      ok = !bad(line, 'deletion_time', r.deletion_time ?? '', isRefusal(deletedMs) ? `${deletedMs.refused} in seconds` : 'is not a time at or after creation_time');
    const unsafe = r.name === undefined ? undefined : unsafeCharacter(r.name);
    if (unsafe) ok = !bad(line, 'name', r.name ?? '', `holds the invisible character ${codePoint(unsafe.char)} at position ${unsafe.index + 1}`);
    if (!(OPENB_QOS as readonly string[]).includes(qos)) ok = !bad(line, 'qos', r.qos ?? '', `is not one of ${OPENB_QOS.join(', ')}`);
    if (gpus > 0 && (!Number.isInteger(milli) || milli < 1 || milli > MILLI_PER_GPU)) ok = !bad(line, 'gpu_milli', milliText, 'is not a share of a GPU 1..1000 (milli-GPUs)');
    else if (gpus > 1 && milli < MILLI_PER_GPU)
      ok = !bad(line, 'gpu_milli', milliText, `shares a GPU, but the pod asks ${gpus} GPUs: only a one-GPU pod may share (docs/policy-format.md "GPU sharing")`);
    if (!ok) continue;
    if (gpus === 0) {
      cpuOnly++;
      continue;
    }
    if (milli < MILLI_PER_GPU) shared++;
    if (models.length) constrained++;
    const created = (createdMs as number) / 1000;
    let duration = (deletedMs as number) - (createdMs as number);
    if (duration <= 0) {
      zero++;
      duration = 1000;
    }
    const name = r.name ?? `openb-${line}`;
    let pick = ((fnv(name) % 1_000_000) / 1_000_000) * total;
    const team = mapping.teams.find((t) => (pick -= t.weight) < 0) ?? mapping.teams[mapping.teams.length - 1]!;
    const m = mapping.qos[qos];
    const idle = m.idle !== 'none';
    const cpu = Number(r.cpu_milli);
    const mem = Number(r.memory_mib);
    const spec: JobSpec = {
      name,
      workspace: team.workspace,
      quota: team.quota,
      module: team.module,
      priority: m.priority,
      pods: 1,
      // A share of one GPU is its fraction (460 milli → 0.46), as a policy writes it.
      resources: { gpu: milli < MILLI_PER_GPU ? milli / MILLI_PER_GPU : gpus, ...(cpu > 0 ? { cpu } : {}), ...(mem > 0 ? { memory: mem } : {}) },
      ...(models.length ? { gpuModels: models } : {}),
      idleResources: m.idle,
      ...(idle ? { checkpoint: { every: 30 * 60_000 }, faultTolerance: { autoRestart: true, maxRestarts: 3 } } : {}),
      src: { file, line, column: 1, path: '' },
    };
    jobs.push({ spec, submit: created * 1000, duration });
  }
  const notes = [
    `openb mapping: QoS → priority/idle ${OPENB_QOS.map((q) => `${q} ${mapping.qos[q].priority}/${mapping.qos[q].idle}`).join(', ')}; pods → ${mapping.teams.map((t) => `${t.quota} (${t.workspace}) ×${t.weight}`).join(', ')} by a hash of the pod name`,
  ];
  if (cpuOnly) notes.push(`${cpuOnly} CPU-only pod(s) left out (the simulation places GPU jobs)`);
  if (shared) notes.push(`${shared} GPU-sharing pod(s) (gpu_milli < 1000) ask their share of one GPU`);
  if (constrained) notes.push(`${constrained} pod(s) name the GPU models they may run on (gpu_spec)`);
  if (zero) notes.push(`${zero} pod(s) with no lifetime run for one second`);
  return { source: file, synthetic: false, jobs: sortJobs(jobs), rejected, notes };
}

/** Parses `--openb-qos LS=7/none,BE=1/only` over the defaults. */
export function parseQosFlag(value: string): OpenbMapping['qos'] | string {
  const out = structuredClone(DEFAULT_QOS);
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(\w+)=(\d)(?:\/(none|acceptable|only))?$/.exec(part);
    if (!m || !(OPENB_QOS as readonly string[]).includes(m[1]!) || Number(m[2]) < 1)
      return `"${part}" is not QOS=PRIORITY[/IDLE] with QOS one of ${OPENB_QOS.join(', ')}, PRIORITY 1..9, IDLE none|acceptable|only`;
    out[m[1] as OpenbQos] = { priority: Number(m[2]), idle: (m[3] as IdleMode | undefined) ?? out[m[1] as OpenbQos].idle };
  }
  return out;
}

/** Parses `--openb-teams TeamA=2,TeamB=1` against the policy. */
export function parseTeamsFlag(value: string, policy: Policy): OpenbMapping['teams'] | string {
  const out: OpenbMapping['teams'] = [];
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^=]+)=(\d+(?:\.\d+)?)$/.exec(part);
    if (!m || !(Number(m[2]) > 0)) return `"${part}" is not QUOTA=WEIGHT`;
    const ws = policy.workspaces.filter((w) => w.quotas.includes(m[1]!));
    if (!policy.quotas.some((q) => q.name === m[1])) return `"${m[1]}" is not a quota of the policy`;
    if (ws.length !== 1) return `quota "${m[1]}" has ${ws.length} workspaces; the mapping needs exactly one`;
    out.push({ quota: m[1]!, workspace: ws[0]!.name, weight: Number(m[2]), module: moduleOf(ws[0]!) });
  }
  return out.length ? out : 'give at least one QUOTA=WEIGHT';
}
