/**
 * The determinism guard's scanner (STYLE rule 1; Temporal's "determinism enforced mechanically").
 *
 * The kernel core must not read ambient time, randomness, the environment or the file system, and must
 * not be async. This scanner strips comments (keeping string contents and every newline, so line
 * numbers stay true) and flags each banned use with its file and line. It is deliberately simple: a
 * false positive is visible and easy to reword, and a string that happens to contain a banned word is
 * flagged too, which errs on the safe side.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

/** An identifier that is not a property of something else (`x.Date` is not the global `Date`). */
const ident = (name: string): RegExp => new RegExp(`(?<![\\w$.])${name}(?![\\w$])`);

const BANNED_MODULES = String.raw`(?:node:)?(?:fs|crypto|timers)(?:/[\w/]*)?`;

export const RULES: readonly Rule[] = [
  { name: 'Date', pattern: ident('Date') },
  { name: 'Math.random', pattern: /(?<![\w$.])Math\s*\.\s*random\b/ },
  { name: 'setTimeout', pattern: ident('setTimeout') },
  { name: 'setInterval', pattern: ident('setInterval') },
  { name: 'setImmediate', pattern: ident('setImmediate') },
  { name: 'queueMicrotask', pattern: ident('queueMicrotask') },
  { name: 'performance', pattern: ident('performance') },
  { name: 'process.hrtime', pattern: /(?<![\w$.])process\s*\.\s*hrtime\b/ },
  { name: 'process.env', pattern: /(?<![\w$.])process\s*\.\s*env\b/ },
  { name: 'randomUUID', pattern: /(?<![\w$])randomUUID(?![\w$])/ },
  { name: 'async', pattern: ident('async') },
  { name: 'await', pattern: ident('await') },
  {
    name: 'import fs/crypto/timers',
    pattern: new RegExp(
      String.raw`(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"\x60])${BANNED_MODULES}\1`,
    ),
  },
];

/**
 * Replaces `// …` and `/* … *\/` comments with spaces (newlines kept). Quoted strings and template
 * literals are recognised only so that a `//` inside them is not taken for a comment; their contents
 * are kept. A quoted string ends at its closing quote or at the end of the line (so a stray quote,
 * e.g. in a regex literal, cannot hide more than the rest of one line).
 */
export function stripComments(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < n && source[i] !== '\n') {
        out += ' ';
        i += 1;
      }
    } else if (c === '/' && next === '*') {
      out += '  ';
      i += 2;
      while (i < n && !(source[i] === '*' && source[i + 1] === '/')) {
        out += source[i] === '\n' ? '\n' : ' ';
        i += 1;
      }
      if (i < n) {
        out += '  ';
        i += 2;
      }
    } else if (c === "'" || c === '"' || c === '`') {
      out += c;
      i += 1;
      while (i < n) {
        const d = source[i] as string;
        if (d === '\\' && i + 1 < n) {
          out += d + (source[i + 1] as string);
          i += 2;
          continue;
        }
        if (d === '\n' && c !== '`') break;
        out += d;
        i += 1;
        if (d === c) break;
      }
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** Every banned use in one source text, by line (1-based). */
export function scanSource(source: string, file = '<source>'): Finding[] {
  const findings: Finding[] = [];
  const lines = stripComments(source).split('\n');
  lines.forEach((text, index) => {
    for (const rule of RULES) {
      if (rule.pattern.test(text)) findings.push({ file, line: index + 1, rule: rule.name, text: text.trim() });
    }
  });
  return findings;
}

/** Every `.ts` file under `dir`, recursively, sorted, as paths relative to `base`. */
export function listTsFiles(dir: string, base: string = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTsFiles(path, base));
    else if (entry.isFile() && entry.name.endsWith('.ts')) out.push(relative(base, path));
  }
  return out.sort();
}

/**
 * Scans every `.ts` file under `root` except the `excluded` paths (relative to `root`, with `/`).
 * Returns the files scanned and the findings, each named `<label>/<file>:<line>`.
 */
export function scanTree(
  root: string,
  excluded: readonly string[],
  label: string,
): { files: string[]; findings: Finding[] } {
  const files = listTsFiles(root)
    .map((f) => f.split('\\').join('/'))
    .filter((f) => !excluded.includes(f));
  const findings = files.flatMap((f) => scanSource(readFileSync(join(root, f), 'utf8'), `${label}/${f}`));
  return { files, findings };
}

export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.text}`).join('\n');
}
