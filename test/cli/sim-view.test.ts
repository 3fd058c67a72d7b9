/**
 * The timeline through the real bin: `sim view`, `sim run --html` (the summary links the
 * page), `sim sweep --html-dir` (a page per failing seed), and unusable input (exit 2, nothing written).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { FIXTURES, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const OK_SCENARIO = `${FIXTURES}/tool-then-interrupt.json`;
const FAILING_SCENARIO = `${FIXTURES}/expect-fails.json`;

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-view-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function isTimelinePage(path: string): boolean {
  const html = readFileSync(path, 'utf8');
  return html.startsWith('<!doctype html>') && html.includes('<script id="timeline-data" type="application/json">');
}

describe.concurrent('homeagent sim view and --html', () => {
  it(
    'sim run --html writes the page and the summary links it; sim view draws the same page from --trace',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const html = join(tmp, 'run.html');
      const trace = join(tmp, 'run.jsonl');
      const r = await runBin(['sim', 'run', OK_SCENARIO, '--html', html, '--trace', trace]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^timeline: ${pathToFileURL(html).href}  \\(\\d+ events, \\d+ KiB\\)$`, 'm'));
      expect(isTimelinePage(html)).toBe(true);

      const viewed = join(tmp, 'viewed.html');
      const v = await runBin(['sim', 'view', trace, '-o', viewed]);
      expect(v.code).toBe(0);
      expect(v.stdout).toMatch(/^timeline: file:\/\/.*viewed\.html {2}\(\d+ events, \d+ KiB\)\n$/);
      expect(readFileSync(viewed, 'utf8')).toBe(readFileSync(html, 'utf8'));
    },
  );

  it('sim view names the page after the trace by default', { timeout: SPAWN_TIMEOUT_MS }, async ({ expect }) => {
    const trace = join(tmp, 'default.jsonl');
    const r = await runBin(['sim', 'run', OK_SCENARIO, '--trace', trace]);
    expect(r.code).toBe(0);
    const v = await runBin(['sim', 'view', trace]);
    expect(v.code).toBe(0);
    expect(isTimelinePage(join(tmp, 'default.html'))).toBe(true);
  });

  it(
    'sim view refuses a file with no event line and writes nothing (exit 2)',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const trace = join(tmp, 'garbage.jsonl');
      writeFileSync(trace, 'not a trace\n');
      const v = await runBin(['sim', 'view', trace]);
      expect(v.code).toBe(2);
      expect(v.stderr).toContain('has no trace event line (line 1: not JSON)');
      expect(existsSync(join(tmp, 'garbage.html'))).toBe(false);
    },
  );

  it(
    'sim run --html to an unwritable place is unusable input (exit 2)',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const r = await runBin(['sim', 'run', OK_SCENARIO, '--html', join(tmp, 'no-such-dir', 'x.html')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--html: cannot write');
    },
  );

  it(
    'refuses to write the page over an input: the trace it is drawn from, the scenario, the --trace file',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const trace = join(tmp, 'kept.jsonl');
      writeFileSync(trace, '{"seq":1,"t":0,"agent":"root","type":"agent.stop"}\n');
      const [view, scenario, both] = await Promise.all([
        runBin(['sim', 'view', trace, '-o', trace]),
        runBin(['sim', 'run', OK_SCENARIO, '--html', OK_SCENARIO]),
        runBin(['sim', 'run', OK_SCENARIO, '--html', trace, '--trace', trace]),
      ]);
      expect([view.code, scenario.code, both.code]).toEqual([2, 2, 2]);
      expect(view.stderr).toContain(`--output: ${trace} is the trace file; writing the page there would overwrite it`);
      expect(scenario.stderr).toContain(`--html: ${OK_SCENARIO} is the scenario file`);
      expect(both.stderr).toContain(`--html: ${trace} is the --trace file`);
      expect(readFileSync(trace, 'utf8')).toBe('{"seq":1,"t":0,"agent":"root","type":"agent.stop"}\n');
    },
  );

  it(
    'sim sweep --html-dir writes one page per failing seed and lists them',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const dir = join(tmp, 'failing');
      const r = await runBin(['sim', 'sweep', FAILING_SCENARIO, '--seeds', '1..2', '--html-dir', dir]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('timelines of the failing seeds:\n');
      for (const seed of [1, 2]) {
        const page = join(dir, `expect-fails-seed-${seed}.html`);
        expect(r.stdout).toContain(`  seed ${seed}: ${pathToFileURL(page).href}  (`);
        expect(isTimelinePage(page)).toBe(true);
      }
    },
  );
});
