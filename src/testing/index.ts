/**
 * `quotient/testing`: fast-check generators of consistent policies, snapshots and
 * submissions, for property tests of Quotient itself and of users' own tooling.
 */
export { FLAVOURS, scenarioArbitrary, type Flavour, type ScenarioOptions } from './arbitraries.js';
export { printable, scenarioYaml, type Doc, type Scenario } from './scenario.js';
