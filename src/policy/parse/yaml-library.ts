/**
 * The yaml library (positions, comments, the CST), loaded on first use: a policy read by
 * the fast path (subset-yaml.ts, fast-parse.ts) with no finding to locate never needs
 * it, and loading its 73 modules was a tenth of `quotient check`'s start-up (issue 22).
 * Under Node the package is CommonJS for `import` and `require` alike, so this is the
 * same instance the other modules' static imports get.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let yaml: typeof Yaml | undefined;

/** The yaml library's exports, required the first time they are asked for. */
export function yamlLibrary(): typeof Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}
