// `npm run build`, also run by `npm ci` through `prepare`: compiles src/ to dist/ and stamps the
// result (bin/build-stamp.js) so that bin/homeagent.js runs it only while it matches the sources.
//
// It emits without type-checking (`--noCheck`): the build exists to start the command fast, and
// checking types is `npm run typecheck`'s job, as it is when the sources run through tsx. Under
// `--prepare` a failed build is a warning, not a failed install: the command still works, through
// tsx, only slower to start.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFingerprint, writeStamp } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const prepare = process.argv.includes('--prepare');

// A clean dist/: no stamp while the compiler runs, and no output left over from deleted sources.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const fingerprint = sourceFingerprint(root);
const status = compile();
if (status === 0) {
  writeStamp(root, fingerprint);
} else if (prepare) {
  process.stderr.write('homeagent: the build failed; `homeagent` will run the sources through tsx (slower to start)\n');
} else {
  process.exit(status);
}

function compile() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write('homeagent: typescript is not installed (npm ci installs it)\n');
    return 1;
  }
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}
