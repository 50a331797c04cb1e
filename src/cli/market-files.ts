/**
 * A SpotMarket's `pricesFile` and `inventoryFile` belong to the policy: the SpotMarket
 * document names them, so they are read and checked with it by every command that
 * answers from the policy, not only by `simulate`. `check` reports their findings, and
 * `whatif` refuses a policy whose CSVs have errors exactly as it refuses one whose YAML has
 * (issue 27: an empty prices.csv made `check` exit 1 while `whatif` answered from the same
 * folder). The reader (with the CSV library) loads only for a policy with spot markets.
 */
import type { Finding } from '../errors.js';
import type { Policy } from '../model/policy.js';

/** The findings of the policy's market CSVs (none without a SpotMarket), from the reader `simulate` uses. */
export async function marketFileFindings(policy: Policy | undefined): Promise<Finding[]> {
  const markets = policy?.spotMarkets ?? [];
  if (markets.length === 0) return [];
  return (await import('../simulate/market.js')).readMarketFiles(markets).findings;
}
