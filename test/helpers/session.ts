/** Builders for tests: a Session from inline YAML, answers by query name. */
import { Session } from '../../src/engine/session.js';
import type { Answer } from '../../src/engine/answer.js';
import type { InputFile } from '../../src/policy/parse/source-doc.js';

/** Opens a session over inline files; throws with the findings when the policy has errors. */
export function openSession(files: InputFile[] | string, backend: 'wasm' | 'reference' = 'wasm'): Session {
  const list = typeof files === 'string' ? [{ path: 'test.yaml', text: files }] : files;
  const { session, findings } = Session.open(list, { backend, now: Date.parse('2026-11-20T12:00:00Z') });
  if (!session) throw new Error(`policy has errors:\n${findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.code} ${f.message}`).join('\n')}`);
  return session;
}

/** Answers every WhatIf of the session, by name. */
export async function answerAll(session: Session): Promise<Map<string, Answer>> {
  const out = new Map<string, Answer>();
  for (const w of session.policy.whatIfs) out.set(w.name, await session.answerJob(w.name, w.submit));
  return out;
}
