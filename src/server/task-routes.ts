/**
 * The task routes of the HTTP channel (docs/spec.md §13.1): `POST /v1/inputs` and `POST /v1/interrupts` submit
 * and answer when the task ends — a JSON body, or with `Accept: text/event-stream` the task's events
 * as they happen — and `GET /v1/tasks/{task}` and `GET /v1/tasks/{task}/events` read a task by its id.
 *
 * Every answer that created a task names it in the `Homeagent-Task` header. A client that goes away
 * only stops listening: its task runs on, and its events stay readable from `/events`. A refusal for
 * backpressure is known at submission, so it is answered 429 whichever way the client asked; so is an
 * input too large for the context window, answered 413 (docs/spec.md §13.1a).
 *
 * HTTP inputs are exempt from the kernel's duplicate check (`dedup: false`, docs/spec.md §3.1): a
 * person may say "yes" twice. A client makes its retries safe with an `Idempotency-Key` header
 * instead: a request whose key names a task the board keeps is answered with that task — the same
 * id, terminal and events — and submits nothing. A refusal for backpressure does not bind its key,
 * so the retry it asks for is a new submission; a stop without text creates no task to bind.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Submission, SubmitResult, Terminal } from '../kernel/index.ts';
import { readJsonBody, sendError, sendJson, sendUnavailable, type Unavailable } from './http-io.ts';
import { checkInput, checkInterrupt, type Checked } from './http-schemas.ts';
import { parseLastEventId, SseStream } from './sse.ts';
import { ENDED_TASKS_KEPT, terminalBody, type TaskBoard, type TaskEvent, type TerminalBody } from './task-board.ts';

export const HTTP_SOURCE = 'http';
export const TASK_HEADER = 'Homeagent-Task';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The longest Idempotency-Key accepted (a UUID is 36 characters). */
export const IDEMPOTENCY_KEY_CHARS_MAX = 256;

export interface TaskPorts {
  readonly board: TaskBoard;
  readonly bodyTimeoutMs: number;
  /** Submits through the Runtime; the board knows the task before the kernel does. */
  submit(sub: Submission): SubmitResult;
  /** Why no new input is accepted now (503), or null; asked before every submission. */
  unavailable(): Unavailable | null;
  /**
   * Settles once every input submitted so far is durable under `journal.sync` (docs/spec.md §13.2): a
   * submission is acknowledged — its task id sent — only then.
   */
  durable(): Promise<void>;
  nextId(prefix: string): string;
}

export async function postInput(req: IncomingMessage, res: ServerResponse, ports: TaskPorts): Promise<void> {
  const body = await readChecked(req, res, ports, checkInput);
  if (body === null || refused(res, ports)) return;
  const key = idempotencyKey(req, res);
  if (key === false) return;
  await submitAndAnswer(req, res, ports, key, {
    cls: 'queued',
    text: body.text,
    source: body.source ?? HTTP_SOURCE,
    channel: body.channel,
  });
}

export async function postInterrupt(req: IncomingMessage, res: ServerResponse, ports: TaskPorts): Promise<void> {
  const body = await readChecked(req, res, ports, checkInterrupt);
  if (body === null || refused(res, ports)) return;
  const key = idempotencyKey(req, res);
  if (key === false) return;
  await submitAndAnswer(req, res, ports, key, {
    cls: 'interrupt',
    text: body.text ?? '',
    source: body.source ?? HTTP_SOURCE,
    channel: body.channel,
    level: body.level,
    stop: body.stop,
  });
}

export function getTask(res: ServerResponse, ports: TaskPorts, task: string): void {
  const view = ports.board.view(task);
  if (view === null) sendError(res, 404, unknownTask(task), 'task');
  else sendJson(res, 200, view);
}

export function getTaskEvents(req: IncomingMessage, res: ServerResponse, ports: TaskPorts, task: string): void {
  const header = req.headers['last-event-id'];
  const lastId = parseLastEventId(header);
  if (!lastId.ok) {
    sendError(
      res,
      400,
      `Last-Event-ID must be the id of an event of this task (decimal digits), got ${JSON.stringify(header)}`,
      'Last-Event-ID',
    );
    return;
  }
  if (ports.board.view(task) === null) {
    sendError(res, 404, unknownTask(task), 'task');
    return;
  }
  if (req.method === 'HEAD') new SseStream(res).end();
  else streamEvents(res, ports.board, task, lastId.id ?? 0);
}

interface Request {
  readonly cls: Submission['cls'];
  readonly text: string;
  readonly source: string;
  readonly channel: string | undefined;
  readonly level?: string | undefined;
  readonly stop?: boolean | undefined;
}

async function submitAndAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  ports: TaskPorts,
  key: string | null,
  r: Request,
): Promise<void> {
  const known = key === null ? null : ports.board.taskOfKey(key);
  if (known !== null) {
    // The request that created it may still wait for its record to be durable.
    await ports.durable();
    answerTask(req, res, ports.board, known);
    return;
  }
  const id = ports.nextId(HTTP_SOURCE);
  const result = submitHttp(ports, key, {
    id,
    cls: r.cls,
    text: r.text,
    source: r.source,
    ...(r.channel === undefined ? {} : { channel: r.channel }),
    ...(r.level === undefined ? {} : { level: r.level }),
    ...(r.stop === undefined ? {} : { stop: r.stop }),
  });
  await ports.durable();
  if (result.kind === 'stopped') {
    // A stop without text creates no task: it answers at once with what it cancelled.
    sendJson(res, 200, { task: null, terminal: 'done', reply: 'stopped', cancelled: result.cancelled });
    return;
  }
  if (result.kind === 'ended' && refusedAtDoor(result.terminal)) {
    const body = terminalBody(id, result.terminal);
    sendJson(res, statusOf(body), body, { [TASK_HEADER]: id, ...retryAfter(body) });
    return;
  }
  answerTask(req, res, ports.board, id);
}

/**
 * Submits an input that arrived over HTTP: exempt from the duplicate check, and bound to its
 * Idempotency-Key unless it created no task or was refused for backpressure.
 */
export function submitHttp(ports: TaskPorts, key: string | null, sub: Omit<Submission, 'dedup'>): SubmitResult {
  const result = ports.submit({ ...sub, dedup: false });
  const refused = result.kind === 'ended' && result.terminal.reason === 'queue_full';
  // A stop without text made no task: the board has none to bind, and binds nothing.
  if (key !== null && !refused) ports.board.bindKey(key, sub.id);
  return result;
}

/** A task's answer: its events as SSE when the client asks for them, else the JSON body at its terminal. */
function answerTask(req: IncomingMessage, res: ServerResponse, board: TaskBoard, task: string): void {
  if (wantsEvents(req)) streamEvents(res, board, task, 0, { [TASK_HEADER]: task });
  else answerAtTerminal(res, board, task);
}

/**
 * The request's Idempotency-Key: null without one, false when it was refused (400, answered here). A key
 * is 1 to IDEMPOTENCY_KEY_CHARS_MAX printable ASCII characters.
 */
export function idempotencyKey(req: IncomingMessage, res: ServerResponse): string | null | false {
  const header = req.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (header === undefined) return null;
  // Stryker disable next-line StringLiteral: Node joins a repeated header of this name into one string itself
  const key = Array.isArray(header) ? header.join(', ') : header;
  // One character or more: the pattern's `+`.
  if (key.length <= IDEMPOTENCY_KEY_CHARS_MAX && /^[\x20-\x7e]+$/.test(key)) return key;
  sendError(
    res,
    400,
    `${IDEMPOTENCY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_CHARS_MAX} printable ASCII characters, got ${key.length} characters`,
    IDEMPOTENCY_HEADER,
  );
  return false;
}

/** Waits for the terminal event and answers it as JSON. */
function answerAtTerminal(res: ServerResponse, board: TaskBoard, task: string): void {
  const stop = board.listen(task, 0, (event) => {
    if (event.kind === 'terminal')
      sendJson(res, statusOf(event.body), event.body, { [TASK_HEADER]: task, ...retryAfter(event.body) });
    else if (event.kind === 'shutdown') sendPaused(res, event.task, event.state);
  });
  res.once('close', () => stop?.());
}

/**
 * The task's events after `afterId` as SSE, live until the terminal event. A client that already had
 * the terminal event (its Last-Event-ID is the last id) gets an empty stream that ends at once.
 */
function streamEvents(
  res: ServerResponse,
  board: TaskBoard,
  task: string,
  afterId: number,
  headers: Record<string, string> = {},
): void {
  const sse = new SseStream(res, headers);
  const stop = board.listen(task, afterId, (event: TaskEvent) => {
    if (event.kind === 'delta') {
      sse.event(JSON.stringify({ text: event.text }), 'delta', event.id);
      return;
    }
    if (event.kind === 'reset') {
      sse.event(JSON.stringify({ reason: event.reason }), 'reset', event.id);
      return;
    }
    if (event.kind === 'shutdown') {
      sse.event(JSON.stringify({ task: event.task, state: event.state }), 'shutdown');
      sse.end();
      return;
    }
    sse.event(JSON.stringify(event.body), 'terminal', event.id);
    sse.end();
  });
  // Ending an ended stream again does nothing (SseStream.end).
  if (board.view(task)?.state === 'ended') sse.end();
  res.once('close', () => stop?.());
}

/**
 * A durable server pauses (docs/spec.md §13.1): the open request is answered now with its task and
 * state, and the client asks again after the restart (`GET /v1/tasks/{task}`).
 */
export function sendPaused(res: ServerResponse, task: string, state: string): void {
  sendJson(res, 503, { task, state }, { [TASK_HEADER]: task, 'retry-after': String(PAUSE_RETRY_AFTER_S) });
}

/** How long a client waits before asking again after a pause: a restart takes about this long. */
export const PAUSE_RETRY_AFTER_S = 5;

function wantsEvents(req: IncomingMessage): boolean {
  return req.headers.accept?.toLowerCase().includes('text/event-stream') === true;
}

/**
 * A terminal known at submission that is answered with its own status, whichever way the client
 * asked: a refusal for backpressure (429) and an input too large for the context window (413).
 */
export function refusedAtDoor(terminal: Terminal): boolean {
  return terminal.reason === 'queue_full' || terminal.reason === 'too_large';
}

export function statusOf(body: TerminalBody): number {
  if (body.reason === 'queue_full') return 429;
  return body.reason === 'too_large' ? 413 : 200;
}

function retryAfter(body: TerminalBody): Record<string, string> {
  return body.reason === 'queue_full' ? { 'retry-after': '1' } : {};
}

/** A task is forgotten once ENDED_TASKS_KEPT ended tasks are newer than it (task-board.ts). */
function unknownTask(task: string): string {
  return `no task ${JSON.stringify(task)}: it never existed, or it is no longer among the last ${ENDED_TASKS_KEPT} ended tasks`;
}

/** Answers 503 when no new input is accepted now; true when it did. */
export function refused(res: ServerResponse, ports: TaskPorts): boolean {
  const why = ports.unavailable();
  if (why === null) return false;
  sendUnavailable(res, why);
  return true;
}

/** The body, read and checked; null when an error was answered. */
export async function readChecked<T>(
  req: IncomingMessage,
  res: ServerResponse,
  ports: { readonly bodyTimeoutMs: number },
  checkBody: (value: unknown) => Checked<T>,
): Promise<T | null> {
  const read = await readJsonBody(req, res, ports.bodyTimeoutMs);
  if (!read.ok) {
    sendError(res, read.status, read.message);
    return null;
  }
  const checked = checkBody(read.value);
  if (checked.ok) return checked.value;
  const { path, message } = checked.problem;
  sendError(res, 400, path === '' ? `the body ${message}` : `${path}: ${message}`, path === '' ? null : path);
  return null;
}
