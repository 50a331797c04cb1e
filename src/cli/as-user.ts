/** `--as USER` or $QUOTIENT_USER: whose view of the jobs a command prints (SEMANTICS 10). */
import { QuotientError } from '../errors.js';
import type { Session } from '../engine/session.js';
import { nearest } from '../policy/validate/suggest.js';

/** The user to answer as, or undefined for the full view. An empty name is a usage error. */
export function asUser(opts: { as?: string }, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const user = opts.as ?? env.QUOTIENT_USER;
  if (user === undefined) return undefined;
  if (user.trim() === '')
    throw new QuotientError(
      'cli/bad-user',
      opts.as !== undefined ? '--as needs a user name' : 'QUOTIENT_USER is set but empty',
      "give a user listed in a workspace's members or guests, or unset QUOTIENT_USER for the full view",
    );
  return user;
}

/** The error for a user no policy lists, naming the closest known user. */
export function unknownUser(user: string, sessions: Session[]): QuotientError {
  const users = [...new Set(sessions.flatMap((s) => s.policy.workspaces.flatMap((w) => w.members.map((m) => m.user))))].sort();
  const typo = nearest(user, users);
  return new QuotientError(
    'cli/unknown-user',
    `user "${user}" is not a member or guest of any workspace`,
    typo ? `did you mean "${typo}"?` : users.length ? `known users: ${users.join(', ')}` : 'no workspace lists members; drop --as (and QUOTIENT_USER) for the full view',
  );
}
