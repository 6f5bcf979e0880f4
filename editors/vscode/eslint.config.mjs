// Lint: typescript-eslint's strictest type-checked set on every TypeScript file (extension, scripts,
// tests), plus the rule that catches a promise nobody awaits (a request whose failure would vanish).
// Formatting is prettier's (`npm run format:check`), so no stylistic rules here. Rule options below
// are settings of the strict rules, not rules turned off; each turned-off rule says why.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' };

export default tseslint.config(
    { ignores: ['node_modules/', 'out/', 'bin/', 'dist/', 'test-output/', '.e2e/'] },
    {
        files: ['**/*.mjs'],
        extends: [eslint.configs.recommended],
        languageOptions: { globals: nodeGlobals },
    },
    {
        files: ['**/*.ts'],
        extends: [eslint.configs.recommended, ...tseslint.configs.strictTypeChecked],
        languageOptions: {
            parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
        },
        rules: {
            '@typescript-eslint/no-floating-promises': [
                'error',
                // node:test's test()/describe() return promises the runner itself awaits.
                { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
            ],
            // Numbers and booleans read fine in messages ("line 4", "applied: false").
            '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
            // `() => x.dispose()` in a callback is the common VS Code idiom; a void in a real expression still fails.
            '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
            // Off: the wire types (src/requests.ts) and @types/vscode describe the newest server and
            // VS Code, while the extension talks to older whale-ls builds and older hosts that omit fields
            // and APIs; the `?? default` and `?.` guards it flags on those values are deliberate. It also
            // misreads flags that an await in a loop may change (`while (this.again)`).
            '@typescript-eslint/no-unnecessary-condition': 'off',
            // Off: @types/vscode declares Disposable as a class, but VS Code takes any `{ dispose() }`, and
            // the objects its API and vscode-languageclient hand out (output channels, tree views,
            // notification handlers) are Disposables by shape, never built by that constructor.
            '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
        },
    },
    {
        files: ['test/**/*.ts'],
        rules: {
            // Off in tests only: tests read JSON logs and the page's DOM (the drivers' page.evaluate
            // callbacks run in the browser and are typed without the DOM library), and assert on what
            // they find; a wrong shape throws there and fails the test, which is what a test is for.
            '@typescript-eslint/no-non-null-assertion': 'off',
            '@typescript-eslint/no-unsafe-member-access': 'off',
            '@typescript-eslint/no-unsafe-assignment': 'off',
            '@typescript-eslint/no-unsafe-call': 'off',
            '@typescript-eslint/no-unsafe-return': 'off',
            '@typescript-eslint/no-unsafe-argument': 'off',
            // Off in tests only: scripted models, fake providers and scenario hooks implement interfaces
            // whose methods return promises; `async` is the plainest way to write those without awaits.
            '@typescript-eslint/require-await': 'off',
        },
    },
);
