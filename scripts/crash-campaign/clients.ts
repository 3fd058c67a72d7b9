/**
 * The crash campaign's HTTP clients: each submits inputs one after another to whichever `serve` is up,
 * as a careful client of docs/http-api.md would, and records what the server told it.
 *
 * A submission is acknowledged when an answer carries its task id (the `Homeagent-Task` header). Until
 * then nothing is promised: a request that fails (the server is down, or died before answering) is
 * retried with the same `Idempotency-Key` when it has one, and is otherwise given up. Once acknowledged,
 * a client follows its task to its terminal across restarts: a JSON client asks `GET /v1/tasks/{id}`
 * after a pause (503 with the task) or a broken connection; an SSE client resumes the task's events
 * with `Last-Event-ID`, so that its recorded stream is the task's whole stream, every reconnection
 * included. Some JSON clients walk away from a task after a broken connection; the campaign's end
 * checks those.
 *
 * The clients never decide a verdict; checks.ts does, from the records.
 */
import { Rng } from '../../src/sim/rng.ts';

/** One event of a task's stream as a client received it (`shutdown` has no id). */
export interface StreamEvent {
  readonly event: string;
  readonly id: number | null;
  readonly data: string;
}

export interface TerminalSeen {
  readonly terminal: string;
  readonly reason?: string;
  readonly reply: string;
}

export interface SubmissionRecord {
  /** `c<client>-<n>`: unique in the campaign, also the text's prefix and the Idempotency-Key. */
  readonly key: string;
  readonly text: string;
  readonly mode: 'json' | 'sse';
  readonly route: 'inputs' | 'interrupts';
  /** Sent with an Idempotency-Key, so retried when no answer named its task. */
  readonly keyed: boolean;
  /** HTTP requests made to submit it. */
  requests: number;
  /** Every task id an answer to one of its requests named, in order. */
  readonly acks: string[];
  /** The terminal the client received itself (a JSON answer, a terminal event), if it did. */
  terminal: TerminalSeen | null;
  /** SSE only: the task's events, over every connection. */
  readonly stream: StreamEvent[];
  /** The client walked away from the task before it ended. */
  walkedAway: boolean;
  /** Answers the protocol does not allow (a status, a 404 for an acknowledged task, …). */
  readonly oddities: string[];
}

/** Where the server is: its URL while one is up, and a way to wait for the next. */
export interface ServerPointer {
  /** The URL of the server that is up, or null while none is. */
  current(): string | null;
  /** Resolves once a server is up (at once if one is), or when the campaign stops. */
  up(): Promise<void>;
  /** True once the campaign has asked the clients to stop submitting. */
  stopping(): boolean;
}

export interface ClientOptions {
  readonly seed: number;
  readonly client: number;
  readonly server: ServerPointer;
  readonly records: SubmissionRecord[];
}

/** How long a client waits between two tries when the server is unreachable, and between polls. */
const RETRY_MS = 50;
/** A keyed submission is given up after this many requests without an answer naming its task. */
const REQUESTS_MAX = 10;
/** The share of submissions sent with an Idempotency-Key (and so retried). */
const KEYED_CHANCE = 0.3;
/** The chance that a JSON client walks away from a task whose connection broke. */
const WALK_AWAY_CHANCE = 0.25;

export async function runClient(opts: ClientOptions): Promise<void> {
  const rng = Rng.derive(opts.seed, 'client', opts.client);
  for (let n = 1; !opts.server.stopping(); n += 1) {
    const key = `c${opts.client}-${n}`;
    const record: SubmissionRecord = {
      key,
      text: `${key}: ${['tell me about', 'summarize', 'what of', 'and then'][rng.int(0, 3)] ?? ''} ${n}`,
      mode: rng.chance(0.5) ? 'sse' : 'json',
      route: rng.chance(0.1) ? 'interrupts' : 'inputs',
      keyed: rng.chance(KEYED_CHANCE),
      requests: 0,
      acks: [],
      terminal: null,
      stream: [],
      walkedAway: false,
      oddities: [],
    };
    opts.records.push(record);
    await submit(record, opts.server, rng);
    await sleep(rng.int(0, 100));
  }
}

/** Submits until an answer names the task (or gives up), then follows the task to its terminal. */
async function submit(record: SubmissionRecord, server: ServerPointer, rng: Rng): Promise<void> {
  const level = `L${rng.int(1, 3)}`;
  while (record.acks.length === 0 && record.requests < (record.keyed ? REQUESTS_MAX : 1)) {
    await server.up();
    const url = server.current();
    if (url === null) {
      if (server.stopping()) return;
      continue;
    }
    record.requests += 1;
    const body = record.route === 'inputs' ? { text: record.text } : { text: record.text, level };
    let res: Response;
    try {
      res = await fetch(`${url}/v1/${record.route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(record.mode === 'sse' ? { accept: 'text/event-stream' } : {}),
          ...(record.keyed ? { 'idempotency-key': record.key } : {}),
        },
        body: JSON.stringify(body),
      });
    } catch {
      await sleep(RETRY_MS);
      continue;
    }
    const task = res.headers.get('homeagent-task');
    if (task === null) {
      // A pausing server refuses a new input (503) before it makes a task; anything else is odd.
      if (res.status !== 503) record.oddities.push(`POST answered ${res.status} without a task id`);
      await res.body?.cancel().catch(() => undefined);
      await sleep(RETRY_MS);
      continue;
    }
    record.acks.push(task);
    if (record.mode === 'sse') {
      await readStream(record, res);
      if (record.terminal === null) await followStream(record, task, server);
      return;
    }
    const answered = await readJsonAnswer(record, res);
    if (answered) return;
    await followJson(record, task, server, rng);
    return;
  }
}

/** A JSON answer: a terminal (200, 429, 413), or a pause (503 with the task). True when it was a terminal. */
async function readJsonAnswer(record: SubmissionRecord, res: Response): Promise<boolean> {
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (res.status === 503) {
    // A pause (docs/http-api.md "Shutdown"): the task and its state, to ask for after the restart.
    if (body.task !== res.headers.get('homeagent-task') || typeof body.state !== 'string')
      record.oddities.push(`a pause answered 503 ${JSON.stringify(body)}`);
    return false;
  }
  if (typeof body.terminal === 'string') {
    record.terminal = terminalOf(body);
    return true;
  }
  record.oddities.push(`POST answered ${res.status} ${JSON.stringify(body)}`);
  return false;
}

/** Asks `GET /v1/tasks/{id}` until the task has ended (or the client walks away, or the campaign ends). */
async function followJson(record: SubmissionRecord, task: string, server: ServerPointer, rng: Rng): Promise<void> {
  if (rng.chance(WALK_AWAY_CHANCE)) {
    record.walkedAway = true;
    return;
  }
  for (;;) {
    await server.up();
    const url = server.current();
    if (url === null) return;
    try {
      const res = await fetch(`${url}/v1/tasks/${task}`);
      const view = (await res.json()) as Record<string, unknown>;
      if (res.status === 404) {
        record.oddities.push(`GET /v1/tasks/${task} answered 404 after the task was acknowledged`);
        return;
      }
      if (view.state === 'ended') {
        record.terminal = terminalOf(view);
        return;
      }
    } catch {
      // The server went down between two polls: ask the next one.
    }
    await sleep(RETRY_MS * 2);
  }
}

/** Resumes the task's events after the last id received, until its terminal event. */
async function followStream(record: SubmissionRecord, task: string, server: ServerPointer): Promise<void> {
  while (record.terminal === null) {
    await server.up();
    const url = server.current();
    if (url === null) return;
    const lastId = Math.max(0, ...record.stream.map((e) => e.id ?? 0));
    try {
      const res = await fetch(`${url}/v1/tasks/${task}/events`, {
        headers: { accept: 'text/event-stream', 'last-event-id': String(lastId) },
      });
      if (res.status === 404) {
        record.oddities.push(`GET /v1/tasks/${task}/events answered 404 after the task was acknowledged`);
        return;
      }
      await readStream(record, res);
    } catch {
      // The server went down before answering: resume from the next one.
    }
    if (record.terminal === null) await sleep(RETRY_MS);
  }
}

/** Reads SSE events into the record until the stream ends or breaks; notes the terminal event. */
async function readStream(record: SubmissionRecord, res: Response): Promise<void> {
  const reader = res.body?.getReader();
  if (reader === undefined) return;
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const part = await reader.read();
      if (part.done) break;
      buffered += decoder.decode(part.value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const event = parseEvent(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\n\n');
        if (event === null) continue;
        record.stream.push(event);
        if (event.event === 'terminal') record.terminal = terminalOf(JSON.parse(event.data) as Record<string, unknown>);
      }
    }
  } catch {
    // A broken connection (a kill): what arrived whole is kept; the rest comes from the next server.
  }
}

/** One SSE event block; null for a comment-only block (a keep-alive). */
function parseEvent(block: string): StreamEvent | null {
  let event = 'message';
  let id: number | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = Number(value);
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 && id === null && event === 'message' ? null : { event, id, data: data.join('\n') };
}

function terminalOf(body: Record<string, unknown>): TerminalSeen {
  return {
    terminal: String(body.terminal),
    ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
    reply: typeof body.reply === 'string' ? body.reply : '',
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
