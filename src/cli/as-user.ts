/** `--as USER` or $QUOTIENT_USER: whose view of the jobs a command prints (SEMANTICS 10). */
import { QuotientError } from '../errors.js';

/** The user to answer as, or undefined for the full view. An empty name is a usage error. */
export function asUser(opts: { as?: string }, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const user = opts.as ?? env.QUOTIENT_USER;
  if (user === undefined) return undefined;
  if (user.trim() === '') throw new QuotientError('cli/bad-user', opts.as !== undefined ? '--as needs a user name' : 'QUOTIENT_USER is set but empty', 'give a user listed in a workspace\'s members or guests, or unset QUOTIENT_USER for the full view');
  return user;
}
