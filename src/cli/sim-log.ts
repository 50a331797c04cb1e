/** The CLI's SimLog (simulate/sim-inputs.ts): what reading a simulation's inputs tells people goes to stderr. */
import type { SimLog } from '../simulate/sim-inputs.js';
import { log } from './output.js';
import { renderFindings } from './render-findings.js';

export const stderrSimLog: SimLog = {
  findings: (findings) => log(renderFindings(findings)),
  note: (text) => log(text),
};
