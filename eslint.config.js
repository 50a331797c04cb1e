// @ts-check
/**
 * Lint rules for Quotient: typescript-eslint's type-aware recommended set, a few rules that
 * catch real mistakes in this code base, and the import direction of the layers from
 * test/layers.json (the table test/unit/architecture.test.ts enforces), so an editor shows
 * a wrong import as it is typed.
 */
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** @type {Record<string, string[]>} What each layer of src/ may import besides itself. */
const { $comment: _why, ...ALLOWED } = JSON.parse(readFileSync(new URL('./test/layers.json', import.meta.url), 'utf8'));
const FLOW = 'imports flow cli → {lsp, serve} → interop → verify → engine → {rules, kernel} → policy → model (docs/architecture.md)';
/** Layers that are one file at the root of src/ (errors.ts, index.ts), not a folder. */
const FILE_LAYERS = new Set(['errors', 'index']);

/**
 * One `no-restricted-imports` block per layer: a relative import that leaves the layer for
 * one it may not use is refused. A folder layer's imports of other layers start with `../`,
 * a root file's with `./`; the regex refuses every such prefix but the allowed ones. A file
 * in a subfolder of a layer (src/engine/views/) leaves it with one `../` more per level:
 * one block per depth, the deeper ones later so that they win for their files.
 */
const layerBlocks = Object.entries(ALLOWED).flatMap(([layer, allowed]) => {
  const root = FILE_LAYERS.has(layer);
  const ok = allowed.map((a) => (FILE_LAYERS.has(a) ? `${a}\\.js$` : `${a}/`));
  const said = allowed.length ? `may import only ${allowed.join(', ')}` : 'imports nothing of ours';
  const block = (files, prefix) => ({
    files: [files],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: ok.length ? `${prefix}(?!${ok.join('|')})` : prefix, message: `${layer} ${said}: ${FLOW}` }] }] },
  });
  if (root) return [block(`src/${layer}.ts`, '^\\./')];
  return [1, 2, 3].map((depth) => block(`src/${layer}/${'*/'.repeat(depth - 1)}*.ts`, `^${'\\.\\./'.repeat(depth)}`));
});

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'assembly/', 'coverage/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-constant-binary-expression': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // An inner name hiding an outer one wrote a character offset where a newline belonged (write-min.ts, issue 7).
      '@typescript-eslint/no-shadow': 'error',
    },
  },
  ...layerBlocks,
  {
    // The web app is browser code with its own project (DOM types, JSX): src/web/tsconfig.json.
    files: ['src/web/**/*.ts', 'src/web/**/*.tsx'],
    languageOptions: { parserOptions: { project: './src/web/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // Tests and benchmarks read JSON the CLI printed and YAML they wrote: `any` is their input.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
