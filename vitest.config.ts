import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CI runs on a shared 2-core machine, often beside other work: the slowest tests under the default timeout took
    // up to 10 s there (test/fuzz.test.ts over HTTP, test/limits/pendingReplies.test.ts), three times their unloaded
    // time. 60 s leaves room for a heavier load; a test that hangs still fails, only later. Tests that need longer
    // set their own timeout.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
