// ESLint flat config: typescript-eslint with type-aware rules over everything TypeScript that
// `tsconfig.json` covers. Folder dependency directions are checked by dependency-cruiser
// (.dependency-cruiser.cjs); both run in `npm test` (script `lint`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Every eslint-disable comment must say why on the same line: `// eslint-disable-next-line rule -- reason`.
const requireDisableReason = {
  meta: { type: 'suggestion', schema: [], messages: { missing: 'Say why on the same line: `eslint-disable... rule -- reason`.' } },
  create: (context) => ({
    Program() {
      for (const c of context.sourceCode.getAllComments())
        if (/^\s*eslint-disable/.test(c.value) && !/\s--\s*\S/.test(c.value)) context.report({ loc: c.loc, messageId: 'missing' });
    },
  }),
};

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node, ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { local: { rules: { 'require-disable-reason': requireDisableReason } } },
    rules: {
      // Every disable comment must say why, on the same line (`-- reason`).
      'local/require-disable-reason': 'error',
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-expect-error': 'allow-with-description' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      // Off: Fastify plugins and hooks, Kysely's MigrationProvider and async test doubles are async by contract.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests, benchmarks and e2e drive real services and print reports.
    files: ['test/**', 'e2e/**', 'bench/**', 'scripts/**'],
    rules: {
      'no-console': 'off',
      // Response bodies and page globals are untyped JSON and scripts; the unsafe-* rules are off for the same reason.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
