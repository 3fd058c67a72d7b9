import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The suite that `npm run mutation` runs against each mutant (tools/mutation/stryker.config.mjs). It is
 * `npm test`'s suite less the tests that cannot kill a mutant or would only slow every run down:
 * - test/cli/ spawns `homeagent` as a child process, which loads its own, unmutated sources;
 * - properties/kernel.scenarios.test.ts is the slowest file of the suite (tens of seconds) and
 *   covers nearly every kernel line, so it would run against almost every surviving mutant;
 * - test/server/auth-table-routes.test.ts reads the router's source text, which Stryker instruments
 *   when it mutates src/server (the route table's 401 checks stay in the suite).
 * fast-check gets a fixed seed (tools/mutation/fixed-seed.ts): a mutant's verdict must not depend on
 * the draw, or incremental runs would reuse verdicts that a new run could contradict.
 *
 * The root is the repository (two folders up from this file, in Stryker's sandbox copy as well), so
 * the patterns below read the same whatever directory vitest is started from.
 */
export default defineConfig({
  // As in the root vitest.config.ts: the package's own name resolves to the (mutated) sources.
  resolve: {
    alias: [
      { find: /^homeagent$/, replacement: fileURLToPath(new URL('../../src/index.ts', import.meta.url)) },
      {
        find: /^homeagent\/testing$/,
        replacement: fileURLToPath(new URL('../../src/testing/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts', 'scenarios/**/*.test.ts'],
    exclude: [
      'test/cli/**',
      'properties/kernel.scenarios.test.ts',
      'test/server/auth-table-routes.test.ts',
      '**/node_modules/**',
    ],
    setupFiles: ['tools/mutation/fixed-seed.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
