import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/*.js', '**/*.cjs', '**/*.mjs', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      // one type program for the workspace (the root tsconfig) and one for the console's browser code:
      // a program per package re-checked every package's dependencies and took twice as long
      parserOptions: { project: ['./tsconfig.json', './console/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { import: importPlugin },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'import/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@nap/*/src/*', '@nap/*/dist/*'], message: 'Import a package through its public door (@nap/<name>).' }] },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'No TS enum: use an `as const` object and a union type.' },
      ],
    },
  },
  // The one service layout (docs/architecture.md, "Inside a service"): domain/ is pure, and a
  // handler file is reached through handlers/index.ts alone.
  {
    files: ['services/*/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@nap/bus',
                '@nap/store',
                '@nap/runtime',
                '**/store',
                '**/store/*',
                '**/clients',
                '**/clients/*',
                '**/engine',
                '**/engine/*',
              ],
              allowTypeImports: true,
              message: 'domain/ is pure: it takes and returns values (no store, bus, client or engine part; type imports are fine).',
            },
            {
              group: [
                '**/handlers',
                '**/handlers/*',
                '**/context',
                '**/steps',
                '**/steps/*',
                '**/service',
                'node:fs',
                'node:fs/*',
                'node:net',
                'node:http',
                'node:https',
                'node:child_process',
                'node:worker_threads',
              ],
              message: 'domain/ is pure: no handlers, context, shared steps, service wiring or I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/**/*.ts'],
    ignores: ['services/*/src/handlers/**', 'services/*/src/domain/**', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/handlers/*', '!**/handlers/index'], message: 'Reach handlers through handlers/index.ts (the typed map).' },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/handlers/**/*.ts'],
    ignores: ['services/*/src/handlers/index.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./*'],
              message:
                'One operation a file: a handler imports no other handler; shared steps live in context.ts (steps/ where they are many) or domain/.',
            },
          ],
        },
      ],
    },
  },
  {
    // the console runs in browsers: hooks by React's rules, and only types from the contracts (their values are server code)
    files: ['console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: '@nap/contracts', allowTypeImports: true, message: 'The console imports only types from @nap/contracts.' }] },
      ],
    },
  },
  {
    // the CLI is bundled into one file: from the contracts it takes only pure modules (the naming rule of project members, how a template run reads device by device), not the catalog's server code
    files: ['cli/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nap/contracts',
              message:
                'nap bundles no server code: import a pure module of the contracts (project-members, template-results, trigger-kinds, job-archive-states, user-agent, name-characters) alone.',
            },
          ],
          patterns: [
            {
              group: [
                '@nap/*/src/*',
                '@nap/*/dist/*',
                '!@nap/contracts/dist/project-members',
                '!@nap/contracts/dist/template-results',
                '!@nap/contracts/dist/trigger-kinds',
                '!@nap/contracts/dist/job-archive-states',
                '!@nap/contracts/dist/user-agent',
                '!@nap/contracts/dist/name-characters',
              ],
              message: 'Import a package through its public door (@nap/<name>).',
            },
          ],
        },
      ],
    },
  },
  {
    // what the admin service's audit thread loads: the modules of the contracts it needs, not the index,
    // which loads every schema and TypeBox (~0.2 s of CPU at each platform start); a test checks what it loads
    files: [
      'packages/store/src/internal/contracts.ts',
      'services/admin/src/engine/audit-thread-main.ts',
      'services/admin/src/store/audit-records.ts',
      'services/admin/src/domain/audit-chain.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@nap/*/src/*',
                '@nap/*/dist/*',
                '!@nap/contracts/dist/errors',
                '!@nap/contracts/dist/deadline',
                '!@nap/contracts/dist/audit',
                '!@nap/contracts/dist/precompiled-validators',
              ],
              message: 'Import a package through its public door (@nap/<name>).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
