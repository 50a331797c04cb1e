// @ts-check
/**
 * Lint rules for Quotient: typescript-eslint's type-aware recommended set, a few rules that
 * catch real mistakes in this code base, and the import direction of the layers
 * (cli → verify → engine → {rules, kernel} → policy → model), the same table as
 * test/unit/architecture.test.ts so an editor shows a wrong import as it is typed.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What each layer of src/ may import besides itself (mirrors test/unit/architecture.test.ts). */
const ALLOWED = {
  model: [],
  policy: ['model', 'errors'],
  rules: ['policy', 'model', 'errors'],
  kernel: ['errors'],
  engine: ['rules', 'kernel', 'policy', 'model', 'errors'],
  testing: ['policy', 'model'],
  verify: ['engine', 'testing', 'rules', 'kernel', 'policy', 'model', 'errors'],
  cli: ['verify', 'engine', 'testing', 'rules', 'kernel', 'policy', 'model', 'errors'],
};
const FLOW = 'imports flow cli → verify → engine → {rules, kernel} → policy → model (docs/architecture.md)';

/** One `no-restricted-imports` block per layer: any `../x` that is not an allowed layer is refused. */
const layerBlocks = Object.entries(ALLOWED).map(([layer, allowed]) => {
  const dirs = allowed.filter((a) => a !== 'errors');
  const ok = [...dirs.map((d) => `${d}/`), ...(allowed.includes('errors') ? ['errors\\.js$'] : [])];
  const regex = ok.length ? `^\\.\\./(?!${ok.join('|')})` : '^\\.\\./';
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex, message: `${layer}/ ${allowed.length ? `may import only ${allowed.join(', ')}` : 'imports nothing of ours'}: ${FLOW}` }] }],
    },
  };
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
  // errors.ts and model/ import nothing of ours; index.ts anything but the CLI; nothing imports cli/.
  { files: ['src/errors.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./', message: `errors.ts imports nothing of ours: ${FLOW}` }] }] } },
  { files: ['src/index.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./cli/', message: `nothing imports cli/: ${FLOW}` }] }] } },
  ...layerBlocks,
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
