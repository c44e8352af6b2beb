// One lint config for the workspace: typescript-eslint's type-aware recommended rules over every
// package's TypeScript sources, run by `pnpm test` (scripts/ci/check-lint.mjs). Formatting is
// Prettier's job (.prettierrc.json), so no stylistic rules here. Rules turned off say why.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'docs/**', 'bench/results/**', 'bench/client-go/**'] },
  // Generated from Kubernetes' .proto files by scripts/generate-protobuf.sh: not ours to lint.
  { ignores: ['packages/testing/src/apiserver/negotiation/protobuf/generated/**'] },
  // The scaffolder's template is a project of its own (its tsconfig, its dependencies as a user
  // installs them): create-kindex's tests type-check the projects it generates from it.
  { ignores: ['packages/create-kindex/template/**'] },
  {
    files: ['packages/*/src/**/*.ts', 'integration-tests/src/**/*.ts', 'samples/*/src/**/*.ts', 'bench/src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Implementations of Promise-returning contracts are async so that a throw becomes a
      // rejection, whether or not they await anything.
      '@typescript-eslint/require-await': 'off',
      // `unknown | X` documents what a value usually is (a thrown Error) while staying honest.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // The embedded API server and the filters stringify JSON values they have just checked.
      '@typescript-eslint/no-base-to-string': 'off',
      // `let self` assigned after the closure that reads it is declared: not a const candidate.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore marks what is unused on purpose (rest siblings, contract parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read untyped JSON responses and reject with odd values on purpose.
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/only-throw-error': 'off',
    },
  },
);
