/**
 * zod, by the names Quotient uses: import zod only through this module (one copy of its
 * classes). Every entry point of zod 4.6.7 (`zod`, `zod/mini`, `zod/v4/core`) re-exports
 * all 64 of its locales from `v4/core/index.js` (65 files, ~35 ms of CPU on each start
 * that validates), of which only English is used. The build bundles this module with
 * esbuild (scripts/bundle-zod.mjs): the bundle keeps what these names reach, English
 * included, and leaves the other locales out, so `dist/` loads zod as one file. Tests
 * and tsx run it unbundled, with the same schemas and messages.
 */
export { array, boolean, discriminatedUnion, enum, literal, number, record, strictObject, string, toJSONSchema, union, unknown } from 'zod';
export type { core, infer, ZodType } from 'zod';
