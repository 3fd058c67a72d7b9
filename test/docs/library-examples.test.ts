/**
 * The examples of docs/library.md: each file of docs/examples/ is shown whole on the page, followed by
 * the output it prints; here each one runs — importing 'homeagent' and 'homeagent/testing' as a user's
 * code does (vitest.config.ts resolves them to the sources) — and must print exactly that output.
 *
 * They run in a directory of their own, where `scenarios/` is the repository's, so that the files an
 * example writes (a failing scenario under failures/) stay out of the repository. Without an OpenAI
 * key, as in CI, the model example talks to the demo model.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../cli/run-bin.ts';

const PAGE = readFileSync(join(REPO_ROOT, 'docs', 'library.md'), 'utf8');
const EXAMPLES = join(REPO_ROOT, 'docs', 'examples');
const files = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.ts'))
  .sort();

const cwd = mkdtempSync(join(tmpdir(), 'homeagent-doc-examples-'));
symlinkSync(join(REPO_ROOT, 'scenarios'), join(cwd, 'scenarios'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The output block that follows the example's code on the page; null when the code is not shown whole. */
function shownOutput(code: string): string | null {
  const lead = `\`\`\`ts\n${code}\`\`\`\n\nOutput:\n\n\`\`\`text\n`;
  const at = PAGE.indexOf(lead);
  if (at < 0) return null;
  const start = at + lead.length;
  return PAGE.slice(start, PAGE.indexOf('```', start));
}

/** Runs an example in `cwd` and returns what it printed with console.log. */
async function run(file: string): Promise<string> {
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(`${format(...args)}\n`);
  });
  const home = process.cwd();
  const key = process.env['OPENAI_API_KEY'];
  delete process.env['OPENAI_API_KEY'];
  process.chdir(cwd);
  try {
    await import(pathToFileURL(join(EXAMPLES, file)).href);
  } finally {
    process.chdir(home);
    if (key !== undefined) process.env['OPENAI_API_KEY'] = key;
    log.mockRestore();
  }
  return printed.join('');
}

describe('docs/library.md examples', () => {
  it('every example with an output on the page is a file of docs/examples/', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(PAGE.split('\nOutput:\n').length - 1).toBe(files.length);
  });

  for (const file of files) {
    it(`${file}: shown whole on the page, prints the output shown after it`, async () => {
      const expected = shownOutput(readFileSync(join(EXAMPLES, file), 'utf8'));
      expect(
        expected,
        `docs/library.md shows docs/examples/${file} whole, then "Output:" and a text block`,
      ).not.toBeNull();
      expect(await run(file)).toBe(expected);
    });
  }
});
