/**
 * A loaded policy ready to answer questions (engine/session-core.ts), opened
 * synchronously: `Session.open` loads through the compiled-policy cache with the policy
 * loader imported beside it. A command that may not need the loader (a warm `check`)
 * opens with `SessionCore.load` instead, which imports it only on a cache miss.
 */
import type { Finding } from '../errors.js';
import { loadPolicy } from '../policy/load-policy.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { answerMemoDefault } from './answer-memo.js';
import { loadThroughCache } from './policy-cache.js';
import { SessionCore, type SessionOptions } from './session-core.js';

export type { AskResult, SessionOptions, ViewOptions } from './session-core.js';

export class Session extends SessionCore {
  /**
   * Loads files into a Session, or returns every finding that stops it. After the
   * loading stages (policy/load-policy.ts) come the engine's: compile the rules, then
   * `place` (engine/snapshot.ts: running jobs without a placement are placed and the
   * kernel is loaded), whose findings are tagged with that stage like the others.
   */
  static open(files: InputFile[], options: SessionOptions = {}): { session?: Session; findings: Finding[] } {
    // Read first: a bad QUOTIENT_ANSWER_MEMO is exit 2 before any work.
    const answerMemo = options.answerMemo ?? answerMemoDefault();
    // `opened` makes the session as `this` (new this): a Session, instanceof included.
    return this.opened(loadThroughCache(files, options, loadPolicy), options, answerMemo);
  }
}
