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
//
// The command itself (dist/cli/main.js, and the sweep worker it starts, dist/cli/sweep-worker.js) is
// then bundled in place by esbuild, with its pure-JavaScript dependencies: one file to read instead of
// about 300 modules, which is most of the command's start-up. The parts only some commands use (serve
// and its SDKs, OpenTelemetry) stay behind their `import()` in chunks of their own; the packages with
// native code or their own loading (better-sqlite3, the model SDKs, MCP, OpenTelemetry, ajv) stay
// external. The bundled code sits in dist/cli/, so the files it reads relative to itself are there too:
// the browser programs are copied beside it, and ../../package.json is the package's. The library
// (dist/index.js, dist/testing/) stays one module per source file. Without esbuild the command runs the
// unbundled output, only slower to start.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent, sourceFingerprint, writeStamp } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Dependencies the command's bundle leaves to Node: native code, or loaded only by some commands. */
const BUNDLE_EXTERNAL = [
  'better-sqlite3',
  'openai',
  '@anthropic-ai/sdk',
  '@modelcontextprotocol/sdk',
  '@opentelemetry/*',
  'ajv',
  'tsx',
];
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
if (status === 0) status = await bundleCommand();
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

async function bundleCommand() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    process.stderr.write('homeagent: esbuild is not installed; the command runs unbundled (slower to start)\n');
    return 0;
  }
  const cli = join(root, 'dist', 'cli');
  try {
    await esbuild.build({
      entryPoints: { main: join(cli, 'main.js'), 'sweep-worker': join(cli, 'sweep-worker.js') },
      outdir: cli,
      allowOverwrite: true,
      bundle: true,
      splitting: true,
      chunkNames: 'chunk-[hash]',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: BUNDLE_EXTERNAL,
      // The CommonJS dependencies bundled in call require() for Node's built-in modules.
      banner: {
        js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
    for (const file of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.client.js')) copyFileSync(join(root, 'src', file), join(cli, basename(file)));
    }
    return 0;
  } catch (err) {
    process.stderr.write(`homeagent: cannot bundle the command: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
