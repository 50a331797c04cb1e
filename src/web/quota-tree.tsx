/**
 * The quota tree, as YuniKorn's queue view shows queues: one row per quota, indented by
 * depth, with a bar of what its subtree's jobs hold against its guarantee and the numbers
 * beside it. The bar is a picture of the numbers (hidden from screen readers); the
 * numbers are the table's cells. Large trees start folded below the second level.
 */
import type { ComponentChild } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { QuotaEntry, QuotaView } from './api-types.js';
import { gpus } from './format.js';

/** Trees larger than this start with only the top two levels open. */
const FOLD_ABOVE = 40;

/** The number columns, in order, and each quota's values in them. */
const NUMBER_COLUMNS = ['Guaranteed', 'Max', 'Used', 'Borrowed', 'Lent', 'Idle', 'Jobs'] as const;

function numbers(q: QuotaEntry): ComponentChild[] {
  const max =
    q.max?.gpu !== undefined ? (
      gpus(q.max.gpu)
    ) : (
      <span title={q.max ? 'a ceiling on cpu or memory only, none on GPUs' : 'no ceiling: borrowing is bounded only by what the quotas above lend'}>none</span>
    );
  return [gpus(q.min.gpu), max, gpus(q.used), gpus(q.borrowing), gpus(q.lent), gpus(q.idle), q.jobs.toLocaleString('en-US')];
}

/** The bar of one quota: in quota, borrowing, idle and lent GPUs, a mark at the guarantee and one at the ceiling (when it has one). */
function UsageBar({ q }: { q: QuotaEntry }) {
  const parts: Array<[string, number]> = [
    ['in-quota', q.inQuota],
    ['borrowing', q.borrowing],
    ['idle', q.idle],
    ['lent', q.lent],
  ];
  const scale = Math.max(
    q.min.gpu,
    q.max?.gpu ?? 0,
    parts.reduce((s, [, v]) => s + v, 0),
    1,
  );
  const pct = (v: number): string => `${((100 * v) / scale).toFixed(2)}%`;
  return (
    <div class="bar" aria-hidden="true">
      {parts.map(([k, v]) => (v > 0 ? <span key={k} class={`seg seg-${k}`} style={{ width: pct(v) }} /> : null))}
      <span class="bar-min" style={{ left: pct(q.min.gpu) }} />
      {q.max?.gpu !== undefined ? <span class="bar-max" style={{ left: pct(q.max.gpu) }} /> : null}
    </div>
  );
}

/** The quota tree table. */
export function QuotaTree({ view }: { view: QuotaView }) {
  const quotas = view.quotas;
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set(quotas.length > FOLD_ABOVE ? quotas.filter((q) => q.depth >= 1 && q.children.length > 0).map((q) => q.name) : []));
  const byName = useMemo(() => new Map(quotas.map((q) => [q.name, q])), [quotas]);
  const shown = quotas.filter((q) => {
    for (let p = q.parent; p !== null; p = byName.get(p)?.parent ?? null) if (closed.has(p)) return false;
    return true;
  });
  const toggle = (name: string): void => {
    const next = new Set(closed);
    if (!next.delete(name)) next.add(name);
    setClosed(next);
  };
  // Fair sharing (SEMANTICS 13): a Share column only when some quota has one, so other trees look as before.
  const fair = quotas.some((q) => q.fairShare);
  return (
    <div class="table-scroll">
      <table class="quota-tree">
        <caption class="sr-only">Quotas with their guarantee and the GPUs their jobs hold</caption>
        <thead>
          <tr>
            <th scope="col">Quota</th>
            <th scope="col" class="bar-col">
              Usage
            </th>
            {NUMBER_COLUMNS.map((c) => (
              <th key={c} scope="col" class="num">
                {c}
              </th>
            ))}
            {fair ? (
              <th scope="col" class="num" title="Kueue's status.fairSharing.weightedShare: borrowed over lendable × 1000 on the dominant resource, divided by the weight">
                Share
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {shown.map((q) => (
            <tr key={q.name}>
              <th scope="row" class="quota-name" style={{ paddingLeft: `${0.4 + q.depth * 1.1}em` }}>
                {q.children.length > 0 ? (
                  <button type="button" class="fold" aria-expanded={!closed.has(q.name)} onClick={() => toggle(q.name)}>
                    <span aria-hidden="true">{closed.has(q.name) ? '▸' : '▾'}</span>
                    <span class="sr-only">{closed.has(q.name) ? 'show' : 'hide'} the quotas under</span>
                  </button>
                ) : (
                  <span class="fold-space" aria-hidden="true" />
                )}
                <span title={q.source}>{q.name}</span>
                {q.workspaces.length > 0 ? <span class="muted small"> {q.workspaces.join(', ')}</span> : null}
              </th>
              <td class="bar-col">
                <UsageBar q={q} />
              </td>
              {numbers(q).map((v, k) => (
                <td key={NUMBER_COLUMNS[k]} class="num">
                  {v}
                </td>
              ))}
              {fair ? (
                <td class="num share">
                  {q.fairShare ? (
                    <span title={`weighted share (weight ${q.fairShare.weight})`}>{q.fairShare.weightedShare === 'infinite' ? '∞' : q.fairShare.weightedShare.toLocaleString('en-US')}</span>
                  ) : (
                    '—'
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="legend" aria-hidden="true">
        <span class="swatch seg-in-quota" /> in quota <span class="swatch seg-borrowing" /> borrowing <span class="swatch seg-idle" /> idle resources <span class="swatch seg-lent" /> lent{' '}
        <span class="swatch swatch-min" /> guarantee <span class="swatch swatch-max" /> max
      </p>
      <p class="muted small">
        GPUs of each quota's subtree. Used counts in-quota and borrowing jobs against the guarantee; lent is guarantee other quotas are borrowing; max is the ceiling in-quota and borrowing jobs
        together never exceed.{fair ? " Share is each quota's weighted share of what its cohort lends (fair sharing; 0 when it borrows nothing)." : ''}
      </p>
    </div>
  );
}
