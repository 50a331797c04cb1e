#!/usr/bin/env node
/**
 * After `tsc`: replaces dist/policy/validate/zod.js (re-exports of zod's names) by one
 * bundled file of zod with only what those names reach (src/policy/validate/zod.ts says
 * why: every zod entry point loads all of its locales). Run by `npm run build:ts`.
 */
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [join(root, 'src/policy/validate/zod.ts')],
  outfile: join(root, 'dist/policy/validate/zod.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'inline',
  allowOverwrite: true,
  logLevel: 'warning',
});
