/**
 * The simulation report as one self-contained HTML file: the key figures as tiles,
 * charts drawn by vega into inline SVG when the file is written (no script, no network
 * when it is opened), and the per-team and per-quota tables.
 */
import * as vega from 'vega';
import { escapeDisplay } from '../model/display-text.js';
import type { GroupFigures, QuotaFigures, Report } from '../simulate/report.js';

const WIDTH = 640;
const HEIGHT = 240;

/** Okabe–Ito: eight colours told apart with every common colour-vision deficiency. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#999999'];
/** Dashed levels (capacity, guarantees) are drawn dark, apart from the data's colours. */
const LEVEL_COLOURS = ['#1d2330', '#7a2e0e', '#3b3b98', '#14532d', '#6b21a8', '#475569'];

/** Numbers for people: thousands separators, at most `digits` decimals. */
export function formatNumber(x: number, digits = 2): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/**
 * Hours as a duration: `45m`, `1h 17m`, `7h`, `3d 4h`. Minutes are kept under a day, so
 * 1.28 h and 1.5 h read apart (a report's waits and blocked times are often a few hours).
 */
export function formatHours(h: number): string {
  if (h === 0) return '0';
  const minutes = Math.round(h * 60);
  if (minutes < 1) return '<1m';
  if (minutes < 60) return `${minutes}m`;
  if (minutes < 24 * 60) return minutes % 60 === 0 ? `${minutes / 60}h` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
  const total = Math.round(h);
  const d = Math.floor(total / 24);
  const rest = total % 24;
  return rest === 0 ? `${formatNumber(d, 0)}d` : `${formatNumber(d, 0)}d ${rest}h`;
}

/** The same formats as vega expressions, for axis labels drawn in the SVG. */
const NUMBER_LABEL = "format(datum.value, ',.2~f')";
const HOURS_LABEL =
  "datum.value == 0 ? '0' : datum.value < 1 ? format(datum.value * 60, ',.0f') + 'm' : datum.value < 24 ? format(datum.value, ',.1~f') + 'h' : format(floor(datum.value / 24), ',') + 'd' + (round(datum.value % 24) ? ' ' + round(datum.value % 24) + 'h' : '')";

/**
 * Text for the page: first every character a terminal or a browser's text layout obeys
 * made visible (`escapeDisplay`: a bidi override would reverse a name here too), then
 * the HTML specials as entities.
 */
function esc(s: string | number): string {
  return escapeDisplay(String(s)).text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The chart as SVG that scales with its card: a viewBox in place of a fixed width and height. */
async function svgOf(spec: vega.Spec): Promise<string> {
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    // vega writes a viewBox beside its width and height: the size goes, one viewBox stays.
    return svg.replace(/^<svg([^>]*?) width="([\d.]+)" height="([\d.]+)"([^>]*)>/, (_all, pre: string, w: string, h: string, post: string) => {
      const attrs = `${pre}${post}`.replace(/ viewBox="[^"]*"/g, '');
      return `<svg${attrs} viewBox="0 0 ${w} ${h}" preserveAspectRatio="xMinYMin meet">`;
    });
  } finally {
    view.finalize();
  }
}

/**
 * A chart's title as lines no wider than its plot: vega widens the whole chart to a long
 * one-line title, and the card then draws it at a fraction of its size. Without a canvas
 * vega reckons a character 0.8 of the font size wide (14 px here), so lines are cut to that.
 */
export function titleLines(title: string, maxChars = Math.floor(WIDTH / (0.8 * 14))): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of title.split(' ')) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const base = (title: string): Partial<vega.Spec> => ({
  $schema: 'https://vega.github.io/schema/vega/v5.json',
  width: WIDTH,
  height: HEIGHT,
  padding: 8,
  title: { text: titleLines(title), anchor: 'start', fontSize: 14 },
  // Legends at the bottom stack under each other (vega lays them side by side by default, which made
  // a chart with a series legend and a levels legend twice as wide as its plot, drawn at a third of its size).
  config: {
    axis: { labelFontSize: 11, titleFontSize: 11 },
    legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 170, layout: { bottom: { anchor: 'start', direction: 'vertical', margin: 6 } } },
  },
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
      // Time starts where the data does; counts of GPUs and jobs start at zero.
      { name: 'x', type: 'linear', range: 'width', zero: false, nice: false, domain: { data: 't', field: 'x' } },
      { name: 'y', type: 'linear', range: 'height', nice: true, zero: true, domain: { fields: [{ data: 't', field: 'y1' }, ...(levels.length ? [{ data: 'levels', field: 'y' }] : [])] } },
      { name: 'color', type: 'ordinal', range: PALETTE, domain: { data: 't', field: 'c' } },
      ...(levels.length ? [{ name: 'level', type: 'ordinal' as const, range: LEVEL_COLOURS, domain: { data: 'levels', field: 'c' } }] : []),
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'simulated time', tickCount: 8, encode: { labels: { update: { text: { signal: HOURS_LABEL } } } } },
      { orient: 'left', scale: 'y', title: yTitle, grid: true, tickCount: 5, encode: { labels: { update: { text: { signal: NUMBER_LABEL } } } } },
    ],
    legends: [
      { [opts.stack ? 'fill' : 'stroke']: 'color', symbolType: opts.stack ? 'square' : 'stroke', orient: 'bottom', direction: 'horizontal', columns: 3, title: '' },
      ...(levels.length
        ? [{ stroke: 'level', symbolType: 'stroke', symbolStrokeWidth: 2, symbolDash: [5, 3], orient: 'bottom' as const, direction: 'horizontal' as const, columns: 3, title: 'dashed' }]
        : []),
    ],
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
        name: 'level',
        from: { data: 'levels' },
        encode: {
          enter: { x: { value: 0 }, x2: { signal: 'width' }, y: { scale: 'y', field: 'y' }, stroke: { scale: 'level', field: 'c' }, strokeDash: { value: [6, 4] }, strokeWidth: { value: 2 } },
        },
      },
    ],
  };
}

/** Horizontal bars, grouped by `g` when rows carry one. */
function barChart(title: string, given: Array<{ label: string; g: string; value: number }>, xTitle: string, hours = false): vega.Spec {
  const rows = given.map((r) => ({ ...r, label: escapeDisplay(r.label).text }));
  const labels = [...new Set(rows.map((r) => r.label))];
  const height = Math.max(60, labels.length * (new Set(rows.map((r) => r.g)).size * 14 + 10));
  return {
    ...base(title),
    height,
    data: [{ name: 'b', values: rows }],
    scales: [
      { name: 'y', type: 'band', range: 'height', padding: 0.2, domain: { data: 'b', field: 'label' } },
      { name: 'x', type: 'linear', range: 'width', nice: true, zero: true, domain: { data: 'b', field: 'value' } },
      { name: 'color', type: 'ordinal', range: PALETTE, domain: { data: 'b', field: 'g' } },
    ],
    axes: [
      { orient: 'left', scale: 'y' },
      { orient: 'bottom', scale: 'x', title: xTitle, grid: true, tickCount: 5, encode: { labels: { update: { text: { signal: hours ? HOURS_LABEL : NUMBER_LABEL } } } } },
    ],
    legends: new Set(rows.map((r) => r.g)).size > 1 ? [{ fill: 'color', orient: 'bottom', direction: 'horizontal', columns: 3 }] : [],
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
                text: { signal: hours ? HOURS_LABEL : NUMBER_LABEL },
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

function groupTable(kind: string, rows: Array<GroupFigures & { minGpu?: number; guaranteeUsed?: number; subtree?: QuotaFigures['subtree'] }>): string {
  const quota = kind === 'quota';
  const head = [
    kind,
    ...(quota ? ['min GPUs', 'guarantee used'] : []),
    'jobs',
    'done',
    'unfinished',
    'ended preempted',
    'rejected',
    'wait p50',
    'p95',
    'max',
    'still waiting (longest)',
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
    ...(quota ? [formatNumber(g.minGpu ?? 0), guaranteeText(g.guaranteeUsed ?? 0, g.subtree)] : []),
    formatNumber(g.jobs),
    formatNumber(g.completed),
    formatNumber(g.unfinished),
    formatNumber(g.endedPreempted),
    formatNumber(g.rejected),
    formatHours(g.wait.p50),
    formatHours(g.wait.p95),
    formatHours(g.wait.max),
    g.wait.stillWaiting ? `${formatNumber(g.wait.stillWaiting)} (${formatHours(g.wait.longestStillWaiting)})` : '0',
    formatNumber(g.gpuHours.inQuota),
    formatNumber(g.gpuHours.borrowing),
    formatNumber(g.gpuHours.idle),
    formatNumber(g.preempted),
    formatNumber(g.lostGpuHours),
    formatNumber(g.restarts),
    formatNumber(g.spot.cost),
    formatNumber(g.spot.saved),
  ]);
  return `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c, i) => `<td${i ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
}

/** A quota's guarantee used; a parent's with its subtree's beside it. */
function guaranteeText(own: number, subtree: QuotaFigures['subtree'] | undefined): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return subtree && subtree.quotas > 1 ? `${pct(own)} own, ${pct(subtree.guaranteeUsed)} subtree` : pct(own);
}

/** A chart: its id, whether it draws a capacity or guarantee level, and its spec. */
interface Chart {
  id: string;
  levels: boolean;
  spec: vega.Spec;
}

/** The quota chart's lines: a leaf's use; a parent's subtree's use (as the table's) and its own jobs', labelled. */
function quotaSeries(s: Report['series']): Record<string, number[]> {
  const subtree = s.byQuotaSubtree ?? {};
  return Object.fromEntries(
    Object.entries(s.byQuota).flatMap(([q, ys]) =>
      subtree[q]
        ? [
            [`${q} (subtree)`, subtree[q]],
            [`${q} (own)`, ys],
          ]
        : [[q, ys]],
    ),
  );
}

function charts(r: Report): Chart[] {
  const s = r.series;
  const out: Chart[] = [];
  const capacity = [{ name: 'cluster capacity', value: r.cluster.gpus }];
  out.push({ id: 'utilisation', levels: true, spec: timeChart('GPUs in use by team (stacked), and the cluster capacity', s.hour, s.byTeam, 'GPUs', { stack: true, levels: capacity }) });
  const quotaLevels = r.quotas.map((q) => ({ name: `${q.name} min`, value: q.minGpu }));
  out.push({
    id: 'quotas',
    levels: true,
    spec: timeChart("Quota usage (in quota + borrowing; for a parent its subtree's, which its guarantee covers, and its own jobs'), and each quota's guarantee (min)", s.hour, quotaSeries(s), 'GPUs', {
      levels: quotaLevels,
    }),
  });
  out.push({
    id: 'idle',
    levels: true,
    spec: timeChart('Idle and fragmented GPUs (fragmented: free GPUs no waiting pod shape can use)', s.hour, { idle: s.idle, fragmented: s.fragmented }, 'GPUs', { levels: capacity }),
  });
  out.push({ id: 'waiting', levels: false, spec: timeChart('Jobs waiting in quota queues, and spot jobs running', s.hour, { 'waiting in queues': s.waiting, 'spot running': s.spotRunning }, 'jobs') });
  out.push({
    id: 'wait',
    levels: false,
    spec: barChart(
      'Queue wait by team (submission to first start; "still waiting": the longest wait of a job that never started)',
      r.teams.flatMap((g) => [
        { label: g.name, g: 'p50', value: g.wait.p50 },
        { label: g.name, g: 'p95', value: g.wait.p95 },
        { label: g.name, g: 'max', value: g.wait.max },
        { label: g.name, g: 'still waiting', value: g.wait.longestStillWaiting },
      ]),
      'wait',
      true,
    ),
  });
  if (r.queues.some((q) => q.blockedHours > 0))
    out.push({
      id: 'blocked',
      levels: false,
      spec: barChart(
        'GPU-hours held back by a blocked queue head, per queue',
        r.queues.filter((q) => q.blockedHours > 0).map((q) => ({ label: `${q.quota} (${q.strategy})`, g: 'held back GPU-hours', value: q.heldBackGpuHours })),
        'GPU-hours',
      ),
    });
  if (r.preemptions.byRule.length) {
    out.push({
      id: 'rules',
      levels: false,
      spec: barChart(
        'Preemptions by rule',
        r.preemptions.byRule.map((x) => ({ label: x.rule, g: 'preemptions', value: x.count })),
        'preemptions',
      ),
    });
    out.push({
      id: 'victims',
      levels: false,
      spec: barChart(
        'Preemptions and lost GPU-hours by victim team',
        r.preemptions.byVictimTeam.flatMap((x) => [
          { label: x.team, g: 'preemptions', value: x.count },
          { label: x.team, g: 'lost GPU-hours', value: x.lostGpuHours },
        ]),
        'count / GPU-hours',
      ),
    });
  }
  if (r.spot.byInstanceType.length) {
    out.push({ id: 'price', levels: false, spec: timeChart(`Spot market price per instance-hour${r.spot.synthetic ? ' (synthetic series)' : ''}`, s.hour, s.price, 'price / instance-hour') });
    out.push({
      id: 'spot',
      levels: false,
      spec: barChart(
        'Spot cost vs pay-as-you-go for the same hours',
        r.spot.byInstanceType.flatMap((x) => [
          { label: x.name, g: 'spot cost', value: x.cost },
          { label: x.name, g: 'pay-as-you-go', value: x.payAsYouGo },
        ]),
        'money',
      ),
    });
  }
  return out;
}

/**
 * A section of the HTML report: its HTML, from the report. The page is the sections in
 * HTML_SECTIONS' order; a new section (say a risk ranking) is one more renderer in that
 * list, or passed to renderHtml beside them.
 */
export type HtmlSection = (r: Report) => string | Promise<string>;

function tilesSection(r: Report): string {
  const t = r.totals;
  const tiles = [
    tile('Utilisation', `${(t.utilisation * 100).toFixed(1)}%`, `${formatNumber(t.usedGpuHours)} of ${formatNumber(t.capacityGpuHours)} GPU-hours`),
    tile(
      'GPU-hours',
      `${formatNumber(t.usedGpuHours, 0)} used`,
      `+ ${formatNumber(t.idleGpuHours)} idle${t.sharedRoomGpuHours === undefined ? '' : ` (${formatNumber(t.sharedRoomGpuHours)} room on shared GPUs)`} = ${formatNumber(t.capacityGpuHours)} capacity`,
    ),
    tile('Jobs', `${formatNumber(t.completed)} done`, `${formatNumber(t.unfinished)} unfinished, ${formatNumber(t.endedPreempted)} ended preempted, ${formatNumber(t.rejected)} rejected`),
    tile(
      'Queue wait p95',
      formatHours(t.wait.p95),
      `p50 ${formatHours(t.wait.p50)}, max ${formatHours(t.wait.max)} over ${formatNumber(t.wait.started)} started${t.wait.stillWaiting ? `; ${formatNumber(t.wait.stillWaiting)} still waiting at the end, the longest ${formatHours(t.wait.longestStillWaiting)}` : ''}`,
    ),
    tile('Preemptions', formatNumber(t.preemptions), `${formatNumber(t.restarts)} restarts, ${formatNumber(t.lostGpuHours)} GPU-hours lost`),
    ...(r.spot.byInstanceType.length
      ? [
          tile(
            'Spot saved',
            formatNumber(r.spot.saved),
            `cost ${formatNumber(r.spot.cost)} vs ${formatNumber(r.spot.payAsYouGo)} pay-as-you-go; ${r.spot.interruptions.price + r.spot.interruptions.inventory} released`,
          ),
        ]
      : []),
  ];
  return `<section class="tiles">${tiles.join('')}</section>`;
}

async function chartsSection(r: Report): Promise<string> {
  const svgs = await Promise.all(charts(r).map(async (c) => `<figure id="chart-${c.id}"${c.levels ? ' data-levels="1"' : ''}>${await svgOf(c.spec)}</figure>`));
  return `<section class="charts">${svgs.join('\n')}</section>`;
}

function findingsSection(r: Report): string {
  if (r.findings.length === 0) return '';
  return `<h2>Findings</h2><ul class="findings">${r.findings.map((f) => `<li><b>${esc(f.severity)} ${esc(f.code)}</b> ${esc(f.quota)}: ${esc(f.message)}<br><span class="hint">hint: ${esc(f.hint)}</span></li>`).join('')}</ul>`;
}

function blockedSection(r: Report): string {
  const blocked = r.queues.filter((q) => q.blockedHours > 0);
  if (blocked.length === 0) return '';
  const rows = blocked
    .map(
      (q) =>
        `<tr><td>${esc(q.quota)}</td><td>${esc(q.strategy)}</td><td class="n">${esc(formatHours(q.blockedHours))}</td><td class="n">${esc(formatNumber(q.heldBackGpuHours))}</td><td class="n">${esc(q.starvedHours ? `${formatHours(q.starvedHours)} (${formatNumber(q.starvedIdleGpus)} GPUs free)` : '0')}</td><td>${q.reasons
          .slice(0, 4)
          .map((x) => `<code>${esc(x.code)}</code> ${esc(formatHours(x.hours))}`)
          .join('<br>')}</td></tr>`,
    )
    .join('');
  const heads = r.blockedHeads
    .map(
      (h) =>
        `<tr><td>${esc(h.job)}</td><td>${esc(h.quota)}</td><td class="n">${esc(formatNumber(h.gpus))}</td><td class="n">${esc(formatHours(h.blockedHours))}</td><td class="n">${esc(formatNumber(h.heldBackGpuHours))}</td><td>${h.reasons.map((x) => `<code>${esc(x.code)}</code> ${esc(x.message)}`).join('<br>')}</td></tr>`,
    )
    .join('');
  return `<h2>Blocked queues</h2><div class="scroll"><table><thead><tr><th>quota</th><th>strategy</th><th>head blocked</th><th>held back GPU-h</th><th>starved</th><th>the heads' reasons</th></tr></thead><tbody>${rows}</tbody></table></div>
<h3>Blocked heads that held back the most</h3><div class="scroll"><table><thead><tr><th>job</th><th>quota</th><th>GPUs</th><th>blocked</th><th>held back GPU-h</th><th>its reasons</th></tr></thead><tbody>${heads}</tbody></table></div>`;
}

const teamsSection: HtmlSection = (r) => `<h2>Teams</h2>${groupTable('team', r.teams)}`;
const quotasSection: HtmlSection = (r) => `<h2>Quotas</h2>${groupTable('quota', r.quotas)}`;

function spotSection(r: Report): string {
  if (!r.spot.byInstanceType.length) return '';
  return `<h2>Spot market${r.spot.synthetic ? ' (synthetic series)' : ''}</h2><div class="scroll"><table><thead><tr><th>instance type</th><th>pay-as-you-go /h</th><th>jobs</th><th>GPU-h</th><th>cost</th><th>pay-as-you-go</th><th>saved</th><th>released: price</th><th>released: inventory</th></tr></thead><tbody>${r.spot.byInstanceType.map((x) => `<tr><td>${esc(x.name)}</td>${[x.payAsYouGoPrice, x.jobs, x.gpuHours, x.cost, x.payAsYouGo, x.saved, x.interruptions.price, x.interruptions.inventory].map((v) => `<td class="n">${esc(formatNumber(v))}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
}

function preemptionsSection(r: Report): string {
  const events = r.preemptions.first
    .slice(0, 50)
    .map(
      (e) =>
        `<tr><td class="n">${esc(formatHours(e.hour))}</td><td>${esc(e.job)}</td><td>${esc(e.team)}</td><td>${esc(e.rule)}</td><td>${esc(e.source)}</td><td class="n">${esc(formatNumber(e.lostGpuHours))}</td><td>${esc(e.by)}</td><td>${esc(e.reason)}</td></tr>`,
    )
    .join('');
  if (!events) return '';
  return `<h2>Preemptions and releases${r.preemptions.first.length > 50 ? ' (first 50)' : ''}</h2><div class="scroll"><table><thead><tr><th>at</th><th>job</th><th>team</th><th>rule</th><th>source</th><th>lost GPU-h</th><th>made room for</th><th>reason</th></tr></thead><tbody>${events}</tbody></table></div>`;
}

function notesSection(r: Report): string {
  const notes = [...r.workload.notes, ...r.notes];
  return notes.length ? `<h2>Notes</h2><ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
}

/** The report's sections, in page order. */
export const HTML_SECTIONS: readonly HtmlSection[] = [tilesSection, findingsSection, chartsSection, blockedSection, teamsSection, quotasSection, spotSection, preemptionsSection, notesSection];

/** The report's sections with `extra` (another command's section: quotient risk's) placed just before the notes. */
export function withSectionBeforeNotes(extra: HtmlSection): HtmlSection[] {
  return [...HTML_SECTIONS.filter((s) => s !== notesSection), extra, notesSection];
}

/** The whole HTML document for a report: the sections in order (HTML_SECTIONS unless given). */
export async function renderHtml(r: Report, sections: readonly HtmlSection[] = HTML_SECTIONS): Promise<string> {
  const body: string[] = [];
  for (const render of sections) {
    const html = await render(r);
    if (html !== '') body.push(html);
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quotient simulation: ${esc(r.policy)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;margin:0;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:20px 32px}header h1{margin:0 0 4px;font-size:22px}header p{margin:2px 0;color:#c9cfdb}
main{padding:20px 32px;max-width:1400px;box-sizing:border-box}
.tiles{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:20px}
.tile{background:#fff;border-radius:8px;padding:12px 16px;min-width:170px;max-width:100%;box-sizing:border-box;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.tile .label{font-size:12px;color:#5b6475;text-transform:uppercase;letter-spacing:.04em}.tile .value{font-size:24px;font-weight:600}.tile .sub{font-size:12px;color:#5b6475}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:16px}
figure{background:#fff;margin:0;padding:12px;border-radius:8px;box-shadow:0 1px 2px rgba(0,0,0,.08);min-width:0;overflow:hidden}
figure svg{display:block;width:100%;height:auto}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;background:#fff;margin:8px 0 20px;font-size:13px}th,td{padding:4px 8px;border-bottom:1px solid #e3e6ec;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
h2{font-size:17px;margin:24px 0 8px}h3{font-size:15px;margin:16px 0 6px}.notes li{color:#5b6475}.findings li{margin-bottom:6px}.hint{color:#5b6475}
</style></head><body>
<header><h1>Simulation of ${esc(r.policy)}</h1>
<p>${esc(r.workload.source)}${r.workload.synthetic ? ' — synthetic' : ''} · ${esc(formatNumber(r.workload.jobs))} jobs${r.workload.rejectedRows ? ` (${esc(formatNumber(r.workload.rejectedRows))} rows left out)` : ''} · seed ${esc(r.seed)}</p>
<p>${esc(formatNumber(r.cluster.nodes))} nodes, ${esc(formatNumber(r.cluster.gpus))} GPUs · ${esc(formatHours(r.hours))} simulated${r.until !== null ? ` (stopped at ${esc(formatHours(r.until))})` : ''}</p></header>
<main>
${body.join('\n')}
</main></body></html>
`;
}
