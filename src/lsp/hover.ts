/**
 * Hover: on a quota name, what `quotient explain` and the snapshot say of it (guarantee,
 * ceiling, usage, the compiled rules that name it, with their sentences); inside a
 * preemption clause, the rule it compiles to and its sentence; on a running job, its
 * standing; on a workspace name, its quotas and modules; on a field, its documentation
 * from the policy format.
 */
import type { SessionCore } from '../engine/session-core.js';
import { formatAmount, formatResources, RESOURCE_NAMES } from '../model/resources.js';
import { fieldDoc } from './schema-fields.js';
import { nameField } from './name-sites.js';
import { scalarText, type Cursor } from './yaml-tree.js';

/** The markdown shown for a quota of an opened policy; undefined when the policy has no such quota. */
export function quotaHover(session: SessionCore, name: string): string | undefined {
  const q = session.policy.quotas.find((x) => x.name === name);
  if (!q) return undefined;
  const lines = [`**quota ${q.name}** (pool ${q.pool}${q.parent ? `, under ${q.parent}` : ', a root'})`, '', `- guarantee (min): ${formatResources(q.min)}`];
  const ceiling = q.max ? RESOURCE_NAMES.filter((r) => q.max?.[r] !== undefined).map((r) => formatAmount(r, q.max?.[r] ?? 0)) : [];
  lines.push(`- ceiling (max): ${ceiling.length ? ceiling.join(', ') : 'none'}`);
  const snap = session.snapshot;
  const i = session.tree.indexOf(name);
  const row = snap && i >= 0 ? snap.usage[i] : undefined;
  if (row) lines.push(`- usage in the snapshot: ${formatResources({ gpu: row[0] ?? 0, cpu: row[1] ?? 0, memory: row[2] ?? 0 })} of ${formatResources(q.min)} guaranteed`);
  if (q.children.length) lines.push(`- children: ${q.children.join(', ')}`);
  const rules = session.rules.filter((r) => r.quota === name || r.summary.includes(name));
  lines.push('', rules.length ? '**rules that mention it** (`quotient explain`):' : 'no compiled rule names it (`quotient explain`)');
  for (const r of rules) lines.push(`- \`${r.name}\` (${r.source}): ${r.summary}`);
  return lines.join('\n');
}

/** The markdown shown for a workspace of an opened policy. */
function workspaceHover(session: SessionCore, name: string): string | undefined {
  const w = session.policy.workspaces.find((x) => x.name === name);
  if (!w) return undefined;
  return [`**workspace ${w.name}**`, '', `- quotas: ${w.quotas.join(', ')}`, `- modules: ${w.modules.join(', ')}`, `- members: ${w.members.length}`].join('\n');
}

/** A quota's clauses that compile to a rule of the same name (`Quota1/childPreemption`). */
const CLAUSES = new Set(['selfPreemption', 'childPreemption', 'reclaim', 'borrowing']);

/**
 * Inside a quota's preemption clause: the rule it compiles to, with `explain`'s sentence
 * (who may preempt whom) and its policy line.
 */
function clauseHover(cursor: Cursor, session: SessionCore): string | undefined {
  if (cursor.doc.kind !== 'QuotaTree') return undefined;
  const at = cursor.path.findIndex((s, i) => typeof s === 'string' && CLAUSES.has(s) && typeof cursor.path[i - 1] === 'number');
  if (at < 0) return undefined;
  const quota = scalarText(cursor.doc.doc.getIn([...cursor.path.slice(0, at), 'name']));
  const clause = String(cursor.path[at]);
  const rule = session.rules.find((r) => r.quota === quota && (r.name === `${quota}/${clause}` || (clause === 'borrowing' && r.kind === 'borrow')));
  if (!rule) return undefined;
  const covered = priorityCover(cursor, session, quota);
  return `**rule \`${rule.name}\`** (${rule.source})\n\n${rule.summary}${covered ? `\n\n${covered}` : ''}`;
}

/** Priority fields of a clause, and whose jobs they are about: the quota's own, or those below it. */
const PRIORITY_FIELDS: Record<string, 'own' | 'below'> = { highPriority: 'own', lowPriority: 'own', priority: 'own', preemptiblePriority: 'below' };

/** On a priority range of a clause: the running jobs of the snapshot it covers. */
function priorityCover(cursor: Cursor, session: SessionCore, quota: string): string | undefined {
  const field = cursor.path.at(-1);
  const whose = typeof field === 'string' ? PRIORITY_FIELDS[field] : undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(cursor.text.trim());
  if (cursor.onKey || !whose || !m || !session.policy.cluster) return undefined;
  const lo = Number(m[1]);
  const hi = Number(m[2] ?? m[1]);
  const parents = new Map(session.policy.quotas.map((q) => [q.name, q.parent]));
  const below = (name: string): boolean => {
    for (let p = parents.get(name); p; p = parents.get(p)) if (p === quota) return true;
    return false;
  };
  const jobs = session.policy.cluster.jobs.filter((j) => j.priority >= lo && j.priority <= hi && (whose === 'own' ? j.quota === quota : below(j.quota)));
  const where = whose === 'own' ? `on ${quota}` : `below ${quota}`;
  if (jobs.length === 0) return `priority ${cursor.text.trim()} covers no running job ${where} in the snapshot`;
  const names = jobs.slice(0, 8).map((j) => `${j.name} (${j.quota}, priority ${j.priority})`);
  return `priority ${cursor.text.trim()} covers ${jobs.length} running job${jobs.length === 1 ? '' : 's'} ${where} in the snapshot: ${names.join(', ')}${jobs.length > 8 ? ', …' : ''}`;
}

/** On a running job's name in the snapshot: its quota, priority, size and standing there. */
function jobHover(cursor: Cursor, session: SessionCore): string | undefined {
  if (cursor.doc.kind !== 'Cluster' || cursor.onKey || cursor.path.at(-1) !== 'name' || cursor.path[1] !== 'jobs') return undefined;
  const job = session.policy.cluster?.jobs.find((j) => j.name === cursor.text);
  if (!job) return undefined;
  return [
    `**job ${job.name}** (running, ${job.standing})`,
    '',
    `- quota ${job.quota}, workspace ${job.workspace}, module ${job.module}, priority ${job.priority}`,
    `- ${job.pods} pod${job.pods === 1 ? '' : 's'} × ${formatResources(job.resources)}`,
    `- standing: ${job.standing} (how its quota's usage counts it: in-quota within the guarantee, borrowing over it, idle on idle resources)`,
  ].join('\n');
}

/** The hover text at a cursor: a name's meaning when the policy opened, else the field's documentation. */
export function hoverText(cursor: Cursor, session: SessionCore | undefined): string | undefined {
  const named = nameField(cursor.doc.kind, cursor.path, cursor.onKey);
  if (named && session && cursor.text) {
    const text = named.kind === 'quota' ? quotaHover(session, cursor.text) : named.kind === 'workspace' ? workspaceHover(session, cursor.text) : undefined;
    if (text) return text;
  }
  const meaning = session ? (clauseHover(cursor, session) ?? jobHover(cursor, session)) : undefined;
  if (cursor.path.length === 0) return meaning;
  // A value's documentation is its field's: the path without a trailing list index.
  const path = typeof cursor.path.at(-1) === 'number' ? cursor.path.slice(0, -1) : cursor.path;
  const doc = fieldDoc(cursor.doc.kind, path);
  if (!doc) return meaning;
  const field = path.filter((s) => typeof s === 'string').at(-1);
  const fieldText = `**${String(field)}** (${cursor.doc.kind ?? 'document'})\n\n${doc}`;
  return meaning ? `${meaning}\n\n---\n\n${fieldText}` : fieldText;
}
