// The mutation suite's one setup file (tools/mutation/vitest.config.ts): every fast-check property
// draws from the same seed in every run, so that a mutant killed once is killed again, and one that
// survived survives, whatever run found it. Properties that pass their own seed keep it.
import fc from 'fast-check';

fc.configureGlobal({ seed: 20_260_101 });
