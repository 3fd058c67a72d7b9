#!/usr/bin/env node
// The `homeagent` command (also `npx homeagent`).
//
// Installed from the npm package, there are no sources beside it: the package ships the compiled
// dist/ alone, and that is what runs. In a checkout it runs dist/ when that build matches the sources
// (bin/build-stamp.js), which starts in a fraction of the time tsx needs to transpile the sources;
// otherwise — no build yet, or sources edited since — it runs the TypeScript sources through tsx, so
// the command always runs the code as it is now.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from './build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));

if (!existsSync(join(root, 'src'))) {
  await runInstalled();
} else if (isBuildCurrent(root)) {
  await import('../dist/cli/main.js');
} else {
  await runSources();
}

async function runInstalled() {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
    process.stderr.write(
      `homeagent: the package at ${root} has neither dist/ nor src/; reinstall it (npm install homeagent)\n`,
    );
    process.exit(1);
  }
  await import('../dist/cli/main.js');
}

async function runSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'homeagent: dist/ is missing or older than src/, and tsx is not installed; run `npm ci` or `npm run build`\n',
    );
    process.exit(1);
  }
  register();
  await import('../src/cli/main.ts');
}
