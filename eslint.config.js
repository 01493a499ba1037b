// `npm run lint` (run by .ci/run before the tests). A few type-aware rules for mistakes that `tsc` does not see and
// that the project's rules care about; style is left to review. Each earns its place:
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits: in src/ its rejection crashes the process or is lost instead of becoming a JSON-RPC
      // error; in test/ an un-awaited `expect(...).rejects` is a test that cannot fail. Mark deliberate ones `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a void one is expected (event handlers, `forEach`): its rejection goes nowhere.
      '@typescript-eslint/no-misused-promises': 'error',
      // `await` of something that is not a promise: the code believes it waits for what it does not.
      '@typescript-eslint/await-thenable': 'error',
      // A switch over a union that misses a member (a new method kind, block tag or error code).
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // Type-only imports say so, so a file's run-time imports are its real dependency edges (layering: rpc/ may
      // import node/, not the reverse; no import cycles at run time). The tree's style: `type` inline.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
)
