/**
 * A SpotMarket's CSVs belong to the policy (cli/market-files.ts; issue 27 item 20): `check`
 * refused a policy folder with an empty prices.csv while `whatif` answered from the same
 * folder. Now both read the CSVs, and agree: a bad CSV is check's finding (exit 1) and
 * whatif's refusal (exit 2, the same finding on stderr); a good one, both answer.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-market-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check and whatif agree on a policy folder with market CSVs', () => {
  it('refuses an empty prices.csv in both, at the file', () => {
    const policy = join(dir, 'empty-prices');
    cpSync('policies/spot-market', policy, { recursive: true });
    writeFileSync(join(policy, 'prices.csv'), '');
    const check = quotient(['check', policy]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/prices\.csv:1:1 {2}error {2}market\/missing-column/);
    const whatif = quotient(['whatif', policy]);
    expect(whatif.status).toBe(2);
    expect(whatif.stdout).toBe('');
    expect(whatif.stderr).toMatch(/prices\.csv:1:1 {2}error {2}market\/missing-column/);
  });

  it('answers from the shipped folder in both', () => {
    expect(quotient(['check', 'policies/spot-market']).status).toBe(0);
    expect(quotient(['whatif', 'policies/spot-market']).status).toBe(0);
  });
});
