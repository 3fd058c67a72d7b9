import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts', 'scenarios/**/*.test.ts'],
    // Properties run thousands of cases; the default 5 s would cut them off on a slow CI core.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // `npm run test:coverage` (and so CI) fails when the kernel's coverage, summed over all of
      // src/kernel, drops below these floors. The rest of src/ is reported without a floor.
      thresholds: {
        'src/kernel/**': { lines: 90, branches: 85 },
      },
    },
  },
});
