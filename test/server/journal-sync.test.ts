/**
 * docs/spec.md §13.2 "Write-ahead": a submission's input is in the write-ahead log before the kernel sees
 * it, and the submission is acknowledged — its task id sent — only once that record is durable under
 * `journal.sync`. A device that cannot sync is an outcome (§13.1a): new inputs get 503
 * `journal_unwritable` until a sync succeeds again, and the server keeps running.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_JOURNAL_POLICY } from '../../src/server/journal-policy.ts';
import { FillableFiles } from './failing-file.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const running: TestServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function start(sync: 'batch' | 'every' | 'off', files: FillableFiles): Promise<TestServer> {
  const s = await startTestServer({ journalPolicy: { ...DEFAULT_JOURNAL_POLICY, sync } }, undefined, {
    openOutputFile: files.open,
  });
  running.push(s);
  return s;
}

function segmentOf(s: TestServer, files: FillableFiles) {
  const path = join(s.dir, 'data', 'journal', 'segment-000001.jsonl');
  return { path, file: files.get(path) };
}

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5000) throw new Error('waited 5 s in vain');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms));
  return Promise.race([p.then(() => true), timeout]);
}

describe('serve: acknowledgements wait for the write-ahead record to be durable', () => {
  it('batch: the task id is sent only after the group commit that covers the input', async () => {
    const files = new FillableFiles();
    const s = await start('batch', files);
    const { path, file } = segmentOf(s, files);
    file.holdSyncs = true;
    const answer = fetch(`${s.url}/v1/inputs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'remember the milk' }),
    });
    // Written ahead: the input is in the segment while its acknowledgement waits for the sync.
    await until(() => readFileSync(path, 'utf8').includes('remember the milk'));
    expect(file.heldSyncs).toBeGreaterThan(0);
    expect(await settlesWithin(answer, 150)).toBe(false);
    file.holdSyncs = false;
    file.releaseSyncs();
    const res = await answer;
    expect(res.headers.get('homeagent-task')).toBe('http-1');
    await res.text();
  });

  it('off: nothing is synced; every: each record is synced as it is written', async () => {
    const offFiles = new FillableFiles();
    const off = await start('off', offFiles);
    await (await postJson(`${off.url}/v1/inputs`, { text: 'one' })).json();
    expect(segmentOf(off, offFiles).file.syncs).toBe(0);

    const everyFiles = new FillableFiles();
    const every = await start('every', everyFiles);
    const { path, file } = segmentOf(every, everyFiles);
    await (await postJson(`${every.url}/v1/inputs`, { text: 'two' })).json();
    const lines = readFileSync(path, 'utf8').trim().split('\n').length;
    expect(file.syncs).toBeGreaterThanOrEqual(lines);
  });

  it('a device that cannot sync: 503 journal_unwritable, one log line, accepted again once it syncs', async () => {
    const files = new FillableFiles();
    const s = await start('batch', files);
    const { path, file } = segmentOf(s, files);
    await until(() => file.syncs > 0);
    file.syncFails = true;
    const first = await postJson(`${s.url}/v1/inputs`, { text: 'written, not synced' });
    // Its record is written (the operating system has it): the task goes on and is answered.
    expect(await first.json()).toMatchObject({ task: 'http-1', terminal: 'done' });
    const refused = await postJson(`${s.url}/v1/inputs`, { text: 'while the device fails' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'journal_unwritable' } });
    expect(serveLines(s.logs, 'journal').map((l) => l.message)).toEqual([
      `cannot sync the journal ${path} to its device: EIO: i/o error, fdatasync; new inputs are refused (503 journal_unwritable) until a sync succeeds, accepted tasks go on`,
    ]);
    expect(serveLines(s.logs, 'journal')[0]).toMatchObject({ path, error: 'EIO: i/o error, fdatasync' });
    file.syncFails = false;
    expect(await (await postJson(`${s.url}/v1/inputs`, { text: 'synced again' })).json()).toMatchObject({
      terminal: 'done',
    });
    expect(serveLines(s.logs, 'journal').map((l) => l.message)).toEqual([
      `cannot sync the journal ${path} to its device: EIO: i/o error, fdatasync; new inputs are refused (503 journal_unwritable) until a sync succeeds, accepted tasks go on`,
      `the journal ${path} is synced again; inputs are accepted`,
    ]);
    expect(s.logs.filter((l) => l.startsWith('FATAL'))).toEqual([]);
  });
});
