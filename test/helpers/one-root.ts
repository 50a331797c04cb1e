/**
 * The smallest policy that loads: one pool, one root quota of 8 GPUs (`Root`) and one
 * workspace (`ws`) on it. Tests of loading add the documents they are about to it.
 */
import { policyText, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from './policy-yaml.js';

export const ONE_ROOT = policyText(quotaTreeDoc(rootQuotaEntry(8)), workspaceDoc(['Root']));
