// Type-aware lint, run by `npm test` before mocha (`npm run lint`, after Prettier's check).
// Prettier formats; max-len holds the comments and strings it cannot wrap to the same width.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'test/fixtures/**', 'web/dist/**', 'sdk/dist/**', 'cli/dist/**', 'sdk/src/openapi.ts', 'cli/bin/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Extending Express's own Request and Locals types takes a `declare global { namespace Express }`.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // Off: an async function that implements a Promise-returning port (or fakes one in a test) need
      // not await anything, and `async` is what turns its throws into rejections, as callers expect.
      '@typescript-eslint/require-await': 'off',
      // A test's title is the sentence of the rule it checks, cited whole by docs/rules.md: never wrapped.
      '@stylistic/max-len': ['error', { code: 140, ignoreUrls: true, ignorePattern: String.raw`^\s*(it|describe)\(` }],
    },
  },
  {
    // What a module of the service exports says its types: no inferred `any` leaks across.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'error' },
  },
  {
    // Off in tests only: a test reads JSON replies (GraphQL data, problem bodies) whose shape is the
    // very thing it asserts, so it walks them untyped and lets chai judge them.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
