import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { formatFindings, scanSource, scanTree, stripComments } from './determinism-scan.ts';

const KERNEL_DIR = fileURLToPath(new URL('../../src/kernel', import.meta.url));
/** The Runtime, the only async glue, lives in src/runtime (docs/spec.md §11): nothing in src/kernel is exempt. */
const EXEMPT: string[] = [];

const rulesOf = (source: string): string[] => scanSource(source).map((f) => `${f.line}:${f.rule}`);

describe('determinism guard: src/kernel uses no ambient time, randomness, I/O or async (STYLE rule 1)', () => {
  it('no banned global, keyword or import in any src/kernel file', () => {
    const { files, findings } = scanTree(KERNEL_DIR, EXEMPT, 'src/kernel');
    // The scan really covers the kernel (not vacuous), recursively, folders included.
    expect(files).toContain('scheduler/core.ts');
    expect(files).toContain('scheduler/levels.ts');
    expect(files).toContain('agent/agent.ts');
    expect(files.some((f) => f.includes('runtime'))).toBe(false);
    expect(files.every((f) => f.endsWith('.ts'))).toBe(true);
    expect(findings, `banned uses in src/kernel:\n${formatFindings(findings)}`).toEqual([]);
  });

  describe('scanner self-test', () => {
    it('flags Date, Math.random, timers, performance, process.hrtime/env, randomUUID, async and await', () => {
      const src = [
        'const a = Date.now();',
        'const b = new Date();',
        'const c = Math.random();',
        'setTimeout(f, 1);',
        'setInterval(f, 1);',
        'setImmediate(f);',
        'queueMicrotask(f);',
        'const d = performance.now();',
        'const e = process.hrtime.bigint();',
        'const g = process.env.HOME;',
        'const h = randomUUID();',
        'async function run() {',
        '  await x;',
        '}',
      ].join('\n');
      expect(rulesOf(src)).toEqual([
        '1:Date',
        '2:Date',
        '3:Math.random',
        '4:setTimeout',
        '5:setInterval',
        '6:setImmediate',
        '7:queueMicrotask',
        '8:performance',
        '9:process.hrtime',
        '10:process.env',
        '11:randomUUID',
        '12:async',
        '13:await',
      ]);
    });

    it('flags imports of fs, crypto and timers, with or without node:, static or dynamic', () => {
      const src = [
        "import { readFileSync } from 'node:fs';",
        'import fs from "fs";',
        "import { createHash } from 'node:crypto';",
        "export { createHmac } from 'crypto';",
        "import * as timers from 'node:timers/promises';",
        "import 'node:fs';",
        "const m = require('fs/promises');",
        "import { join } from 'node:path';",
        "import { x } from './fs.ts';",
        "import { y } from 'fs-extra';",
      ].join('\n');
      const found = scanSource(src);
      expect(found.map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(new Set(found.map((f) => f.rule))).toEqual(new Set(['import fs/crypto/timers']));
      // `await import(...)` is flagged twice on one line: as await and as the import.
      expect(rulesOf("const z = await import('node:crypto');")).toEqual(['1:await', '1:import fs/crypto/timers']);
    });

    it('does not flag comments, and keeps line numbers true after a block comment', () => {
      const src = [
        '// Date.now() would read ambient time; we never await here.',
        '/* setTimeout, Math.random and',
        '   process.env are banned */ const ok = 1;',
        'const later = Date.now(); // flagged: after the comment, on line 4',
      ].join('\n');
      expect(rulesOf(src)).toEqual(['4:Date']);
      expect(stripComments(src).split('\n')).toHaveLength(4);
    });

    it('a // inside a string is not a comment; property names and longer identifiers are not flagged', () => {
      expect(rulesOf("const u = 'http://x'; const t = Date.now();")).toEqual(['1:Date']);
      expect(rulesOf('const s = "a /* b"; await q;')).toEqual(['1:await']);
      expect(
        rulesOf(
          [
            'const lastDate = 1;',
            'const x = obj.Date;',
            'const mathRandom = 2;',
            'const isAsync = true;',
            'const awaited = f();',
            'const e = cfg.env;',
            'type DateLike = number;',
          ].join('\n'),
        ),
      ).toEqual([]);
    });

    it('an escaped quote does not end a string early', () => {
      expect(rulesOf("const s = 'it\\'s // fine'; const n = Date.now();")).toEqual(['1:Date']);
    });
  });
});
