/** `import kubectl`'s options at their CLI defaults, for tests that call importKubectl. */
import type { KubectlOptions } from '../../src/interop/import-kubectl.js';
import { DEFAULT_PRIORITY_MAP, parsePriorityMap } from '../../src/interop/priority-map.js';

export const KUBECTL_DEFAULTS: KubectlOptions = {
  gpuResource: 'nvidia.com/gpu',
  modelLabel: 'nvidia.com/gpu.product',
  pool: 'gpu-pool',
  quotaFrom: ['kueue', 'koordinator', 'namespace'],
  workspaceFrom: ['namespace'],
  moduleLabel: 'quotient.dev/module',
  module: 'DLC',
  priorityMap: parsePriorityMap(DEFAULT_PRIORITY_MAP).bands!,
};
