/**
 * A start that cannot go on stops with a StartError (serve exits 2) whose message names what is wrong
 * and where: the data directory, its task id counter, a journal that cannot take its header, the model
 * providers, the configured channels and residents, the newest snapshot. Each case is the in-process
 * start a library user makes; none leaves a file open behind it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServeSettings } from '../../src/server/settings.ts';
import { StartError } from '../../src/server/start-error.ts';
import { TASK_IDS_FILE } from '../../src/server/task-ids.ts';
import type { OutputFile } from '../../src/trace-file/index.ts';
import { openFilesUnder } from '../support/open-files.ts';
import { FillableFiles } from './failing-file.ts';
import { createQuietServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-start-refusals-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The StartError of a start that must fail; a start that succeeds is shut down and fails the test. */
async function refusal(
  dir: string,
  overrides: Partial<ServeSettings> = {},
  openOutputFile?: (path: string) => OutputFile,
): Promise<string> {
  const outcome = await createQuietServer(dir, overrides, openOutputFile).then(
    async (server) => {
      await server.shutdown('unexpected start');
      await server.closeConnections(100);
      return null;
    },
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(StartError);
  expect(openFilesUnder(dir)).toEqual([]);
  return (outcome as StartError).message;
}

/** A clean run in `dir`'s data directory, so that the next start recovers from its snapshot. */
async function oneRun(dir: string): Promise<string> {
  const server = await createQuietServer(dir, {});
  await server.shutdown('first run over');
  await server.closeConnections(100);
  return join(dir, 'data', 'journal');
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('serve: a start that cannot go on says why', () => {
  it('a data directory that cannot be made names it and says to choose another', async () => {
    const dir = mkdtempSync(join(root, 'data-dir-'));
    writeFileSync(join(dir, 'a-file'), '');
    const dataDir = join(dir, 'a-file', 'data');
    const message = await refusal(dir, { dataDir });
    expect(message).toMatch(
      new RegExp(`^cannot create the data directory ${escaped(dataDir)}: ENOTDIR.*; choose another with --data-dir$`),
    );
  });

  it('a task id counter that is not one names the file', async () => {
    const dir = mkdtempSync(join(root, 'counter-'));
    const path = join(dir, 'data', TASK_IDS_FILE);
    mkdirSync(join(dir, 'data'));
    writeFileSync(path, 'seven\n');
    const message = await refusal(dir);
    expect(message.startsWith(`${path} is not a task id counter`)).toBe(true);
  });

  it('a task id counter that cannot be written says so and to choose another data directory', async () => {
    const dir = mkdtempSync(join(root, 'counter-write-'));
    const path = join(dir, 'data', TASK_IDS_FILE);
    // The counter is replaced through a temporary file beside it; a directory there cannot be written.
    mkdirSync(`${path}.tmp`, { recursive: true });
    const message = await refusal(dir);
    expect(message).toMatch(new RegExp(`^cannot write ${escaped(path)}: EISDIR.*; choose another --data-dir$`));
  });

  it('a provider that cannot be made gives its own reason', async () => {
    const dir = mkdtempSync(join(root, 'provider-'));
    const message = await refusal(dir, {
      model: { kind: 'providers', providers: [{ name: 'main', kind: 'anthropic', model: 'claude' }] },
    });
    expect(message).toMatch(/^provider "main": no apiKeyEnv for the anthropic API; set apiKeyEnv/);
  });

  it('a channel the kernel refuses is named under channels', async () => {
    const dir = mkdtempSync(join(root, 'channels-'));
    const message = await refusal(dir, { channels: [{ name: 'mail' }, { name: ' ' }] });
    expect(message).toMatch(/^channels: inputch name must not be empty/);
  });

  it('a resident the kernel refuses is named by its place in the list', async () => {
    const dir = mkdtempSync(join(root, 'residents-'));
    const trace = join(dir, 'trace.jsonl');
    const message = await refusal(dir, {
      trace,
      residents: [
        { id: 'gardener', taskPrompt: 'You look after the garden.' },
        { id: 'gardener', taskPrompt: 'You look after the garden too.' },
      ],
    });
    expect(message).toMatch(/^residents\[1\]: .*gardener/);
    // What the start traced before it gave up is in the file: its header, then the first resident made.
    const traced = readFileSync(trace, 'utf8').trimEnd().split('\n');
    expect(traced[0]).toContain('"type":"trace.header"');
    expect(traced.slice(1).some((l) => l.includes('"agent":"gardener"'))).toBe(true);
  });

  it.each(['the write-ahead log', '--journal'])(
    'a disk full before %s’s header is written: the start names the file and the error',
    async (which) => {
      const dir = mkdtempSync(join(root, 'full-'));
      const journal = join(dir, 'run.jsonl');
      const files = new FillableFiles();
      const full = which === '--journal' ? journal : join(dir, 'data', 'journal', 'segment-000001.jsonl');
      const message = await refusal(dir, { journal }, (path) => {
        const file = files.open(path);
        files.get(path).full = path === full;
        return file;
      });
      expect(message).toBe(`cannot write the journal ${full}: ENOSPC: no space left on device, write`);
    },
  );

  it('a newest snapshot that cannot be read names the journal directory', async () => {
    const dir = mkdtempSync(join(root, 'snapshot-read-'));
    const journal = await oneRun(dir);
    mkdirSync(join(journal, 'snapshot-999999-999999999.json'));
    const message = await refusal(dir);
    expect(message).toMatch(new RegExp(`^cannot read the snapshots in ${escaped(journal)}: EISDIR`));
  });

  it('a newest snapshot whose kernel state cannot be restored stops the start with the kernel’s reason', async () => {
    const dir = mkdtempSync(join(root, 'snapshot-kernel-'));
    const journal = await oneRun(dir);
    const [name] = readdirSync(journal).filter((f) => f.startsWith('snapshot-'));
    const path = join(journal, name ?? '');
    const snapshot = JSON.parse(readFileSync(path, 'utf8')) as { kernel: Record<string, unknown> };
    writeFileSync(path, JSON.stringify({ ...snapshot, kernel: { ...snapshot.kernel, agents: [] } }));
    const message = await refusal(dir);
    expect(message).toMatch(/^cannot recover from the newest snapshot: .*the first agent of a snapshot is the root/);
  });
});
