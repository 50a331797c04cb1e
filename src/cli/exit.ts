/** Exit codes, the same for every command. */
export const EXIT = {
  /** Clean: no findings, promises held, nothing to report. */
  ok: 0,
  /** Findings: policy errors, broken promises, or "would preempt" when asked to fail on it. */
  findings: 1,
  /** Could not run: unreadable files, bad flags, an invalid policy where an answer was asked. */
  failure: 2,
} as const;
