#!/usr/bin/env node
/**
 * Makes the openb replay example's data (docs/examples/trace-replay/README.md) from the
 * real trace, Alibaba cluster-trace-gpu-v2023 (openb_node_list_gpu_node.csv and
 * openb_pod_list_default.csv, Apache-2.0 as shipped by hkust-adsl/kubernetes-scheduler-
 * simulator). A faithful subset, every row copied as it is except the pods' times:
 *
 *   nodes  every 32nd node of the node list (38 nodes, 187 GPUs; the models in proportion)
 *   pods   every 2nd pod that asks a GPU, of those created from hour 2,800 on (the trace's
 *          first 2,800 hours hold 192 pods; its last 784 hours all the rest)
 *   times  arrivals 80× closer together: creation_time becomes (creation_time − 2,800 h) / 80;
 *          each pod keeps its own lifetime (deletion_time − creation_time), so the
 *          cluster sees 80× the trace's arrival rate on 1/32 of its nodes
 *
 *   node scripts/openb-replay-subset.mjs [DATA_DIR]      (default ../shared/data/openb)
 *
 * Deterministic: the same trace gives the same files byte for byte.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DATA = process.argv[2] ?? '../shared/data/openb';
const OUT = 'docs/examples/trace-replay';
const NODE_EVERY = 32;
const POD_EVERY = 2;
const FROM_S = 2800 * 3600;
const SPEEDUP = 80;

/** A CSV of plain cells (the openb files quote nothing): header and rows. */
function read(file) {
  const [head, ...rows] = readFileSync(join(DATA, file), 'utf8').trim().split(/\r?\n/);
  return { head, cols: head.split(','), rows };
}

const nodes = read('openb_node_list_gpu_node.csv');
const pickedNodes = nodes.rows.filter((_, i) => i % NODE_EVERY === 0);
writeFileSync(join(OUT, 'openb-nodes.csv'), `${[nodes.head, ...pickedNodes].join('\n')}\n`);

const pods = read('openb_pod_list_default.csv');
const col = (name) => pods.cols.indexOf(name);
const [gpuCol, createdCol, deletedCol, scheduledCol] = ['num_gpu', 'creation_time', 'deletion_time', 'scheduled_time'].map(col);
const gpuPods = pods.rows.map((r) => r.split(',')).filter((c) => Number(c[gpuCol]) > 0 && Number(c[createdCol]) >= FROM_S);
const picked = gpuPods
  .filter((_, i) => i % POD_EVERY === 0)
  .map((c) => {
    const created = Number(c[createdCol]);
    const at = Math.round((created - FROM_S) / SPEEDUP);
    const out = [...c];
    out[createdCol] = String(at);
    out[deletedCol] = String(at + (Number(c[deletedCol]) - created));
    // The time the trace's scheduler placed it is the trace's, not the replay's: left empty.
    out[scheduledCol] = '';
    return out.join(',');
  });
writeFileSync(join(OUT, 'openb-pods.csv'), `${[pods.head, ...picked].join('\n')}\n`);

const gpus = pickedNodes.reduce((s, r) => s + Number(r.split(',')[3]), 0);
console.log(`${OUT}/openb-nodes.csv: ${pickedNodes.length} nodes, ${gpus} GPUs; ${OUT}/openb-pods.csv: ${picked.length} pods`);
