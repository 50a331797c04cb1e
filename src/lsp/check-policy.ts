/**
 * `quotient check`'s findings for one policy, as the editor holds it: the same calls
 * check makes per bundle (src/cli/check.ts), so a diagnostic is a finding of check's,
 * never a second validator. test/lsp/diagnostics.test.ts holds the two equal.
 */
import type { Finding } from '../errors.js';
import { SessionCore } from '../engine/session-core.js';
import type { InputFile } from '../policy/parse/source-doc.js';

/** The findings of a policy, and its opened session when it has no errors (hover, lenses). */
export interface CheckedPolicy {
  findings: Finding[];
  session?: SessionCore;
}

/**
 * Checks the files as one policy. `cache`: open through the compiled-policy cache (the
 * text on disk, unedited, as check would find it); an edited buffer is opened without it,
 * so typing does not fill the cache with an entry per keystroke.
 */
export async function checkPolicy(files: InputFile[], cache: boolean): Promise<CheckedPolicy> {
  const opened = await SessionCore.load(files, { backend: 'reference', answerMemo: false, ...(cache ? {} : { cache: false }) });
  const findings = [...opened.findings];
  // Check reads what `simulate` reads beside the YAML (spot-market CSV files): so does the editor.
  const markets = opened.session?.policy.spotMarkets ?? [];
  if (markets.length > 0) for (const f of (await import('../simulate/market.js')).readMarketFiles(markets).findings) findings.push(f);
  return { findings, ...(opened.session ? { session: opened.session } : {}) };
}
