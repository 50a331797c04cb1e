/**
 * The simulate HTML report's "Preemption exposure" section (docs/risk.md "In the
 * simulate report"): `quotient risk` on the snapshot the run starts from, as one
 * self-contained piece of HTML (its table uses the report's own table style). The
 * report's renderer only places it; with `--cluster` (other nodes: the snapshot's jobs
 * are not part of the run) or without a Cluster there is no section.
 */
import { Session } from '../engine/session.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { protectionWords, riskBody, type RiskBody } from './risk-document.js';
import { assessRisk } from './risk.js';

/** Arrivals the section asks about: `quotient risk`'s default. */
export const SECTION_SAMPLES = 200;

/** The section for the policy `files` (labelled `label`), with `seed`; '' when there is no snapshot to assess. */
export async function snapshotRiskHtml(files: InputFile[], label: string, options: { seed: number; backend: 'wasm' | 'reference'; otherNodes: boolean }): Promise<string> {
  if (options.otherNodes) return '';
  const { session } = Session.open(files, { backend: options.backend, label });
  if (!session?.snapshot || session.snapshot.jobs.length === 0) return '';
  const source = { kind: 'policy' } as const;
  const a = await assessRisk(session, { samples: SECTION_SAMPLES, seed: options.seed, source, backend: options.backend });
  if (a.asked === 0) return '';
  return riskSectionHtml(riskBody(label, undefined, source, a, undefined));
}

/** The section's HTML: a heading, what was asked, the ranked table. Every value escaped. */
export function riskSectionHtml(r: RiskBody): string {
  const a = r.arrivals;
  const rows = r.jobs
    .map((j) => {
      const cells = [
        [j.rank, 'n'],
        [j.job, ''],
        [j.quota, ''],
        [j.priority, 'n'],
        [j.standing, ''],
        [j.gpus, 'n'],
        [`${(j.exposure * 100).toFixed(1)} %`, 'n'],
        [j.rule ? j.rule.rule : '-', ''],
        [j.rule ? j.rule.source : '', ''],
        [j.protection ? protectionWords(j.protection).join('; ') : j.exposure === 0 ? 'not exposed' : '-', ''],
      ] as const;
      return `<tr>${cells.map(([v, c]) => `<td${c ? ` class="${c}"` : ''}>${escapeHtml(v)}</td>`).join('')}</tr>`;
    })
    .join('');
  return `<section class="risk"><h2>Preemption exposure at the start (quotient risk)</h2>
<p>Each running job of the snapshot the run starts from: the share of ${escapeHtml(a.asked)} arrivals (seed ${escapeHtml(a.seed)}, every submission the policy's workspaces may make) whose what-if answer would preempt it, the rule that exposes it and what would protect it (docs/risk.md).</p>
<div class="scroll"><table><thead><tr><th>#</th><th>job</th><th>quota</th><th>prio</th><th>standing</th><th>GPUs</th><th>exposure</th><th>exposed by</th><th>source</th><th>protected by</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/** Text as HTML: the five characters that could open markup or end an attribute. */
function escapeHtml(v: string | number): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
