import { defineConfig } from 'vitest/config';

/**
 * The browser tests (`npm run test:browser`): Debian's Chromium driven by playwright-core. Kept out of
 * vitest.config.ts, whose patterns they do not match (`*.browser.ts`), so that `npm test` needs no browser.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    // One browser for the whole file; the 100 000-event trace is simulated and drawn in its setup.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
