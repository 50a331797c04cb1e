/** WhatIf documents → submissions. Unknown names are errors (the question cannot be answered). */
import type { JobSpec, WhatIf } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { uniqueDocs } from './unique-docs.js';
import { buildJobSpec, type NameIndex } from './build-job.js';
import type { WhatIfSpec } from '../validate/schema.js';
import { sourceAt } from '../parse/source-doc.js';
import type { TypedDoc } from '../validate/validate-schema.js';

/** Builds every WhatIf; its job name must not clash with a running or a queued job (`jobs`). */
export function buildWhatIfs(c: Collector, docs: TypedDoc[], names: NameIndex, jobs: ReadonlyArray<Pick<JobSpec, 'name'>>): WhatIf[] {
  const out: WhatIf[] = [];
  const runningNames = new Set(jobs.map((j) => j.name));
  for (const td of uniqueDocs(c, docs, 'WhatIf', 'policy/duplicate-whatif', 'WhatIf names are unique; `--query NAME` picks one by name')) {
    const spec = td.spec as WhatIfSpec;
    const submit = buildJobSpec(c, td.sd, ['spec', 'submit'], spec.submit, names);
    if (!submit) continue;
    if (runningNames.has(submit.name)) {
      c.error(
        td.sd,
        ['spec', 'submit', 'name'],
        'policy/duplicate-job',
        `the submitted job "${submit.name}" has the name of a running or queued job`,
        'give the submission a name no running or queued job has',
      );
      continue;
    }
    out.push({ name: td.name, submit, src: sourceAt(td.sd, []) });
  }
  return out;
}
