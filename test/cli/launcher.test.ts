/**
 * `bin/homeagent.js` runs the compiled dist/ when its build stamp matches the
 * sources, and the TypeScript sources through tsx otherwise; sweep workers run the compiled code too.
 *
 * The proof that the build is what runs: a copy of the repository whose node_modules lacks tsx. With a
 * current build, the command, its runs and its sweep workers work there and give the same trace hashes
 * as the sources; once a source file changes, the stale build is refused (and without tsx the command
 * says so), and with tsx back it runs the edited sources. Installed from the package, with dist/ and no
 * src/, it runs dist/ as it is.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { isBuildCurrent, sourceFingerprint, writeStamp } from '../../bin/build-stamp.js';
import { FIXTURES, parseOneJson, REPO_ROOT, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const BUILD_TIMEOUT_MS = 120_000;
const SCENARIO = join(REPO_ROOT, FIXTURES, 'e5-nested-to-the-bound.json');
const COPIED = ['bin', 'scripts', 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-cli-launcher-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the repository whose node_modules holds every package but tsx. */
function copyWithoutTsx(root: string): void {
  for (const entry of COPIED) cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  for (const name of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (name === 'tsx' || name.startsWith('.')) continue;
    symlinkSync(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
}

async function build(root: string): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build.js'], { cwd: root, timeout: BUILD_TIMEOUT_MS });
}

describe('issue-7 item 15 and 16: the bin runs a current build, never a stale one', () => {
  const root = join(tmp, 'repo');

  beforeAll(async () => {
    mkdirSync(root);
    copyWithoutTsx(root);
    await build(root);
  }, BUILD_TIMEOUT_MS);

  it(
    'item 15: with a current build, sim run works without tsx and gives the hash of the sources',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      expect(isBuildCurrent(root)).toBe(true);
      const [built, sources, help] = await Promise.all([
        runBin(['sim', 'run', SCENARIO, '--json'], { root }),
        runBin(['sim', 'run', SCENARIO, '--json']),
        runBin(['--help'], { root }),
      ]);
      expect(built.stderr).toBe('');
      expect(built.code).toBe(0);
      expect(parseOneJson(built.stdout)['traceHash']).toBe(parseOneJson(sources.stdout)['traceHash']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: homeagent');
    },
  );

  it('the build emits declarations whose relative imports name the compiled .js files', ({ expect }) => {
    const declarations = readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.d.ts'),
    );
    expect(declarations).toContain(join('kernel', 'index.d.ts'));
    const specifiers = declarations.flatMap((f) =>
      [
        ...readFileSync(join(root, 'dist', f), 'utf8').matchAll(/(?:from\s*|import\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g),
      ].map((m) => `${f}: ${m[1] ?? ''}`),
    );
    expect(specifiers.length).toBeGreaterThan(100);
    expect(specifiers.filter((s) => !s.endsWith('.js'))).toEqual([]);
  });

  it(
    'installed from the package (dist/ and no src/), the command runs dist/ without a stamp or tsx',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const installed = join(tmp, 'installed');
      mkdirSync(installed);
      for (const entry of ['bin', 'dist', 'package.json']) {
        cpSync(join(root, entry), join(installed, entry), { recursive: true });
      }
      rmSync(join(installed, 'dist', 'build-stamp.json'));
      symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'));
      const [run, sources] = await Promise.all([
        runBin(['sim', 'run', SCENARIO, '--json'], { root: installed }),
        runBin(['sim', 'run', SCENARIO, '--json']),
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(parseOneJson(run.stdout)['traceHash']).toBe(parseOneJson(sources.stdout)['traceHash']);
    },
  );

  it(
    'item 16: sweep workers load the compiled code (no tsx) and give the same hashes as one worker',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [two, one] = await Promise.all([
        runBin(['sim', 'sweep', SCENARIO, '--seeds', '1..6', '--workers', '2', '--json'], { root }),
        runBin(['sim', 'sweep', SCENARIO, '--seeds', '1..6', '--workers', '1', '--json']),
      ]);
      expect(two.stderr).toBe('');
      expect(two.code).toBe(0);
      expect(parseOneJson(two.stdout)['hashes']).toEqual(parseOneJson(one.stdout)['hashes']);
    },
  );

  it(
    'item 15: after a source edit the stale build is refused; with tsx the edited sources run',
    { timeout: BUILD_TIMEOUT_MS },
    async ({ expect }) => {
      const main = join(root, 'src', 'cli', 'main.ts');
      writeFileSync(main, `process.stdout.write('edited sources\\n');\n${readFileSync(main, 'utf8')}`);
      expect(isBuildCurrent(root)).toBe(false);

      const refused = await runBin(['--help'], { root });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('dist/ is missing or older than src/, and tsx is not installed');

      symlinkSync(join(REPO_ROOT, 'node_modules', 'tsx'), join(root, 'node_modules', 'tsx'));
      const sources = await runBin(['--help'], { root });
      expect(sources.code).toBe(0);
      expect(sources.stdout).toMatch(/^edited sources\nUsage: homeagent/);

      await build(root);
      expect(isBuildCurrent(root)).toBe(true);
      expect((await runBin(['--help'], { root })).stdout).toMatch(/^edited sources\nUsage: homeagent/);
    },
  );
});

describe('issue-7 item 15: the build stamp follows every change of the sources', () => {
  it('a change of content, an added and a deleted file, a changed tsconfig and a changed build script each make the build stale', ({
    expect,
  }) => {
    const root = join(tmp, 'stamp');
    mkdirSync(join(root, 'src', 'sub'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    mkdirSync(join(root, 'scripts'));
    for (const file of ['src/a.ts', 'src/sub/b.ts', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.js'])
      writeFileSync(join(root, file), 'x');
    expect(isBuildCurrent(root)).toBe(false); // no stamp yet

    const stamp = (): void => writeStamp(root, sourceFingerprint(root));
    const changes: readonly (() => void)[] = [
      () => writeFileSync(join(root, 'src/sub/b.ts'), 'xy'),
      () => writeFileSync(join(root, 'src/sub/c.ts'), 'x'),
      () => unlinkSync(join(root, 'src/a.ts')),
      () => writeFileSync(join(root, 'tsconfig.build.json'), '{}'),
      () => writeFileSync(join(root, 'scripts/build.js'), '{}'),
    ];
    for (const change of changes) {
      stamp();
      expect(isBuildCurrent(root)).toBe(true);
      change();
      expect(isBuildCurrent(root)).toBe(false);
    }
  });
});
