/**
 * Who may reach into the simulator: besides src/sim itself, only the commands (src/cli) and the
 * library (src/index.ts and src/library/). The kernel, the Runtime, the server, the test kit and the
 * rest never import it, so the production code does not carry the simulator, and the test kit uses
 * the simulator only through the library's public functions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-bin.ts';

const SRC = join(REPO_ROOT, 'src');
const ALLOWED = ['sim/', 'cli/', 'library/', 'index.ts'];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split('\\').join('/'));
}

describe('the simulator boundary', () => {
  it('no module outside src/sim, src/cli and the library imports src/sim', () => {
    const offenders: string[] = [];
    const checked = sources().filter((file) => !ALLOWED.some((a) => file === a || file.startsWith(a)));
    for (const file of checked) {
      for (const match of readFileSync(join(SRC, file), 'utf8').matchAll(SPECIFIER)) {
        const target = relative(SRC, resolve(dirname(join(SRC, file)), match[1] ?? ''));
        if (target.split('\\').join('/').startsWith('sim/')) offenders.push(`src/${file} imports ${match[1] ?? ''}`);
      }
    }
    expect(checked.length).toBeGreaterThan(50);
    expect(checked).toContain('testing/index.ts');
    expect(offenders).toEqual([]);
  });
});
