// @ts-check
/**
 * `npm run mutation` (tools/mutation/run.js): StrykerJS over the kernel and the production code around
 * it. Stryker lives in tools/mutation/, installed on first use, so that `npm ci` and the `homeagent` start-up stay light.
 * The runner starts Stryker in the repository root, and Stryker resolves every path below from there.
 *
 * perTest coverage runs only the tests that reach a mutant; incremental mode reuses the verdicts in
 * reports/stryker-incremental.json (git-ignored: a fresh clone starts from scratch) for every mutant
 * whose code and covering tests did not change. The scores of each run are recorded in
 * tools/mutation/scores.json. Mutants judged equivalent are disabled where they stand with
 * `// Stryker disable` comments that give the reason; docs/mutation-testing.md has the policy.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  testRunner: 'vitest',
  // The mutation suite leaves out the tests that cannot see a mutant (the CLI tests spawn a process
  // that loads its own, unmutated sources) and the slowest kernel-wide property; see the config file.
  vitest: { configFile: 'tools/mutation/vitest.config.ts' },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  // The checker compiles src/ alone, not the tests: a mutant that does not type-check is discarded
  // before any test runs, and work in progress in a test cannot fail the check.
  tsconfigFile: 'tools/mutation/tsconfig.src.json',
  // The kernel; the two public formats the simulator owns, the report it writes (docs/spec.md §12.3) and
  // the scenario file it reads (docs/spec.md §12.1); and everything production adds around the kernel:
  // the server, the model adapters, the Runtime, memory, the journal, tools, the trace file, telemetry
  // and the timeline's pure model (lanes, tracks, page data; the browser programs themselves are
  // JavaScript inlined into pages, tested by test/view/ and the browser suite). The index files only
  // re-export. Each room can be run alone (`npm run mutation -- --mutate 'src/journal/**/*.ts'`) and
  // is recorded in scores.json when a run covered it whole.
  mutate: [
    'src/kernel/**/*.ts',
    'src/sim/report/**/*.ts',
    'src/sim/scenario/**/*.ts',
    'src/server/**/*.ts',
    'src/models/**/*.ts',
    'src/runtime/**/*.ts',
    'src/memory/**/*.ts',
    'src/journal/**/*.ts',
    'src/tools/**/*.ts',
    'src/trace-file/**/*.ts',
    'src/telemetry/**/*.ts',
    'src/view/lane-builder.ts',
    'src/view/tracks.ts',
    'src/view/model.ts',
    'src/view/page-data.ts',
    '!src/**/index.ts',
  ],
  // A static mutant (a module-level constant) forces a reload and the whole suite per mutant; the
  // kernel's module-level values are tables and defaults that the unit tests pin anyway.
  ignoreStatic: true,
  incremental: true,
  // Stryker's default place, named here because the runner and the docs rely on it.
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  // Two cores on every machine of this project; a third test-runner process only adds contention.
  concurrency: 2,
  // A loaded machine stretches the property tests; a generous margin keeps slow runs from being
  // reported as infinite loops (a real infinite loop still times out and counts as killed).
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 15,
  tempDirName: '.stryker-tmp',
  // Not copied into the sandbox. Stryker leaves out node_modules at any depth (tools/mutation's own
  // install too), .git, its temp folder, its incremental file and its reports by itself.
  ignorePatterns: ['/dist', '/coverage', '/reports', '/.clinic', '/.scratch-*', '/test/browser'],
  thresholds: { high: 95, low: 90, break: null },
};

export default config;
