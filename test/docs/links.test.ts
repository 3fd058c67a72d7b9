/**
 * The documentation is the project's reference, read from a clone or from the package: every relative
 * link in README.md and docs/ must reach a file of the repository, and a link with a `#fragment` must
 * reach a heading of that file (GitHub's anchor rule: lower case, punctuation dropped, spaces to '-') or
 * an explicit `<a id="…">` anchor in it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];

/** GitHub's heading anchor: lower case, everything but letters, digits, spaces, '-' and '_' dropped. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1] ?? '');
  return out;
}

function linksOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((l) => !/^[a-z]+:/i.test(l));
}

describe('documentation links', () => {
  it.each(docs)('every relative link of %s resolves', (file) => {
    const broken: string[] = [];
    for (const link of linksOf(file)) {
      const [path = '', fragment] = link.split('#');
      const target = path === '' ? join(root, file) : join(root, dirname(file), path);
      if (!existsSync(target)) broken.push(`${link} (no file ${relative(root, target)})`);
      else if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(fragment))
        broken.push(`${link} (no heading #${fragment})`);
    }
    expect(broken).toEqual([]);
  });

  it('README.md stays a front page of at most 10 000 bytes', () => {
    expect(readFileSync(join(root, 'README.md')).byteLength).toBeLessThanOrEqual(10_000);
  });
});
