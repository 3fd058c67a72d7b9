// `npm run build`, also run by `npm ci` through `prepare`: compiles src/ to dist/ and stamps the
// result (bin/build-stamp.js) so that bin/homeagent.js runs it only while it matches the sources.
//
// It emits without type-checking (`--noCheck`): the build exists to start the command fast, and
// checking types is `npm run typecheck`'s job, as it is when the sources run through tsx. Under
// `--prepare` a failed build is a warning, not a failed install: the command still works, through
// tsx, only slower to start.
//
// The browser programs (src/**/*.client.js, inlined into the pages; src/view/page-script.ts says why
// they are JavaScript) are not compiled: they are copied into dist/ beside the modules that read them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFingerprint, writeStamp } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const prepare = process.argv.includes('--prepare');

// A clean dist/: no stamp while the compiler runs, and no output left over from deleted sources.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const fingerprint = sourceFingerprint(root);
let status = compile();
if (status === 0) status = copyClientScripts();
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
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], {
    cwd: root,
    stdio: 'inherit',
  });
  return result.status ?? 1;
}

function copyClientScripts() {
  try {
    for (const file of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.client.js')) continue;
      mkdirSync(dirname(join(root, 'dist', file)), { recursive: true });
      copyFileSync(join(root, 'src', file), join(root, 'dist', file));
    }
    return 0;
  } catch (err) {
    process.stderr.write(
      `homeagent: cannot copy the browser programs into dist/: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}
