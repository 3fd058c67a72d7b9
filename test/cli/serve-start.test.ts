/**
 * How `homeagent serve` starts (docs/spec.md §13.1, §13.1a "Edges"), spawned as a user runs it: any
 * loopback form of `--host` binds without a token, and the `listening on` line names the address and
 * the port actually bound (`--port 0` picks one); a token that is not printable ASCII, a missing
 * config file and a `--journal` naming the memory database are refused with exit 2 and one problem each.
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin, SPAWN_TIMEOUT_MS, startBin } from './run-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-serve-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('homeagent serve: starting', () => {
  it(
    '--host 127.1 --port 0 binds without a token and prints the address and port it bound',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const { child, exited } = startBin(
        ['serve', '--model', 'demo', '--host', '127.1', '--port', '0', '--no-terminal', '--data-dir', join(dir, 'a')],
        { env: { HOMEAGENT_TOKEN: '' } },
      );
      const lines = createInterface({ input: child.stdout ?? process.stdin });
      const first = new Promise<string>((resolve) => lines.once('line', resolve));
      void exited.then(({ stderr }) => lines.emit('line', `exited: ${stderr}`));
      try {
        const line = await first;
        const m = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line);
        expect(m, line).not.toBeNull();
        expect(Number(m?.[1])).toBeGreaterThan(0);
        expect((await fetch(`http://127.0.0.1:${m?.[1]}/healthz`)).status).toBe(200);
        child.kill('SIGTERM');
        expect((await exited).code).toBe(143);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it(
    'exit 2 with one problem: a token that is not printable ASCII, a config file that is not there, the memory database as --journal',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const absent = join(dir, 'absent.json');
      const dataDir = join(dir, 'b');
      mkdirSync(dataDir);
      const memory = join(dataDir, 'memory.sqlite');
      const db = new Database(memory);
      db.exec('create table kept (x)');
      db.close();
      const [token, config, journal] = await Promise.all([
        runBin(['serve', '--model', 'demo', '--no-terminal', '--port', '0'], { env: { HOMEAGENT_TOKEN: 'caf\u00e9' } }),
        runBin(['serve', '--config', absent, '--no-terminal', '--port', '0']),
        runBin([
          'serve',
          '--model',
          'demo',
          '--data-dir',
          dataDir,
          '--journal',
          memory,
          '--no-terminal',
          '--port',
          '0',
        ]),
      ]);
      expect(token.code).toBe(2);
      expect(token.stderr).toContain('HOMEAGENT_TOKEN: must be printable ASCII');
      expect(token.stderr).not.toContain('caf\u00e9');
      expect(config.code).toBe(2);
      expect(config.stderr).toContain(`--config: cannot read ${absent}`);
      expect(config.stderr).not.toContain('providers');
      expect(journal.code).toBe(2);
      expect(journal.stderr).toContain(`--journal: ${memory} is the memory database`);
      const kept = new Database(memory, { readonly: true });
      expect(kept.prepare("select name from sqlite_master where name = 'kept'").all()).toHaveLength(1);
      kept.close();
    },
  );
});
