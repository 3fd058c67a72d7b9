import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two projects share this file. `unit` is `npm test`'s suite: unit tests, properties and the scenario files
 * with their golden hashes; it needs no browser. `browser` (`npm run test:browser`) drives Debian's Chromium
 * through playwright-core against the timeline and live pages; it is selected by name, so `npm test` never
 * starts a browser.
 */
/**
 * The package's own name resolves to its sources, as tsconfig.json's `paths` does for the type checker: the
 * examples of docs/library.md import 'homeagent' and 'homeagent/testing' as a user's code would, and run
 * against the code as it is now, not against a build.
 */
const alias = [
  { find: /^homeagent$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  { find: /^homeagent\/testing$/, replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)) },
];

export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // `npm run test:coverage` (and so CI) fails when the kernel's coverage, summed over all of
      // src/kernel, drops below these floors. The rest of src/ is reported without a floor.
      thresholds: {
        'src/kernel/**': { lines: 90, branches: 85 },
      },
    },
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'properties/**/*.test.ts', 'scenarios/**/*.test.ts'],
          // The files of a worker share its module cache instead of each importing src/ afresh, which
          // halves the suite's wall time (the imports were a third of it). This holds because no test
          // mocks a module, fakes timers or stubs a global, and every test leaves process-wide state
          // (the environment, the working directory, globals) as it found it; a test that needs a
          // fresh process runs its code in a child process.
          isolate: false,
          // Properties run thousands of cases; the default 5 s would cut them off on a slow CI core.
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.browser.ts'],
          // One browser for the whole file; the 100 000-event trace is simulated and drawn in its setup.
          testTimeout: 120_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
