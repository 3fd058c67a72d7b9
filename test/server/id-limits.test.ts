/**
 * The ids of the HTTP API (docs/http-api.md), each at exactly its limit and one past it, with the status
 * and error the docs give: a task id in the path (answered for the last ENDED_TASKS_KEPT ended tasks,
 * then 404; percent-decoded; as long as Node's 16 KiB request head allows, then 431), the
 * Idempotency-Key (kept exactly as long as its task; printable ASCII), Last-Event-ID (an event id of
 * the task, decimal digits), `source` and `channel` (non-empty; the API takes no agent id: routing is
 * by channel), the model id, and the ids serve gives (the counter file reserved ID_BLOCK at a time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDED_TASKS_KEPT } from '../../src/server/task-board.ts';
import { ID_BLOCK, TASK_IDS_FILE } from '../../src/server/task-ids.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { parseSse, postJson, rawRequest, startTestServer, type TestServer } from './support.ts';

interface Answer {
  readonly status: number;
  /** The Homeagent-Task header, or null. */
  readonly task: string | null;
  readonly body: unknown;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, task: res.headers.get('homeagent-task'), body: text === '' ? null : JSON.parse(text) };
}

let serial = 0;

async function submit(s: TestServer, headers: Record<string, string> = {}): Promise<Answer> {
  return answer(await postJson(`${s.url}/v1/inputs`, { text: `input ${++serial}` }, headers));
}

async function getTask(s: TestServer, id: string, suffix = ''): Promise<Answer> {
  return answer(await fetch(`${s.url}/v1/tasks/${id}${suffix}`));
}

/**
 * Types `count` lines at serve's terminal and resolves once each is answered: the quickest way to end
 * many tasks (no HTTP client in the same process), a queue's worth at a time.
 */
async function typeLines(s: TestServer, count: number): Promise<void> {
  let printed = '';
  const onData = (part: Buffer): void => void (printed += part.toString('utf8'));
  s.stdout.on('data', onData);
  try {
    const answered = (): number => printed.split('\n').filter((line) => line.startsWith('< ')).length;
    for (let typed = 0; typed < count;) {
      const batch = Math.min(QUEUE_BATCH, count - typed);
      s.stdin.write(Array.from({ length: batch }, () => `line ${++serial}\n`).join(''));
      typed += batch;
      for (let waited = 0; answered() < typed; waited += 5) {
        if (waited > 5_000) throw new Error(`${answered()} of ${typed} lines answered`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    expect(printed).not.toContain('< [');
  } finally {
    s.stdout.off('data', onData);
  }
}

/** Lines typed before waiting for their answers: well under the root's queue bound. */
const QUEUE_BATCH = 200;

const notFound = (task: string): unknown => ({
  error: {
    message: `no task ${JSON.stringify(task)}: it never existed, or it is no longer among the last ${ENDED_TASKS_KEPT} ended tasks`,
    type: 'not_found_error',
    param: 'task',
  },
});

describe('serve: task ids and Idempotency-Keys are kept for the last 1 000 ended tasks', () => {
  let s: TestServer;
  beforeAll(async () => {
    // No consolidation: every ended task is one of the test's.
    s = await startTestServer(
      { durable: false, terminal: true, kernel: { consolidateEveryTurns: 0 } },
      new ScriptedProvider(),
    );
  });
  afterAll(async () => {
    await s.stop();
  });

  const counterNext = (): number =>
    (JSON.parse(readFileSync(join(s.dir, 'data', TASK_IDS_FILE), 'utf8')) as { next: number }).next;

  it('the oldest of the last 1 000 ended tasks is answered, one more ended task later it is 404, and its key is new again', async () => {
    const first = await submit(s, { 'idempotency-key': 'first-key' });
    expect(first).toMatchObject({ status: 200, task: 'http-1' });
    await typeLines(s, ENDED_TASKS_KEPT - 1);
    // The ids given so far fill the counter's first block exactly, and it has not moved on yet.
    expect(counterNext()).toBe(ID_BLOCK + 1);

    // http-1 is the oldest of the last ENDED_TASKS_KEPT ended tasks: still answered, its key still bound.
    expect(await getTask(s, 'http-1')).toMatchObject({ status: 200, body: { task: 'http-1', state: 'ended' } });
    const events = await fetch(`${s.url}/v1/tasks/http-1/events`);
    expect(parseSse(await events.text()).at(-1)).toMatchObject({ event: 'terminal' });
    expect(await submit(s, { 'idempotency-key': 'first-key' })).toMatchObject({ status: 200, task: 'http-1' });
    // A submission with the block used up moves the counter file on by a whole block, before any id
    // past the block is given.
    expect(counterNext()).toBe(2 * ID_BLOCK + 1);
    expect(await submit(s)).toMatchObject({ status: 200, task: `http-${ID_BLOCK + 1}` });

    // One more ended task: http-1 is forgotten, the first line typed is now the oldest kept.
    expect(await getTask(s, 'http-1')).toEqual({ status: 404, task: null, body: notFound('http-1') });
    expect(await getTask(s, 'http-1', '/events')).toEqual({ status: 404, task: null, body: notFound('http-1') });
    expect(await getTask(s, 'terminal-2')).toMatchObject({ status: 200, body: { task: 'terminal-2', state: 'ended' } });
    // Its key went with it: the retry is a new submission.
    expect(await submit(s, { 'idempotency-key': 'first-key' })).toMatchObject({
      status: 200,
      task: `http-${ID_BLOCK + 2}`,
    });
  }, 20_000);
});

describe('serve: the ids a request names', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ durable: false }, new ScriptedProvider());
  });
  afterAll(async () => {
    await s.stop();
  });

  it('a task id in the path is percent-decoded; a broken escape is 400 naming the task', async () => {
    const { task } = await submit(s);
    const escaped = (task ?? '').replace('-', '%2D');
    expect(await getTask(s, escaped)).toMatchObject({ status: 200, body: { task } });
    expect(await getTask(s, '%E0%A4%A')).toEqual({
      status: 400,
      task: null,
      body: {
        error: {
          message: 'the task id in the path is not valid percent-encoding',
          type: 'invalid_request_error',
          param: 'task',
        },
      },
    });
  });

  it("a task id up to Node's 16 KiB request head is an unknown task (404); a longer one is 431 without a body", async () => {
    const head = (id: string): string => `GET /v1/tasks/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
    const long = 'a'.repeat(16 * 1024 - 512);
    const fits = await rawRequest(s.url, head(long));
    expect(fits.status).toBe(404);
    expect(JSON.parse(fits.body)).toEqual(notFound(long));
    const over = await rawRequest(s.url, head('a'.repeat(16 * 1024)));
    expect(over).toEqual({ status: 431, body: '' });
  });

  it('an Idempotency-Key of exactly 256 printable characters, spaces and "~" included, binds its task; 257 submit nothing', async () => {
    const key = `a ~${'k'.repeat(253)}`;
    expect(key).toHaveLength(256);
    const bound = await submit(s, { 'idempotency-key': key });
    expect(bound.status).toBe(200);
    expect(await submit(s, { 'idempotency-key': key })).toMatchObject({ status: 200, task: bound.task });
    const over = await submit(s, { 'idempotency-key': `${key}k` });
    expect(over).toEqual({
      status: 400,
      task: null,
      body: {
        error: {
          message: 'Idempotency-Key must be 1 to 256 printable ASCII characters, got 257 characters',
          type: 'invalid_request_error',
          param: 'Idempotency-Key',
        },
      },
    });
    // Nothing was submitted: the next task's number follows the bound one's.
    const after = await submit(s);
    expect(Number(after.task?.slice('http-'.length))).toBe(Number(bound.task?.slice('http-'.length)) + 1);
  });

  it('an Idempotency-Key with a character outside printable ASCII is 400 naming the header', async () => {
    for (const key of ['tab\there', 'caf\u00e9']) {
      const refused = await rawRequest(
        s.url,
        `POST /v1/inputs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nIdempotency-Key: ${key}\r\n` +
          `Content-Length: 12\r\nConnection: close\r\n\r\n{"text":"x"}`,
        'latin1',
      );
      expect(refused.status, JSON.stringify(key)).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { param: 'Idempotency-Key' } });
    }
  });

  it('Last-Event-ID: the last event id gives an empty stream, the one before it the terminal; other than digits is 400', async () => {
    const { task } = await submit(s);
    const events = async (lastId: string): Promise<{ status: number; ids: (string | null)[] }> => {
      const res = await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { 'last-event-id': lastId } });
      return { status: res.status, ids: parseSse(await res.text()).map((e) => e.id) };
    };
    const all = await events('');
    expect(all.status).toBe(200);
    const last = Number(all.ids.at(-1));
    expect(all.ids).toEqual(Array.from({ length: last }, (_, i) => String(i + 1)));
    expect(await events('0')).toEqual(all);
    expect(await events(String(last - 1))).toEqual({ status: 200, ids: [String(last)] });
    expect(await events(String(last))).toEqual({ status: 200, ids: [] });
    expect(await events(String(last + 1))).toEqual({ status: 200, ids: [] });
    for (const bad of ['-1', '1e1', '0x1', ' 1a']) {
      const res = await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { 'last-event-id': bad } });
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'Last-Event-ID' } });
    }
  });

  it.each(['source', 'channel'])('%s: one character is accepted, an empty one is 400 naming it', async (field) => {
    const one = await answer(await postJson(`${s.url}/v1/inputs`, { text: `input ${++serial}`, [field]: 'x' }));
    expect(one).toMatchObject({ status: 200, body: { terminal: 'done' } });
    const empty = await answer(await postJson(`${s.url}/v1/inputs`, { text: `input ${++serial}`, [field]: '' }));
    expect(empty).toMatchObject({
      status: 400,
      task: null,
      body: { error: { type: 'invalid_request_error', param: field } },
    });
  });

  it('a body naming an agent is 400: an input reaches a resident by its channel only', async () => {
    const res = await answer(await postJson(`${s.url}/v1/inputs`, { text: `input ${++serial}`, agent: 'root' }));
    expect(res).toMatchObject({ status: 400, task: null, body: { error: { param: 'agent' } } });
  });

  it('the model id: homeagent is the one model, any other id is 404 naming the model', async () => {
    expect((await fetch(`${s.url}/v1/models/homeagent`)).status).toBe(200);
    const other = await fetch(`${s.url}/v1/models/homeagent2`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { type: 'not_found_error', param: 'model' } });
  });
});
