/**
 * What `GET /v1/status` shows of the live policy's loading to one caller (SEMANTICS 10,
 * docs/serve.md "Isolation"). The snapshot command line and what it printed are the
 * administrator's: a command line may hold a token, its error output names pods and
 * namespaces (jobs a caller may not see). Another caller reads that the snapshot is
 * taken by a command and that its last run failed (with the code), never the command or
 * its words. A failed load's findings are read as the caller's view reads any findings:
 * a finding located in a job's entry is about that job (engine/views/findings-view.ts).
 */
import type { Finding } from '../errors.js';
import { viewFindings } from '../engine/views/findings-view.js';
import { outsiderView } from '../engine/visibility.js';
import type { Caller, NamedJob } from './engine-messages.js';

/** True when the caller reads everything: an administrator asking as nobody else. */
export function fullView(caller: Caller): boolean {
  return caller.view === undefined;
}

/** The snapshot command's part of the status: the command line and when it last ran, for an administrator only. */
export function commandPart(caller: Caller, command: string, checkedAt: string | undefined): { command?: string; checkedAt?: string } {
  if (!fullView(caller)) return {};
  return { command, ...(checkedAt ? { checkedAt } : {}) };
}

/** The findings of a failed snapshot command run, as `caller` may read them: its codes, not its words (which quote the command's output). */
export function snapshotFailureFindings(caller: Caller, findings: readonly Finding[]): Finding[] {
  if (fullView(caller)) return [...findings];
  const codes = [...new Set(findings.map((f) => f.code))];
  return codes.map((code) => ({
    file: '',
    line: 0,
    column: 0,
    code,
    severity: 'error' as const,
    path: '',
    message: 'the last run of the snapshot command failed; the last good snapshot keeps serving',
    hint: 'an administrator can read why in the status or the server log',
  }));
}

/** A failed load's findings when no version serves (so no view can be made): every job the files name is hidden from a caller who is not an administrator. */
export function failedLoadFindings(caller: Caller, findings: readonly Finding[], jobs: readonly NamedJob[]): Finding[] {
  if (fullView(caller) || jobs.length === 0) return [...findings];
  return viewFindings(findings, jobs, outsiderView(caller.view!));
}
