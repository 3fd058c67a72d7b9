/**
 * A start that fails (serve exits with the reason) leaves nothing open behind it: every file it had
 * opened by then — the `--journal` and `--trace` outputs, the write-ahead log's segments — is closed,
 * so a library user who calls createServer again does not pile up file handles. A start that recovers
 * lets go of the segments it read.
 */
import { createServer as listenOn, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServeSettings } from '../../src/server/settings.ts';
import { StartError } from '../../src/server/start-error.ts';
import { openFilesUnder } from '../support/open-files.ts';
import { createQuietServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-start-failure-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function failedStart(dir: string, overrides: Partial<ServeSettings>): Promise<unknown> {
  return createQuietServer(dir, overrides).then(
    async (server) => {
      await server.shutdown('unexpected start');
      return null;
    },
    (err: unknown) => err,
  );
}

describe('serve: a start that fails leaves no file open', () => {
  it('a --trace that cannot be opened: the --journal opened before it is closed', async () => {
    const dir = mkdtempSync(join(root, 'trace-'));
    mkdirSync(join(dir, 'a-directory'));
    const err = await failedStart(dir, { journal: join(dir, 'run.jsonl'), trace: join(dir, 'a-directory') });
    expect(err).toBeInstanceOf(StartError);
    expect((err as Error).message).toMatch(/^--trace: /);
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('a port already taken: the journals and the trace are closed', async () => {
    const dir = mkdtempSync(join(root, 'port-'));
    const taken: Server = listenOn();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const err = await failedStart(dir, { port, journal: join(dir, 'run.jsonl'), trace: join(dir, 'trace.jsonl') });
      expect(err).toBeInstanceOf(StartError);
      expect((err as Error).message).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
      expect(openFilesUnder(dir)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a write-ahead log damaged before its end: the outputs opened before recovery are closed', async () => {
    const dir = mkdtempSync(join(root, 'damaged-'));
    const journalDir = join(dir, 'data', 'journal');
    mkdirSync(journalDir, { recursive: true });
    writeFileSync(join(journalDir, 'segment-000001.jsonl'), 'not a journal\n');
    const err = await failedStart(dir, { journal: join(dir, 'run.jsonl'), trace: join(dir, 'trace.jsonl') });
    expect(err).toBeInstanceOf(StartError);
    expect((err as Error).message).toMatch(/^cannot recover from /);
    expect(openFilesUnder(dir)).toEqual([]);
  });
});

describe('serve: a recovered start holds no segment but the one it writes', () => {
  it('the segments read to recover are let go once read', async () => {
    const dir = mkdtempSync(join(root, 'recovered-'));
    const first = await createQuietServer(dir, {});
    await first.shutdown('first run over');
    await first.closeConnections(100);
    const second = await createQuietServer(dir, {});
    try {
      const journalDir = join(dir, 'data', 'journal');
      expect(openFilesUnder(journalDir)).toEqual([join(journalDir, 'segment-000002.jsonl')]);
    } finally {
      await second.shutdown('second run over');
      await second.closeConnections(100);
    }
  });
});
