/**
 * What-if at the cursor: above each WhatIf document, its decision as `quotient whatif`
 * answers it against the policy's snapshot ("PREEMPT 1 job · Quota1/childPreemption"),
 * recomputed whenever the policy is checked again.
 */
import type { CodeLens } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isMap, isScalar, type Node as YamlNode } from 'yaml';
import type { SessionCore } from '../engine/session-core.js';
import type { YamlDoc } from './yaml-tree.js';

/** The line a lens shows for one WhatIf: the decision, its victims and the rules they fall under, or why not. */
export async function whatIfTitle(session: SessionCore, name: string): Promise<string> {
  const asked = await session.ask({ query: name, estimate: false });
  if (!asked.answer) return `cannot answer: ${asked.findings[0]?.message ?? 'the request has findings'}`;
  const a = asked.answer;
  const word = a.decision.toUpperCase();
  if (a.decision === 'preempt') {
    const rules = [...new Set(a.victims.map((v) => v.rule))].join(', ');
    return `${word} ${a.victims.length} job${a.victims.length === 1 ? '' : 's'} · ${rules}`;
  }
  if (a.decision === 'admit') return `${word}${a.standing ? ` · ${a.standing}` : ''}`;
  const why = a.reasons.at(-1)?.code;
  return `${word}${why ? ` · ${why}` : ''}`;
}

/** A lens on each WhatIf document of a file; without an opened policy with a snapshot, none. */
export async function whatIfLenses(docs: readonly YamlDoc[], text: TextDocument, session: SessionCore | undefined): Promise<CodeLens[]> {
  if (!session?.snapshot) return [];
  const out: CodeLens[] = [];
  for (const d of docs) {
    if (d.kind !== 'WhatIf') continue;
    const contents = d.doc.contents as YamlNode | null;
    const meta = isMap(contents) ? contents.get('metadata', true) : undefined;
    const nameNode = isMap(meta) ? meta.get('name', true) : undefined;
    if (!isScalar(nameNode) || typeof nameNode.value !== 'string') continue;
    let title: string;
    try {
      title = await whatIfTitle(session, nameNode.value);
    } catch (e) {
      title = `cannot answer: ${e instanceof Error ? e.message : String(e)}`;
    }
    const at = text.positionAt(contents?.range?.[0] ?? 0);
    out.push({ range: { start: at, end: at }, command: { title, command: '' } });
  }
  return out;
}
