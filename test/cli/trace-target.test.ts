/**
 * `sim run --trace` refuses targets it cannot or must not write — the scenario file
 * itself, an empty name, a device that fails on write, a path it cannot create — with exit 2, the
 * problem at `--trace`, and no stack trace; with `--json`, as the unusable-input document (docs/spec.md §12.1).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { FIXTURES, parseOneJson, REPO_ROOT, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-cli-trace-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const scenario = join(tmp, 'scenario.json');
copyFileSync(join(REPO_ROOT, FIXTURES, 'tool-then-interrupt.json'), scenario);
const original = readFileSync(scenario, 'utf8');
const link = join(tmp, 'link.json');
symlinkSync(scenario, link);
const plainFile = join(tmp, 'plain.txt');
writeFileSync(plainFile, 'not a directory');

describe.concurrent('issue-7 item 10: --trace refuses the scenario file and unusable targets', () => {
  it(
    'refuses the scenario file, by its own name or through a symlink, and leaves it intact',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [same, linked] = await Promise.all([
        runBin(['sim', 'run', scenario, '--trace', scenario]),
        runBin(['sim', 'run', scenario, '--trace', link, '--json']),
      ]);
      expect(same.code).toBe(2);
      expect(same.stdout).toBe('');
      expect(same.stderr).toContain(`--trace: ${scenario} is the scenario file itself`);
      expect(linked.code).toBe(2);
      expect(linked.stderr).toBe('');
      expect(parseOneJson(linked.stdout)).toEqual({
        reportVersion: 1,
        ok: false,
        problems: [{ path: '--trace', message: expect.stringContaining('is the scenario file itself') }],
      });
      expect(readFileSync(scenario, 'utf8')).toBe(original);
    },
  );

  it(
    'an empty name, /dev/full and a path it cannot create: exit 2 with the problem, no stack trace',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const targets = ['', '/dev/full', join(plainFile, 'trace.jsonl')];
      const results = await Promise.all(
        targets.flatMap((t) => [
          runBin(['sim', 'run', scenario, '--trace', t]),
          runBin(['sim', 'run', scenario, '--trace', t, '--json']),
        ]),
      );
      for (const [i, target] of targets.entries()) {
        const readable = results[2 * i];
        const json = results[2 * i + 1];
        expect(readable?.code, `--trace ${JSON.stringify(target)}`).toBe(2);
        expect(readable?.stdout).toBe('');
        expect(readable?.stderr).toMatch(/^ {2}--trace: /m);
        expect(readable?.stderr).not.toMatch(/\n\s+at /);
        expect(json?.code).toBe(2);
        expect(json?.stderr).toBe('');
        expect(parseOneJson(json?.stdout ?? '')).toEqual({
          reportVersion: 1,
          ok: false,
          problems: [{ path: '--trace', message: expect.any(String) }],
        });
      }
      expect(results[0]?.stderr).toContain('--trace: must name a file');
      expect(results[2]?.stderr).toContain('--trace: cannot write /dev/full: ENOSPC');
    },
  );
});
