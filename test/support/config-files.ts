import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A maker of configuration files for the settings tests: each call writes a new file (JSON of the value,
 * or a string as it is) in a temporary directory that is removed after the test file's tests.
 */
export function configFiles(prefix: string): (value: unknown) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  return (value) => {
    files += 1;
    const path = join(dir, `config-${files}.json`);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
}
