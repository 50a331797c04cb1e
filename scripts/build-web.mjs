#!/usr/bin/env node
/**
 * `npm run build:web`: bundles the web app (src/web/, Preact + TSX) with esbuild into
 * dist/web/, where `quotient serve` finds it (src/serve/web-app.ts) and the package ships
 * it (package.json "files": dist). Everything the page loads is in that folder: app.js
 * (Preact compiled in), app.css, and index.html from src/web/public/; no CDN, no font.
 * index.html is written last, so its presence means a whole build (scripts/prepare.mjs
 * checks it). Type-checking is
 * `npm run typecheck` (src/web/tsconfig.json); esbuild only strips the types.
 *
 *   node scripts/build-web.mjs            build (minified, with source maps)
 */
import { cpSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const src = join(root, 'src/web');
const out = join(root, 'dist/web');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: [
    { in: join(src, 'main.tsx'), out: 'app' },
    { in: join(src, 'styles.css'), out: 'app' },
  ],
  outdir: out,
  bundle: true,
  format: 'esm',
  // Browsers of the last few years; the app uses nothing newer than ES2020 and canvas 2D.
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(src, 'tsconfig.json'),
  minify: true,
  sourcemap: 'linked',
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
});
// public/ is copied as it is (index.html). It is not src/web/index.html: src/serve/web-app.ts, run from the sources, looks for the
// built app in src/web/ before dist/web/, and must not find the unbuilt page there.
cpSync(join(src, 'public'), out, { recursive: true });
const bytes = Object.keys(result.metafile.outputs)
  .filter((f) => !f.endsWith('.map'))
  .reduce((sum, f) => sum + statSync(join(root, f)).size, 0);
console.error(`web app: dist/web (${(bytes / 1024).toFixed(1)} KiB of script and style)`);
