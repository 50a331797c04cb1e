// Reads Kueue's preemption_test.go / preemption_hierarchical_test.go (Go source, as text)
// and writes each case of TestPreemption / TestHierarchicalPreemptions as data.
// Usage: node translate.mjs <test.go> <TestFunc> <out.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { Parser, chain, qual, tokenize } from './go-expr.mjs';

const [, , file, testFunc, outFile] = process.argv;
const src = readFileSync(file, 'utf8');
const start = src.indexOf(`func ${testFunc}(`);
const end = src.indexOf('\nfunc ', start + 10);
const body = src.slice(start, end === -1 ? undefined : end);
const toks = tokenize(body);

// Go's zero time and a fixed "now", in ms since the epoch.
const NOW = 1_700_000_000_000;
const ZERO_TIME = -62_135_596_800_000;

// Variables of the test function before `cases :=`.
const vars = new Map();
let casesLit = null;
for (let i = 0; i < toks.length; i++) {
  if (toks[i].t === 'id' && toks[i + 1]?.t === 'p' && toks[i + 1].v === ':=') {
    const name = toks[i].v;
    const p = new Parser(toks, i + 2);
    try {
      if (name === 'cases') {
        const type = p.typeName();
        casesLit = p.lit(type);
        break;
      }
      vars.set(name, p.expr());
    } catch {
      /* not an expression we need */
    }
  }
}
if (!casesLit) throw new Error('no cases literal');

class Unsupported extends Error {}

function str(e) {
  if (e.k === 'str') return e.v;
  if (e.k === 'call' && e.args.length === 1) return str(e.args[0]); // kueue.ClusterQueueReference("x")
  if (e.k === 'id' || e.k === 'sel') {
    const q = qual(e);
    if (q === 'kueue.DefaultPodSetName') return 'main';
    throw new Unsupported(`string from ${q}`);
  }
  throw new Unsupported(`string from ${e.k}`);
}

function num(e) {
  if (e.k === 'num') return e.v;
  if (e.k === 'unary' && e.op === '-') return -num(e.x);
  if (e.k === 'call' && e.args.length === 1) return num(e.args[0]); // int32(0), new(int32(0)), ptr.To[int32](0)
  if (e.k === 'bin') { const l = num(e.l); const r = num(e.r); return e.op === '*' ? l * r : e.op === '+' ? l + r : e.op === '-' ? l - r : l / r; }
  if (e.k === 'sel' || e.k === 'id') {
    const q = qual(e);
    const d = { 'time.Second': 1000, 'time.Minute': 60_000, 'time.Hour': 3_600_000, 'time.Millisecond': 1, now: NOW }[q];
    if (d !== undefined) return d;
  }
  throw new Unsupported(`number from ${JSON.stringify(e).slice(0, 80)}`);
}

function time(e) {
  if (e.k === 'id' && e.name === 'now') return NOW;
  if (e.k === 'call' && e.fn.k === 'sel' && e.fn.name === 'Add') return time(e.fn.x) + num(e.args[0]);
  throw new Unsupported(`time from ${JSON.stringify(e).slice(0, 80)}`);
}

function resource(e) {
  if (e.k === 'str') return e.v;
  const q = e.k === 'call' ? null : qual(e);
  if (q === 'corev1.ResourceCPU') return 'cpu';
  if (q === 'corev1.ResourceMemory') return 'memory';
  if (q === 'corev1.ResourcePods') return 'pods';
  if (e.k === 'call') return str(e.args[0]);
  throw new Unsupported(`resource ${q}`);
}

const SUFFIX = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
/** A Kubernetes quantity in the units of these cases: cpu in millicores, anything else as counted (memory in bytes). */
function quantity(s, res) {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(s);
  if (!m) throw new Unsupported(`quantity ${s}`);
  const v = Number(m[1]) * (m[2] ? SUFFIX[m[2]] : 1);
  const out = res === 'cpu' ? Math.round(v * 1000) : v;
  if (!Number.isInteger(out)) throw new Unsupported(`fractional quantity ${s} of ${res}`);
  return out;
}
const fr = (flavor, res) => `${flavor}/${res}`;

function litField(lit, key) {
  for (const el of lit.elems) if (el.key && (el.key.name === key || qual(el.key) === key)) return el.value;
  return undefined;
}

function flavorQuotas(e) {
  const c = chain(e);
  if (c[0].name !== 'MakeFlavorQuotas') throw new Unsupported(`flavor quotas ${c[0].name}`);
  const flavor = str(c[0].args[0]);
  const out = {};
  for (const m of c.slice(1)) {
    if (m.name === 'Resource') {
      const res = resource(m.args[0]);
      const qs = m.args.slice(1).map(str);
      out[fr(flavor, res)] = [qs[0] ? quantity(qs[0], res) : 0, qs[1] ? quantity(qs[1], res) : null, qs[2] ? quantity(qs[2], res) : null];
    } else if (m.name !== 'Obj') throw new Unsupported(`FlavorQuotas.${m.name}`);
  }
  return out;
}

const POLICY = (e) => {
  const q = qual(e);
  const m = /PreemptionPolicy(\w+)$|BorrowWithinCohortPolicy(\w+)$/.exec(q);
  if (!m) throw new Unsupported(`policy ${q}`);
  return m[1] ?? m[2];
};

function preemption(lit) {
  const out = {};
  for (const el of lit.elems) {
    const k = el.key.name;
    if (k === 'WithinClusterQueue' || k === 'ReclaimWithinCohort') out[k[0].toLowerCase() + k.slice(1)] = POLICY(el.value);
    else if (k === 'BorrowWithinCohort') {
      const b = el.value.k === 'unary' ? el.value.x : el.value;
      const policy = POLICY(litField(b, 'Policy'));
      const t = litField(b, 'MaxPriorityThreshold');
      out.borrowWithinCohort = t === undefined ? { policy } : { policy, maxPriorityThreshold: num(t) };
    } else throw new Unsupported(`preemption field ${k}`);
  }
  return out;
}

function clusterQueue(e) {
  const c = chain(e);
  if (c[0].name !== 'MakeClusterQueue') throw new Unsupported(`cluster queue ${c[0].name}`);
  const cq = { name: str(c[0].args[0]), kind: 'ClusterQueue', parent: null, quota: {} };
  for (const m of c.slice(1)) {
    if (m.name === 'Cohort') cq.parent = str(m.args[0]);
    else if (m.name === 'ResourceGroup') for (const a of m.args) Object.assign(cq.quota, flavorQuotas(a));
    else if (m.name === 'Preemption') cq.preemption = preemption(m.args[0]);
    else if (m.name === 'Obj' || m.name === 'QueueingStrategy') continue;
    else throw new Unsupported(`ClusterQueue.${m.name}`);
  }
  return cq;
}

function cohort(e) {
  const c = chain(e);
  if (c[0].name !== 'MakeCohort') throw new Unsupported(`cohort ${c[0].name}`);
  const co = { name: str(c[0].args[0]), kind: 'Cohort', parent: null, quota: {} };
  for (const m of c.slice(1)) {
    if (m.name === 'Parent') co.parent = str(m.args[0]);
    else if (m.name === 'ResourceGroup') for (const a of m.args) Object.assign(co.quota, flavorQuotas(a));
    else if (m.name !== 'Obj') throw new Unsupported(`Cohort.${m.name}`);
  }
  return co;
}

function podSet(e) {
  const c = chain(e);
  if (c[0].name !== 'MakePodSet') throw new Unsupported(`pod set ${c[0].name}`);
  const ps = { name: str(c[0].args[0]), count: num(c[0].args[1]), requests: {} };
  for (const m of c.slice(1)) {
    if (m.name === 'Request') { const res = resource(m.args[0]); ps.requests[res] = quantity(str(m.args[1]), res); }
    else if (m.name !== 'Obj') throw new Unsupported(`PodSet.${m.name}`);
  }
  return ps;
}

function admission(e) {
  const c = chain(e);
  if (c[0].name !== 'MakeAdmission') throw new Unsupported(`admission ${c[0].name}`);
  const adm = { clusterQueue: str(c[0].args[0]), usage: {} };
  for (const m of c.slice(1)) {
    if (m.name === 'PodSets') {
      for (const a of m.args) {
        const pc = chain(a);
        if (pc[0].name !== 'MakePodSetAssignment') throw new Unsupported(`pod set assignment ${pc[0].name}`);
        for (const pm of pc.slice(1)) {
          if (pm.name === 'Assignment') {
            const res = resource(pm.args[0]);
            const k = fr(str(pm.args[1]), res);
            adm.usage[k] = (adm.usage[k] ?? 0) + quantity(str(pm.args[2]), res);
          } else if (pm.name !== 'Obj' && pm.name !== 'Count') throw new Unsupported(`PodSetAssignment.${pm.name}`);
        }
      }
    } else if (m.name !== 'Obj') throw new Unsupported(`Admission.${m.name}`);
  }
  return adm;
}

function workload(e) {
  let c = chain(e);
  if (c[0].ref) {
    const base = vars.get(c[0].name);
    if (!base) throw new Unsupported(`workload variable ${c[0].name}`);
    c = [...chain(base), ...c.slice(1)];
  }
  if (c[0].name !== 'MakeWorkload') throw new Unsupported(`workload ${c[0].name}`);
  const w = { name: str(c[0].args[0]), priority: 0, createdAt: ZERO_TIME, podSets: [{ name: 'main', count: 1, requests: {} }], conditions: [] };
  for (const m of c.slice(1)) {
    switch (m.name) {
      case 'Priority': w.priority = num(m.args[0]); break;
      case 'Request': { const res = resource(m.args[0]); w.podSets[0].requests[res] = quantity(str(m.args[1]), res); break; }
      case 'PodSets': w.podSets = m.args.map(podSet); break;
      case 'Creation': w.createdAt = time(m.args[0]); break;
      case 'ReserveQuotaAt': { const a = admission(m.args[0]); w.clusterQueue = a.clusterQueue; w.usage = a.usage; w.admittedAt = time(m.args[1]); w.conditions = []; break; }
      case 'SimpleReserveQuota': {
        const flavor = str(m.args[1]);
        w.clusterQueue = str(m.args[0]);
        w.usage = {};
        for (const [res, q] of Object.entries(w.podSets[0].requests)) w.usage[fr(flavor, res)] = q * w.podSets[0].count;
        w.admittedAt = time(m.args[2]);
        w.conditions = [];
        break;
      }
      case 'Condition': {
        const lit = m.args[0];
        const type = qual(litField(lit, 'Type'));
        const status = qual(litField(lit, 'Status'));
        const reason = litField(lit, 'Reason');
        w.conditions = w.conditions.filter((x) => x.type !== type);
        w.conditions.push({ type: type.replace(/^kueue\.Workload/, ''), status: status.endsWith('True'), reason: reason ? str(reason) : '' });
        break;
      }
      case 'UID': w.uid = str(m.args[0]); break;
      case 'Clone': case 'Obj': case 'Label': case 'SchedulingStatsEviction': break;
      default: throw new Unsupported(`Workload.${m.name}`);
    }
  }
  return w;
}

function assignment(e) {
  if (e.k === 'call' && qual(e.fn) === 'singlePodSetAssignment') return [{ name: 'main', count: 1, flavors: resourceAssignment(e.args[0]) }];
  if (e.k === 'lit') {
    const ps = litField(e, 'PodSets');
    return ps.elems.map(({ value }) => ({ name: str(litField(value, 'Name')), count: litField(value, 'Count') ? num(litField(value, 'Count')) : 0, flavors: resourceAssignment(litField(value, 'Flavors')) }));
  }
  throw new Unsupported(`assignment ${e.k}`);
}

function resourceAssignment(lit) {
  const out = {};
  for (const el of lit.elems) {
    const v = el.value.k === 'unary' ? el.value.x : el.value;
    const extra = v.elems.map((x) => x.key.name).filter((k) => k !== 'Name' && k !== 'Mode');
    if (extra.length) throw new Unsupported(`FlavorAssignment fields ${extra}`);
    out[resource(el.key)] = { flavor: str(litField(v, 'Name')), mode: qual(litField(v, 'Mode')).replace('flavorassigner.', '') };
  }
  return out;
}

const list = (e) => {
  if (e.k === 'id') { const v = vars.get(e.name); if (!v) throw new Unsupported(`variable ${e.name}`); return v.elems.map((x) => x.value); }
  return e.elems.map((x) => x.value);
};

const cases = [];
const leftOut = [];
for (const { key, value } of casesLit.elems) {
  const name = `${testFunc}/${str(key)}`;
  try {
    const f = (k) => litField(value, k);
    const known = new Set(['clusterQueues', 'cohorts', 'admitted', 'incoming', 'targetCQ', 'assignment', 'wantPreempted', 'wantWorkloads']);
    const extra = value.elems.map((x) => x.key.name).filter((k) => !known.has(k));
    if (extra.length) throw new Unsupported(`case fields not modelled: ${extra.join(', ')}`);
    const nodes = [...list(f('clusterQueues')).map(clusterQueue), ...(f('cohorts') ? list(f('cohorts')).map(cohort) : [])];
    // Cohorts named but not declared exist implicitly, as in Kueue.
    for (const n of [...nodes]) {
      if (n.parent !== null && !nodes.some((m) => m.name === n.parent)) nodes.push({ name: n.parent, kind: 'Cohort', parent: null, quota: {} });
    }
    const admitted = (f('admitted') ? list(f('admitted')) : []).map(workload);
    const inc = workload(f('incoming'));
    const asg = assignment(f('assignment'));
    const targetCQ = str(f('targetCQ'));
    const usage = {};
    const need = new Set();
    asg.forEach((psa, i) => {
      for (const [res, a] of Object.entries(psa.flavors)) if (a.mode === 'Preempt') need.add(fr(a.flavor, res));
      const ps = inc.podSets[i];
      if (!ps) return;
      for (const [res, q] of Object.entries(ps.requests)) {
        if (q === 0) continue;
        const a = psa.flavors[res];
        if (!a) throw new Unsupported(`incoming requests ${res} with no flavor assigned`);
        const k = fr(a.flavor, res);
        usage[k] = (usage[k] ?? 0) + q * psa.count;
      }
    });
    const wantPreempted = f('wantPreempted') ? num(f('wantPreempted')) : 0;
    const before = new Map(admitted.map((w) => [w.name, w]));
    const want = [];
    for (const w of (f('wantWorkloads') ? list(f('wantWorkloads')) : []).map(workload)) {
      const p = w.conditions.find((c) => c.type === 'Preempted' && c.status);
      const had = before.get(w.name)?.conditions.find((c) => c.type === 'Preempted' && c.status);
      if (p && (!had || had.reason !== p.reason)) want.push({ workload: w.name, reason: p.reason });
    }
    const evicted = (w) => w.conditions.some((c) => c.type === 'Evicted' && c.status);
    cases.push({
      name,
      nodes: nodes.map((n) => ({ name: n.name, kind: n.kind, parent: n.parent, quota: n.quota, ...(n.preemption ? { preemption: n.preemption } : {}) })),
      workloads: admitted.map((w) => ({ name: w.name, clusterQueue: w.clusterQueue, priority: w.priority, createdAt: w.createdAt, admittedAt: w.admittedAt, evicted: evicted(w), usage: w.usage })),
      incoming: { name: inc.name, clusterQueue: targetCQ, priority: inc.priority, createdAt: inc.createdAt, usage },
      needPreemption: [...need],
      wantPreempted,
      want,
    });
  } catch (err) {
    if (!(err instanceof Unsupported)) throw new Error(`${name}: ${err.stack}`);
    leftOut.push({ name, reason: err.message });
  }
}
writeFileSync(outFile, JSON.stringify({ source: `kubernetes-sigs/kueue@ff69552 pkg/scheduler/preemption/${file.replace(/.*\//, '')} ${testFunc}`, units: 'cpu in millicores; memory in bytes; times in ms since the epoch (Go zero time for an unset creation time)', cases, leftOut }, null, 1));
console.log(`${testFunc}: ${cases.length} cases, ${leftOut.length} left out`);
for (const l of leftOut) console.log(`  left out: ${l.name}: ${l.reason}`);
