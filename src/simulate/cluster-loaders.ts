/**
 * Clusters from the public traces (../shared/data, docs/simulate.md "Real data"):
 *
 *   pai    pai-2020/pai_machine_spec.csv, no header: machine,gpu_type,cap_cpu,cap_mem,cap_gpu
 *          (cpu in cores, memory in GiB); CPU-only machines are left out, and said so
 *   openb  openb/openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model
 *   spot   spot-2026/node_info_df.csv: gpu_model,gpu_capacity_num,cpu_num,node_name
 *
 * Every node goes to one pool of the policy; its GPU model is its `instanceType` and its
 * `gpuModel` (what a job's `gpuModels` matches, engine/gpu-models.ts). Bad rows are
 * located findings.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { Finding } from '../errors.js';
import type { ClusterNode } from '../model/policy.js';
import { formatCount, MAX_CLUSTER_NODES } from '../policy/parse/number-limits.js';

export const CLUSTER_FORMATS = ['pai', 'openb', 'spot'] as const;
export type ClusterFormat = (typeof CLUSTER_FORMATS)[number];

/** Nodes read, rows that could not be, and what the reader must know. */
export interface LoadedCluster {
  nodes: ClusterNode[];
  findings: Finding[];
  notes: string[];
}

/** Reads a node list of `format` into nodes of `pool`. */
export function loadCluster(format: ClusterFormat, file: string, text: string, pool: string): LoadedCluster {
  const findings: Finding[] = [];
  const nodes: ClusterNode[] = [];
  let cpuOnly = 0;
  const bad = (line: number, field: string, value: string, message: string) =>
    findings.push({
      file,
      line,
      column: 1,
      code: 'cluster/bad-value',
      severity: 'error',
      path: field,
      message: `${field} = "${value}": ${message}`,
      hint: `see docs/simulate.md "Real data" for the ${format} columns`,
    });
  let rows: Array<{ record: string[] | Record<string, string>; info: { lines: number } }>;
  try {
    rows = parseCsv(text, { columns: format !== 'pai', info: true, skip_empty_lines: true, trim: true, bom: true }) as unknown as typeof rows;
  } catch (e) {
    return {
      nodes,
      findings: [
        {
          file,
          line: (e as { lines?: number }).lines ?? 1,
          column: 1,
          code: 'cluster/bad-csv',
          severity: 'error',
          path: '',
          message: `the CSV cannot be read: ${(e as Error).message}`,
          hint: 'check the file is the node list named',
        },
      ],
      notes: [],
    };
  }
  for (const { record, info } of rows) {
    const line = info.lines;
    let name: string;
    let gpus: number;
    let cpu: number | undefined;
    let memory: number | undefined;
    let model: string;
    if (format === 'pai') {
      const r = record as string[];
      [name, model] = [r[0] ?? '', r[1] ?? ''];
      gpus = Number(r[4]);
      cpu = Number(r[2]) * 1000;
      memory = Number(r[3]) * 1024;
    } else if (format === 'openb') {
      const r = record as Record<string, string>;
      name = r.sn ?? '';
      model = r.model ?? '';
      gpus = Number(r.gpu);
      cpu = Number(r.cpu_milli);
      memory = Number(r.memory_mib);
    } else {
      const r = record as Record<string, string>;
      name = `spot-node-${r.node_name ?? ''}`;
      model = r.gpu_model ?? '';
      gpus = Number(r.gpu_capacity_num);
      cpu = Number(r.cpu_num) * 1000;
      memory = undefined;
    }
    if (!Number.isInteger(gpus) || gpus < 0 || gpus > 32) {
      bad(line, 'gpu', String(gpus), 'is not a GPU count 0..32');
      continue;
    }
    if (cpu !== undefined && !(cpu >= 0)) {
      bad(line, 'cpu', String(cpu), 'is not a cpu capacity');
      continue;
    }
    if (memory !== undefined && !(memory >= 0)) {
      bad(line, 'memory', String(memory), 'is not a memory capacity');
      continue;
    }
    if (gpus === 0) {
      cpuOnly++;
      continue;
    }
    if (nodes.length === MAX_CLUSTER_NODES) {
      // The Cluster document's limit (policy/parse/number-limits.ts), for the nodes of a node list too.
      findings.push({
        file,
        line,
        column: 1,
        code: 'cluster/too-many-nodes',
        severity: 'error',
        path: '',
        message: `the node list holds more than ${formatCount(MAX_CLUSTER_NODES)} GPU nodes, the most a cluster may hold`,
        hint: 'simulate on a part of the node list',
      });
      break;
    }
    nodes.push({
      name,
      gpus,
      ...(cpu !== undefined ? { cpu } : {}),
      ...(memory !== undefined ? { memory } : {}),
      pool,
      instanceType: model,
      ...(model ? { gpuModel: model } : {}),
      src: { file, line, column: 1, path: '' },
    });
  }
  const notes = cpuOnly > 0 ? [`${cpuOnly} CPU-only node(s) of ${file} are left out: the simulation places GPU jobs`] : [];
  return { nodes, findings, notes };
}
