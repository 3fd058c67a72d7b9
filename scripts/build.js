// `npm run build`, also run by `npm ci` through `prepare` and by `npm pack` through `prepack`:
// compiles src/ to dist/ — the JavaScript and its declarations (.d.ts), which the package ships — and
// stamps the result (bin/build-stamp.js) so that bin/homeagent.js runs it only while it matches the
// sources.
//
// It emits without type-checking (`--noCheck`): the build exists to start the command fast, and
// checking types is `npm run typecheck`'s job, as it is when the sources run through tsx. Declaration
// errors (an exported type that cannot be written in a .d.ts) are still reported, and fail the build.
// Under `--prepare` a failed build is a warning, not a failed install: the command still works, through
// tsx, only slower to start. `--prepare` also keeps a build that is current: `npm pack` runs `prepack`
// (a full build, whose failure fails the pack) and then `prepare`, which has nothing left to do.
//
// The compiler rewrites the sources' `./x.ts` import specifiers to `./x.js` in the JavaScript but
// not in the declarations; a consumer's compiler resolves `./x.js` to `./x.d.ts`, so the build
// rewrites the declarations' relative specifiers the same way.
//
// The browser programs (src/**/*.client.js, inlined into the pages; src/view/page-script.ts says why
// they are JavaScript) are not compiled: they are copied into dist/ beside the modules that read them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent, sourceFingerprint, writeStamp } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A relative module specifier ending `.ts` in an import, export or `import()` type of a declaration file. */
const TS_SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\.ts\2/g;
const prepare = process.argv.includes('--prepare');
if (prepare && isBuildCurrent(root)) process.exit(0);

// A clean dist/: no stamp while the compiler runs, and no output left over from deleted sources.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const fingerprint = sourceFingerprint(root);
let status = compile();
if (status === 0) status = copyClientScripts();
if (status === 0) status = rewriteDeclarationSpecifiers();
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

function rewriteDeclarationSpecifiers() {
  try {
    for (const file of readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.d.ts')) continue;
      const path = join(root, 'dist', file);
      const text = readFileSync(path, 'utf8');
      const rewritten = text.replace(TS_SPECIFIER, '$1$2$3.js$2');
      if (rewritten !== text) writeFileSync(path, rewritten);
    }
    return 0;
  } catch (err) {
    process.stderr.write(
      `homeagent: cannot rewrite the declarations' import specifiers: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}
