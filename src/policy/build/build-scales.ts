/** ScaleQuota documents → scaling what-ifs. Checks: unique names, quotas that exist. */
import type { Quota, ScaleQuota } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { uniqueDocs } from './unique-docs.js';
import type { ScaleQuotaSpec } from '../validate/schema.js';
import { sourceAt } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';
import type { TypedDoc } from '../validate/validate-schema.js';

/** Builds every ScaleQuota document. */
export function buildScales(c: Collector, docs: TypedDoc[], quotas: Quota[]): ScaleQuota[] {
  const out: ScaleQuota[] = [];
  const names = quotas.map((q) => q.name);
  for (const td of uniqueDocs(c, docs, 'ScaleQuota', 'policy/duplicate-scale', 'ScaleQuota names are unique; `quotient scale --query NAME` picks one by name')) {
    const spec = td.spec as ScaleQuotaSpec;
    const set: ScaleQuota['set'] = [];
    let ok = true;
    for (const [quota, gpu] of Object.entries(spec.set)) {
      if (!names.includes(quota)) {
        c.error(td.sd, ['spec', 'set', quota], 'policy/unknown-quota', `ScaleQuota "${td.name}" scales quota "${quota}", which no QuotaTree declares`, closest(quota, names, 'quota'), true);
        ok = false;
      } else set.push({ quota, gpu, src: sourceAt(td.sd, ['spec', 'set', quota]) });
    }
    if (set.length === 0 && ok) {
      c.error(td.sd, ['spec', 'set'], 'policy/empty', `ScaleQuota "${td.name}" sets no quota`, 'give at least one `Quota: GPUs` pair');
      ok = false;
    }
    if (ok) out.push({ name: td.name, set, src: sourceAt(td.sd, []) });
  }
  return out;
}
