/**
 * The compiled modules a benchmark times: dist/, what `quotient` and the package run,
 * not the sources as tsx compiles them on the fly. tsx compiles with esbuild's
 * `keepNames`, which wraps every named function expression in a defineProperty call each
 * time it is created: a request check's local `bad` helper made one 1x8 `place` cost
 * 2.4 µs under tsx against 0.32 µs compiled (measured 2026-11-23), so figures taken
 * through tsx time the dev loader, not Quotient.
 *
 * `npm run build` first; a dist/ older than src/ is refused (exit 2), so a benchmark
 * never times stale code without saying so.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Newest modification time of the .ts files under `dir`, in ms. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

let checked = false;

/** Exits 2 with the fix when dist/ is missing or older than a file of src/ (checked once). */
function checkBuilt(file: string): void {
  if (checked) return;
  checked = true;
  const fail = (why: string): never => {
    process.stderr.write(`bench: ${why}; run \`npm run build\` first (benchmarks time the compiled dist/, see bench/compiled.ts)\n`);
    process.exit(2);
  };
  if (!existsSync(file)) fail(`${file} is missing`);
  if (newestSource(join(root, 'src')) > statSync(file).mtimeMs) fail(`dist/ is older than src/`);
}

/**
 * The compiled module `dist/<relative>.js`, typed as its source: with
 * `import type * as M from '../src/<relative>.js'`, `await compiled<typeof M>('<relative>')`.
 */
export async function compiled<T>(relative: string): Promise<T> {
  const file = join(root, 'dist', `${relative}.js`);
  checkBuilt(file);
  return (await import(new URL(`file://${file}`).href)) as T;
}
