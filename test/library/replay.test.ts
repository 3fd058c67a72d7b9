/**
 * The library's `replayJournal` (src/index.ts, docs/library.md): a `serve --journal` file replays to
 * the trace hash the server printed when it stopped; a journal that cannot be replayed throws a
 * JournalError that lists its problems.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalError, replayJournal } from '../../src/index.ts';
import { postJson, startTestServer } from '../server/support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-library-replay-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('replayJournal', () => {
  it("reproduces the server's trace hash from its journal", async () => {
    const journal = join(tmp, 'run.jsonl');
    const server = await startTestServer({ journal });
    await (await postJson(`${server.url}/v1/inputs`, { text: 'hello' })).json();
    await (await postJson(`${server.url}/v1/interrupts`, { text: 'urgent', level: 'L3' })).json();
    const production = await server.stop();

    const result = await replayJournal(journal);
    expect(result.ok).toBe(true);
    expect(result.matches).toBe(true);
    expect(result.traceHash).toBe(production.traceHash);
    expect(result.inputs).toBeGreaterThanOrEqual(2);
  });

  it('throws a JournalError naming the file and every problem', async () => {
    const missing = join(tmp, 'missing.jsonl');
    await expect(replayJournal(missing)).rejects.toThrow(JournalError);
    const notJson = join(tmp, 'not-json.jsonl');
    writeFileSync(notJson, 'this is not a journal\n');
    const error = await replayJournal(notJson).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as JournalError).problems.length).toBeGreaterThan(0);
    expect((error as Error).message).toMatch(new RegExp(`^journal ${notJson}: \\d+ problems?\\n {2}`));
  });
});
