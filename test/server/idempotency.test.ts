/**
 * docs/spec.md §13.1 (amended), §3.1: inputs that arrive over HTTP are not de-duplicated by text — a
 * person may say "yes" twice — and carry `dedup: false`; an `Idempotency-Key` header makes a retry
 * safe instead: the same key answers with the same task (same id, same terminal, its events) and
 * submits nothing. Plugin channels keep the text rule.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, SLOW_CHUNKS } from './scripted-provider.ts';
import { parseSse, postJson, startTestServer, waitFor, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}

function submissions(s: TestServer): string[] {
  return s.logs
    .map((l) => JSON.parse(l) as { type: string; task?: string })
    .filter((e) => e.type === 'task.submitted')
    .map((e) => String(e.task));
}

const chat = (text: string) => ({ model: 'homeagent', messages: [{ role: 'user', content: text }] });

describe('serve: HTTP inputs are not de-duplicated by text', () => {
  it('"yes" twice within the window: both answered on the OpenAI-compatible endpoint and on /v1/inputs', async () => {
    const s = await start({}, new ScriptedProvider());
    for (let i = 0; i < 2; i += 1) {
      const res = await postJson(`${s.url}/v1/chat/completions`, chat('yes'));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]?.message.content).toBe('echo: yes');
    }
    for (let i = 0; i < 2; i += 1) {
      const res = await postJson(`${s.url}/v1/inputs`, { text: 'yes' });
      expect(await res.json()).toMatchObject({ terminal: 'done', reply: 'echo: yes' });
      const stream = await postJson(`${s.url}/v1/interrupts`, { text: 'again', level: 'L2' });
      expect(await stream.json()).toMatchObject({ terminal: 'done' });
    }
    expect(submissions(s)).toHaveLength(6);
  });

  it('the journal records dedup: false on HTTP submissions, so a replay admits them alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-dedup-'));
    try {
      const journal = join(dir, 'journal.jsonl');
      const s = await start({ journal }, new ScriptedProvider());
      await (await postJson(`${s.url}/v1/inputs`, { text: 'yes' })).json();
      await s.stop();
      const submits = readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"submit"'))
        .map((l) => (JSON.parse(l) as { input: { submission: unknown } }).input.submission);
      expect(submits).toEqual([expect.objectContaining({ text: 'yes', source: 'http', dedup: false })]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('serve: Idempotency-Key', () => {
  it('a key keeps no task that was not made: a stop without text, or an input refused for a full queue', async () => {
    const provider = new ScriptedProvider();
    const s = await start({ kernel: { maxQueue: 1 } }, provider);
    const stop = async (): Promise<unknown> =>
      (await postJson(`${s.url}/v1/interrupts`, { stop: true }, { 'idempotency-key': 'stop-key' })).json();
    expect(await stop()).toMatchObject({ task: null, reply: 'stopped' });
    expect(await stop()).toMatchObject({ task: null, reply: 'stopped' });

    const running = postJson(`${s.url}/v1/inputs`, { text: 'hold one' });
    await waitFor(() => provider.calls > 0);
    const queued = postJson(`${s.url}/v1/inputs`, { text: 'queued two' });
    await waitFor(async () => (await fetch(`${s.url}/v1/tasks/http-4`)).status === 200);
    const full = await postJson(`${s.url}/v1/inputs`, { text: 'three' }, { 'idempotency-key': 'full-key' });
    expect(full.status).toBe(429);
    expect(full.headers.get('homeagent-task')).toBe('http-5');
    await full.text();
    provider.release();
    await (await running).text();
    await (await queued).text();
    // The retry is a new submission, not the refused task's answer again.
    const retried = await postJson(`${s.url}/v1/inputs`, { text: 'three' }, { 'idempotency-key': 'full-key' });
    expect(retried.headers.get('homeagent-task')).toBe('http-6');
    expect(await retried.json()).toMatchObject({ terminal: 'done' });
  });

  it('a retry with the same key answers the same task and submits nothing; another key is a new task', async () => {
    const s = await start({}, new ScriptedProvider());
    const key = { 'idempotency-key': 'order-7f3a' };
    const first = await postJson(`${s.url}/v1/inputs`, { text: 'book the table' }, key);
    const task = first.headers.get('homeagent-task');
    const body = await first.json();
    const again = await postJson(`${s.url}/v1/inputs`, { text: 'book the table' }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('homeagent-task')).toBe(task);
    expect(await again.json()).toEqual(body);
    const other = await postJson(`${s.url}/v1/inputs`, { text: 'book the table' }, { 'idempotency-key': 'order-8' });
    expect(other.headers.get('homeagent-task')).not.toBe(task);
    expect(submissions(s)).toHaveLength(2);
  });

  it('a retry while the task still runs joins it: the SSE retry gets the same events, ids and terminal', async () => {
    const s = await start({}, new ScriptedProvider());
    const headers = { 'idempotency-key': 'k-slow', accept: 'text/event-stream' };
    const [a, b] = await Promise.all([
      postJson(`${s.url}/v1/inputs`, { text: 'slow story' }, headers),
      postJson(`${s.url}/v1/inputs`, { text: 'slow story' }, headers),
    ]);
    expect(a.headers.get('homeagent-task')).toBe(b.headers.get('homeagent-task'));
    const [ea, eb] = [parseSse(await a.text()), parseSse(await b.text())];
    expect(eb).toEqual(ea);
    expect(ea.map((e) => e.event)).toEqual([...SLOW_CHUNKS.map(() => 'delta'), 'terminal']);
    expect(submissions(s)).toHaveLength(1);
  });

  it('works on the OpenAI-compatible endpoint, and a key reused on another route answers that first task', async () => {
    const s = await start({}, new ScriptedProvider());
    const key = { 'idempotency-key': 'chat-1' };
    const first = await postJson(`${s.url}/v1/chat/completions`, chat('hello'), key);
    const again = await postJson(`${s.url}/v1/chat/completions`, chat('hello'), key);
    expect(again.headers.get('homeagent-task')).toBe(first.headers.get('homeagent-task'));
    expect(((await again.json()) as { choices: unknown[] }).choices).toEqual(
      ((await first.json()) as { choices: unknown[] }).choices,
    );
    expect(submissions(s)).toHaveLength(1);
  });

  it('a key that is empty, over 256 characters or not printable ASCII is 400 naming the header, on every route that submits', async () => {
    const s = await start({}, new ScriptedProvider());
    const routes = [
      ['/v1/inputs', { text: 'hi' }],
      ['/v1/interrupts', { text: 'hi', level: 'L2' }],
      ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }],
    ] as const;
    for (const [route, body] of routes)
      for (const [k, chars] of [
        ['', 0],
        ['x'.repeat(257), 257],
        ['tab\there', 8],
      ] as const) {
        const res = await postJson(`${s.url}${route}`, body, { 'idempotency-key': k });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({
          error: {
            message: `Idempotency-Key must be 1 to 256 printable ASCII characters, got ${chars} characters`,
            param: 'Idempotency-Key',
          },
        });
      }
    expect(submissions(s)).toHaveLength(0);
  });
});

describe('serve: an Idempotency-Key survives a restart (docs/spec.md §13.2)', () => {
  it('a retry after the restart is answered with the task the key made, and nothing runs again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'homeagent-key-restart-'));
    try {
      const headers = { 'idempotency-key': 'k-restart-1' };
      const first = await startTestServer({ dataDir }, new ScriptedProvider());
      const made = await postJson(`${first.url}/v1/inputs`, { text: 'book the table' }, headers);
      expect(made.headers.get('homeagent-task')).toBe('http-1');
      expect(await made.json()).toMatchObject({ terminal: 'done' });
      await first.stop();

      const second = await startTestServer({ dataDir }, new ScriptedProvider());
      try {
        const retried = await postJson(`${second.url}/v1/inputs`, { text: 'book the table' }, headers);
        expect(retried.headers.get('homeagent-task')).toBe('http-1');
        expect(await retried.json()).toMatchObject({ task: 'http-1', terminal: 'done' });
        expect(submissions(second)).toEqual([]);
        // The binding is in the journal of the run that made it, after the input it binds.
        const segment = readFileSync(join(dataDir, 'journal', 'segment-000001.jsonl'), 'utf8');
        expect(segment).toContain('{"type":"key","key":"k-restart-1","task":"http-1"}');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
