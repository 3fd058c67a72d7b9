/**
 * `bin/homeagent.js` runs the compiled dist/ when its build stamp matches the
 * sources, and the TypeScript sources through tsx otherwise; sweep workers run the compiled code too.
 *
 * The proof that the build is what runs: a copy of the repository whose node_modules lacks tsx. With a
 * current build, the command, its runs and its sweep workers work there and give the same trace hashes
 * as the sources; once a source file changes, the stale build is refused (and without tsx the command
 * says so), and with tsx back it runs the edited sources.
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
  it('a change of content, an added and a deleted file, and a changed tsconfig each make the build stale', ({
    expect,
  }) => {
    const root = join(tmp, 'stamp');
    mkdirSync(join(root, 'src', 'sub'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    for (const file of ['src/a.ts', 'src/sub/b.ts', 'tsconfig.json', 'tsconfig.build.json'])
      writeFileSync(join(root, file), 'x');
    expect(isBuildCurrent(root)).toBe(false); // no stamp yet

    const stamp = (): void => writeStamp(root, sourceFingerprint(root));
    const changes: readonly (() => void)[] = [
      () => writeFileSync(join(root, 'src/sub/b.ts'), 'xy'),
      () => writeFileSync(join(root, 'src/sub/c.ts'), 'x'),
      () => unlinkSync(join(root, 'src/a.ts')),
      () => writeFileSync(join(root, 'tsconfig.build.json'), '{}'),
    ];
    for (const change of changes) {
      stamp();
      expect(isBuildCurrent(root)).toBe(true);
      change();
      expect(isBuildCurrent(root)).toBe(false);
    }
  });
});
