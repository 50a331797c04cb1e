/**
 * A simulation's report and a sweep as documents (the versioned envelopes `simulate
 * --json` prints and `report merge` reads back), and a sweep's lines for people: shared by
 * the `simulate` and `report` commands.
 */
import { API_VERSION, report as versioned } from '../engine/report-document.js';
import { display, joinDisplay, type Display } from '../model/display-text.js';
import type { Report } from './report.js';
import type { SweepDocument } from './sweep.js';

/** One line per run of a sweep. */
export function renderSweep(doc: SweepDocument): Display {
  const lines = [display`Sweep: ${doc.runs.length} of ${doc.total} run(s)${doc.shard ? ` (shard ${doc.shard.index} of ${doc.shard.count})` : ''}`];
  for (const r of doc.runs) {
    const t = r.report.totals;
    lines.push(
      display`  #${r.index} ${r.policy} seed ${r.seed}: utilisation ${(t.utilisation * 100).toFixed(2)}%, ${t.completed}/${t.jobs} done, wait p95 ${t.wait.p95} h, ${t.preemptions} preemption(s), ${t.lostGpuHours} GPU-h lost, spot saved ${r.report.spot.saved}`,
    );
  }
  return joinDisplay(lines);
}

/**
 * A simulation's report as printed: the versioned envelope (`apiVersion`, `kind:
 * SimulateReport`) in place of the report's own `version`, one version per document
 * (docs/cli.md "JSON output", schemas/simulate-report.json).
 */
export function simulateReport(r: Report) {
  return versioned('SimulateReport', reportBody(r));
}

function reportBody(r: Report): Omit<Report, 'version'> {
  const { version: _version, ...body } = r;
  return body;
}

/** A sweep as printed: a SweepReport whose runs hold their reports without their own version. */
export function sweepReport(doc: SweepDocument) {
  const { version: _version, kind: _kind, ...body } = doc;
  return versioned('SweepReport', { ...body, runs: body.runs.map((r) => ({ ...r, report: reportBody(r.report) })) });
}

/**
 * A printed SweepReport (one shard's, read back by `quotient report merge`) as the
 * simulator's SweepDocument; any other document is handed on as it is, for the merge to
 * refuse with its own message.
 */
export function sweepDocumentOf(doc: unknown): unknown {
  const d = doc as { apiVersion?: unknown; kind?: unknown; runs?: unknown } | null;
  if (d?.apiVersion !== API_VERSION || d.kind !== 'SweepReport' || !Array.isArray(d.runs)) return doc;
  const { apiVersion: _a, kind: _k, ...body } = d as Record<string, unknown>;
  return { version: 1, kind: 'SimulationSweep', ...body, runs: (d.runs as Array<{ report?: object }>).map((r) => ({ ...r, report: { version: 1, ...r.report } })) };
}
