/**
 * The simulation report as one self-contained HTML file: the key figures as tiles,
 * charts drawn by vega into inline SVG when the file is written (no script, no network
 * when it is opened), and the per-team and per-quota tables.
 */
import * as vega from 'vega';
import { escapeDisplay } from '../model/display-text.js';
import type { GroupFigures, Report } from '../simulate/report.js';

const WIDTH = 560;
const HEIGHT = 220;

/**
 * Text for the page: first every character a terminal or a browser's text layout obeys
 * made visible (`escapeDisplay`: a bidi override would reverse a name here too), then
 * the HTML specials as entities.
 */
function esc(s: string | number): string {
  return escapeDisplay(String(s)).text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

async function svgOf(spec: vega.Spec): Promise<string> {
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const base = (title: string): Partial<vega.Spec> => ({
  $schema: 'https://vega.github.io/schema/vega/v5.json',
  width: WIDTH,
  height: HEIGHT,
  padding: 8,
  title: { text: title, anchor: 'start', fontSize: 14 },
  config: { axis: { labelFontSize: 11, titleFontSize: 11 }, legend: { labelFontSize: 11, titleFontSize: 11 } },
});

/** Lines (or stacked areas) over simulated hours, one per series; optional dashed levels. */
function timeChart(title: string, hours: number[], series: Record<string, number[]>, yTitle: string, opts: { stack?: boolean; levels?: Array<{ name: string; value: number }> } = {}): vega.Spec {
  // Names reach the SVG as vega writes them (XML-escaped only): escaped for display first.
  const values = Object.entries(series).flatMap(([name, ys]) => ys.map((y, i) => ({ x: hours[i] ?? 0, y, c: escapeDisplay(name).text })));
  const levels = (opts.levels ?? []).map((l) => ({ c: escapeDisplay(l.name).text, y: l.value }));
  return {
    ...base(title),
    data: [
      {
        name: 't',
        values,
        transform: opts.stack
          ? [{ type: 'stack', groupby: ['x'], sort: { field: 'c' }, field: 'y' }]
          : [
              { type: 'formula', as: 'y0', expr: '0' },
              { type: 'formula', as: 'y1', expr: 'datum.y' },
            ],
      },
      { name: 'levels', values: levels },
    ],
    scales: [
      { name: 'x', type: 'linear', range: 'width', zero: true, domain: { data: 't', field: 'x' } },
      { name: 'y', type: 'linear', range: 'height', nice: true, zero: true, domain: { fields: [{ data: 't', field: 'y1' }, ...(levels.length ? [{ data: 'levels', field: 'y' }] : [])] } },
      { name: 'color', type: 'ordinal', range: 'category', domain: { data: 't', field: 'c' } },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'simulated hours', tickCount: 8 },
      { orient: 'left', scale: 'y', title: yTitle, grid: true, tickCount: 5 },
    ],
    legends: [{ fill: 'color', stroke: 'color', orient: 'bottom', direction: 'horizontal', columns: 4, title: '' }],
    marks: [
      {
        type: 'group',
        from: { facet: { name: 'f', data: 't', groupby: 'c' } },
        marks: [
          opts.stack
            ? {
                type: 'area',
                from: { data: 'f' },
                encode: {
                  enter: {
                    interpolate: { value: 'step-after' },
                    x: { scale: 'x', field: 'x' },
                    y: { scale: 'y', field: 'y0' },
                    y2: { scale: 'y', field: 'y1' },
                    fill: { scale: 'color', field: 'c' },
                    fillOpacity: { value: 0.85 },
                  },
                },
              }
            : {
                type: 'line',
                from: { data: 'f' },
                encode: {
                  enter: { interpolate: { value: 'step-after' }, x: { scale: 'x', field: 'x' }, y: { scale: 'y', field: 'y1' }, stroke: { scale: 'color', field: 'c' }, strokeWidth: { value: 1.6 } },
                },
              },
        ],
      },
      {
        type: 'rule',
        from: { data: 'levels' },
        encode: {
          enter: { x: { value: 0 }, x2: { signal: 'width' }, y: { scale: 'y', field: 'y' }, stroke: { scale: 'color', field: 'c' }, strokeDash: { value: [5, 4] }, strokeWidth: { value: 1.2 } },
        },
      },
    ],
  };
}

/** Horizontal bars, grouped by `g` when rows carry one. */
function barChart(title: string, given: Array<{ label: string; g: string; value: number }>, xTitle: string): vega.Spec {
  const rows = given.map((r) => ({ ...r, label: escapeDisplay(r.label).text }));
  const labels = [...new Set(rows.map((r) => r.label))];
  const height = Math.max(60, labels.length * (new Set(rows.map((r) => r.g)).size * 14 + 10));
  return {
    ...base(title),
    height,
    data: [{ name: 'b', values: rows }],
    scales: [
      { name: 'y', type: 'band', range: 'height', padding: 0.2, domain: { data: 'b', field: 'label' } },
      { name: 'x', type: 'linear', range: 'width', nice: true, zero: true, padding: 24, domain: { data: 'b', field: 'value' } },
      { name: 'color', type: 'ordinal', range: 'category', domain: { data: 'b', field: 'g' } },
    ],
    axes: [
      { orient: 'left', scale: 'y' },
      { orient: 'bottom', scale: 'x', title: xTitle, grid: true, tickCount: 5 },
    ],
    legends: new Set(rows.map((r) => r.g)).size > 1 ? [{ fill: 'color', orient: 'bottom', direction: 'horizontal' }] : [],
    marks: [
      {
        type: 'group',
        from: { facet: { data: 'b', name: 'row', groupby: 'label' } },
        encode: { enter: { y: { scale: 'y', field: 'label' } } },
        signals: [{ name: 'bandH', update: "bandwidth('y')" }],
        scales: [{ name: 'pos', type: 'band', range: [0, { signal: 'bandH' }], domain: { data: 'row', field: 'g' } }],
        marks: [
          {
            type: 'rect',
            from: { data: 'row' },
            encode: {
              enter: { y: { scale: 'pos', field: 'g' }, height: { scale: 'pos', band: 1 }, x: { scale: 'x', value: 0 }, x2: { scale: 'x', field: 'value' }, fill: { scale: 'color', field: 'g' } },
            },
          },
          {
            type: 'text',
            from: { data: 'row' },
            encode: {
              enter: {
                y: { scale: 'pos', field: 'g', band: 0.5 },
                x: { scale: 'x', field: 'value', offset: 4 },
                baseline: { value: 'middle' },
                text: { field: 'value' },
                fontSize: { value: 10 },
                fill: { value: '#333' },
              },
            },
          },
        ],
      },
    ],
  };
}

function tile(label: string, value: string, sub = ''): string {
  return `<div class="tile"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div>${sub ? `<div class="sub">${esc(sub)}</div>` : ''}</div>`;
}

function groupTable(kind: string, rows: Array<GroupFigures & { minGpu?: number; guaranteeUsed?: number }>): string {
  const quota = kind === 'quota';
  const head = [
    kind,
    ...(quota ? ['min GPUs', 'guarantee used'] : []),
    'jobs',
    'done',
    'unfinished',
    'ended preempted',
    'rejected',
    'wait p50 h',
    'p95 h',
    'max h',
    'GPU-h in quota',
    'borrowing',
    'idle',
    'preempted',
    'lost GPU-h',
    'restarts',
    'spot cost',
    'spot saved',
  ];
  const body = rows.map((g) => [
    g.name,
    ...(quota ? [g.minGpu ?? 0, `${((g.guaranteeUsed ?? 0) * 100).toFixed(1)}%`] : []),
    g.jobs,
    g.completed,
    g.unfinished,
    g.endedPreempted,
    g.rejected,
    g.wait.p50,
    g.wait.p95,
    g.wait.max,
    g.gpuHours.inQuota,
    g.gpuHours.borrowing,
    g.gpuHours.idle,
    g.preempted,
    g.lostGpuHours,
    g.restarts,
    g.spot.cost,
    g.spot.saved,
  ]);
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c, i) => `<td${i ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** The whole HTML document for a report. */
export async function renderHtml(r: Report, sections: readonly string[] = []): Promise<string> {
  const s = r.series;
  const t = r.totals;
  const charts: Array<[string, vega.Spec]> = [];
  charts.push(['utilisation', timeChart('GPUs in use by team (stacked); dashed: cluster capacity', s.hour, s.byTeam, 'GPUs', { stack: true, levels: [{ name: 'capacity', value: r.cluster.gpus }] })]);
  const quotaLevels = r.quotas.map((q) => ({ name: q.name, value: q.minGpu }));
  charts.push(['quotas', timeChart("Quota usage (in quota + borrowing); dashed: each quota's guarantee (min)", s.hour, s.byQuota, 'GPUs', { levels: quotaLevels })]);
  charts.push(['idle', timeChart('Idle and fragmented GPUs (fragmented: free GPUs no waiting pod shape can use)', s.hour, { idle: s.idle, fragmented: s.fragmented }, 'GPUs')]);
  charts.push(['waiting', timeChart('Jobs waiting in quota queues, and spot jobs running', s.hour, { 'waiting in queues': s.waiting, 'spot running': s.spotRunning }, 'jobs')]);
  charts.push([
    'wait',
    barChart(
      'Queue wait by team (hours from submission to first start)',
      r.teams.flatMap((g) => [
        { label: g.name, g: 'p50', value: g.wait.p50 },
        { label: g.name, g: 'p95', value: g.wait.p95 },
        { label: g.name, g: 'max', value: g.wait.max },
      ]),
      'hours',
    ),
  ]);
  if (r.preemptions.byRule.length) {
    charts.push([
      'rules',
      barChart(
        'Preemptions by rule',
        r.preemptions.byRule.map((x) => ({ label: x.rule, g: 'preemptions', value: x.count })),
        'preemptions',
      ),
    ]);
    charts.push([
      'victims',
      barChart(
        'Preemptions and lost GPU-hours by victim team',
        r.preemptions.byVictimTeam.flatMap((x) => [
          { label: x.team, g: 'preemptions', value: x.count },
          { label: x.team, g: 'lost GPU-hours', value: x.lostGpuHours },
        ]),
        'count / GPU-hours',
      ),
    ]);
  }
  if (r.spot.byInstanceType.length) {
    charts.push(['price', timeChart(`Spot market price per instance-hour${r.spot.synthetic ? ' (synthetic series)' : ''}`, s.hour, s.price, 'price / instance-hour')]);
    charts.push([
      'spot',
      barChart(
        'Spot cost vs pay-as-you-go for the same hours',
        r.spot.byInstanceType.flatMap((x) => [
          { label: x.name, g: 'spot cost', value: x.cost },
          { label: x.name, g: 'pay-as-you-go', value: x.payAsYouGo },
        ]),
        'money',
      ),
    ]);
  }
  const svgs = await Promise.all(charts.map(async ([id, spec]) => `<figure id="chart-${id}">${await svgOf(spec)}</figure>`));
  const tiles = [
    tile('Utilisation', `${(t.utilisation * 100).toFixed(1)}%`, `${t.usedGpuHours} of ${t.capacityGpuHours} GPU-hours`),
    tile('GPU-hours', `${t.usedGpuHours} used`, `+ ${t.idleGpuHours} idle = ${t.capacityGpuHours} capacity`),
    tile('Jobs', `${t.completed} done`, `${t.unfinished} unfinished, ${t.endedPreempted} ended preempted, ${t.rejected} rejected`),
    tile('Queue wait p95', `${t.wait.p95} h`, `p50 ${t.wait.p50} h, max ${t.wait.max} h`),
    tile('Preemptions', String(t.preemptions), `${t.restarts} restarts, ${t.lostGpuHours} GPU-hours lost`),
    ...(r.spot.byInstanceType.length
      ? [tile('Spot saved', String(r.spot.saved), `cost ${r.spot.cost} vs ${r.spot.payAsYouGo} pay-as-you-go; ${r.spot.interruptions.price + r.spot.interruptions.inventory} released`)]
      : []),
  ];
  const events = r.preemptions.first
    .slice(0, 50)
    .map(
      (e) =>
        `<tr><td class="n">${esc(e.hour)}</td><td>${esc(e.job)}</td><td>${esc(e.team)}</td><td>${esc(e.rule)}</td><td>${esc(e.source)}</td><td class="n">${esc(e.lostGpuHours)}</td><td>${esc(e.by)}</td><td>${esc(e.reason)}</td></tr>`,
    )
    .join('');
  const notes = [...r.workload.notes, ...r.notes];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quotient simulation: ${esc(r.policy)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;margin:0;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:20px 32px}header h1{margin:0 0 4px;font-size:22px}header p{margin:2px 0;color:#c9cfdb}
main{padding:20px 32px;max-width:1400px}
.tiles{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:20px}
.tile{background:#fff;border-radius:8px;padding:12px 16px;min-width:170px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.tile .label{font-size:12px;color:#5b6475;text-transform:uppercase;letter-spacing:.04em}.tile .value{font-size:24px;font-weight:600}.tile .sub{font-size:12px;color:#5b6475}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(660px,1fr));gap:16px}
figure{background:#fff;margin:0;padding:12px;border-radius:8px;box-shadow:0 1px 2px rgba(0,0,0,.08);overflow-x:auto}
table{border-collapse:collapse;background:#fff;margin:8px 0 20px;font-size:13px}th,td{padding:4px 8px;border-bottom:1px solid #e3e6ec;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}
h2{font-size:17px;margin:24px 0 8px}.notes li{color:#5b6475}
</style></head><body>
<header><h1>Simulation of ${esc(r.policy)}</h1>
<p>${esc(r.workload.source)}${r.workload.synthetic ? ' — synthetic' : ''} · ${esc(r.workload.jobs)} jobs${r.workload.rejectedRows ? ` (${esc(r.workload.rejectedRows)} rows left out)` : ''} · seed ${esc(r.seed)}</p>
<p>${esc(r.cluster.nodes)} nodes, ${esc(r.cluster.gpus)} GPUs · ${esc(r.hours)} simulated hours${r.until !== null ? ` (stopped at ${esc(r.until)} h)` : ''}</p></header>
<main>
<section class="tiles">${tiles.join('')}</section>
<section class="charts">${svgs.join('\n')}</section>
<h2>Teams</h2>${groupTable('team', r.teams)}
<h2>Quotas</h2>${groupTable('quota', r.quotas)}
${r.spot.byInstanceType.length ? `<h2>Spot market${r.spot.synthetic ? ' (synthetic series)' : ''}</h2><table><thead><tr><th>instance type</th><th>pay-as-you-go /h</th><th>jobs</th><th>GPU-h</th><th>cost</th><th>pay-as-you-go</th><th>saved</th><th>released: price</th><th>released: inventory</th></tr></thead><tbody>${r.spot.byInstanceType.map((x) => `<tr><td>${esc(x.name)}</td>${[x.payAsYouGoPrice, x.jobs, x.gpuHours, x.cost, x.payAsYouGo, x.saved, x.interruptions.price, x.interruptions.inventory].map((v) => `<td class="n">${esc(v)}</td>`).join('')}</tr>`).join('')}</tbody></table>` : ''}
${events ? `<h2>Preemptions and releases${r.preemptions.first.length > 50 ? ' (first 50)' : ''}</h2><table><thead><tr><th>hour</th><th>job</th><th>team</th><th>rule</th><th>source</th><th>lost GPU-h</th><th>made room for</th><th>reason</th></tr></thead><tbody>${events}</tbody></table>` : ''}
${sections.join('\n')}
${notes.length ? `<h2>Notes</h2><ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</main></body></html>
`;
}
