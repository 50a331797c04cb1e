/**
 * Where Piscina finds a worker module: always a compiled .js file, because Piscina
 * cannot load TypeScript on Node 20. From dist/ the file sits beside its pool; from the
 * sources (vitest, tsx) the compiled copy in dist/ is used, so `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QuotientError } from '../errors.js';

/** The compiled path of `src/<relative>.js` (e.g. `verify/promise-worker`). */
export function resolveWorkerFile(relative: string): string {
  const candidates = [new URL(`../${relative}.js`, import.meta.url), new URL(`../../dist/${relative}.js`, import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new QuotientError(
    'worker/missing',
    `the worker ${relative} is not built (looked for ${candidates.map((u) => fileURLToPath(u)).join(' and ')})`,
    `run \`npm run build\` (Piscina loads the compiled dist/${relative}.js)`,
  );
}
