// ESLint flat config. The rule that matters most: src/core stays pure (no vscode, no mysql2).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/fixtures/**', '.test-run/**', 'media/vendor/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'src/core is pure: the vscode API belongs in src/extension.' },
          { name: 'mysql2', message: 'src/core is pure: database I/O belongs in src/db.' },
          { name: 'mysql2/promise', message: 'src/core is pure: database I/O belongs in src/db.' },
        ],
        patterns: [{ group: ['**/extension/**', '**/db/**', '**/cli/**'], message: 'src/core depends on nothing outside src/core.' }],
      }],
    },
  },
  {
    // why: one guard for every command (a failure shown once with Show Log, a cancellation silent).
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/feature.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='registerCommand']",
        message: 'Register commands with command() from src/extension/feature.ts, inside a Feature.',
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs', 'src/cli/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
