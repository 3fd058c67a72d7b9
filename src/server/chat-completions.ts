/**
 * `POST /v1/chat/completions`, OpenAI-compatible (docs/spec.md §13.1), so existing OpenAI clients and chat
 * front ends can talk to the agent. The last `user` message becomes a queued input on the channel
 * `http`; the other messages and parameters are accepted and ignored, because the agent keeps its
 * own conversation. The answer is a `chat.completion`, or with `stream: true` `chat.completion.chunk`
 * events — one per streamed text chunk, and one per reset of the task's stream — ending in
 * `data: [DONE]`.
 *
 * A task that does not end `done` is an error object naming its terminal. It is answered 500 with
 * `x-should-retry: false`, which OpenAI's SDKs obey: repeating the request would submit the input
 * again (unless it carries an `Idempotency-Key`, which task-routes.ts honours here too). A refusal
 * for backpressure is 429 with `Retry-After: 1`, which they retry, as they should; an input too large
 * for the context window is 413, which they do not. The input is
 * exempt from the kernel's duplicate check, like every HTTP input.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from './http-io.ts';
import { checkChat } from './http-schemas.ts';
import { SseStream } from './sse.ts';
import { terminalBody, type TerminalBody } from './task-board.ts';
import {
  HTTP_SOURCE,
  idempotencyKey,
  PAUSE_RETRY_AFTER_S,
  readChecked,
  refused,
  refusedAtDoor,
  statusOf,
  submitHttp,
  TASK_HEADER,
  type TaskPorts,
} from './task-routes.ts';

/** The model name answered when the request names none. */
export const CHAT_MODEL_DEFAULT = 'homeagent';
/**
 * docs/spec.md §13.1a: a chunk stream has no way to take text back, so a reset is written into it:
 * a blank line before a new model turn, and a visible note when an answer starts over after a
 * preemption or a cancel. The non-streaming answer is the reply alone.
 */
export const NEW_TURN_TEXT = '\n\n';
export const STARTING_OVER_TEXT = '\n\n[interrupted — starting over]\n\n';

export async function postChatCompletion(req: IncomingMessage, res: ServerResponse, ports: TaskPorts): Promise<void> {
  const checked = await readChecked(req, res, ports, checkChat);
  if (checked === null || refused(res, ports)) return;
  const key = idempotencyKey(req, res);
  if (key === false) return;
  const known = key === null ? null : ports.board.taskOfKey(key);
  const id = known ?? ports.nextId(HTTP_SOURCE);
  const head = { [TASK_HEADER]: id };
  if (known === null) {
    const sub = { id, cls: 'queued', text: checked.text, source: HTTP_SOURCE, channel: HTTP_SOURCE } as const;
    const result = submitHttp(ports, key, sub);
    if (result.kind === 'ended' && refusedAtDoor(result.terminal)) {
      const body = terminalBody(id, result.terminal);
      const retry = body.reason === 'queue_full' ? { 'retry-after': '1' } : {};
      sendError(res, statusOf(body), failureMessage(body), body.reason === 'too_large' ? 'messages' : null, {
        ...head,
        ...retry,
      });
      return;
    }
  }
  // Acknowledged only once its input is durable (docs/spec.md §13.2), as the task routes do.
  await ports.durable();
  const meta: ChunkMeta = {
    id: `chatcmpl-${id}`,
    created: Math.floor(Date.now() / 1000),
    model: checked.body.model ?? CHAT_MODEL_DEFAULT,
  };
  if (checked.body.stream === true) streamCompletion(res, ports, id, meta, head);
  else answerCompletion(res, ports, id, meta, head);
}

interface ChunkMeta {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

function answerCompletion(
  res: ServerResponse,
  ports: TaskPorts,
  task: string,
  meta: ChunkMeta,
  head: Record<string, string>,
): void {
  const stop = ports.board.listen(task, 0, (event) => {
    if (event.kind === 'shutdown') {
      sendError(res, 503, pausedMessage(event.task, event.state), null, {
        ...head,
        'retry-after': String(PAUSE_RETRY_AFTER_S),
      });
      return;
    }
    if (event.kind !== 'terminal') return;
    if (event.body.terminal !== 'done') {
      sendError(res, 500, failureMessage(event.body), null, { ...head, 'x-should-retry': 'false' });
      return;
    }
    sendJson(
      res,
      200,
      {
        id: meta.id,
        object: 'chat.completion',
        created: meta.created,
        model: meta.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: event.body.reply, refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
      },
      head,
    );
  });
  res.once('close', () => stop?.());
}

function streamCompletion(
  res: ServerResponse,
  ports: TaskPorts,
  task: string,
  meta: ChunkMeta,
  head: Record<string, string>,
): void {
  const sse = new SseStream(res, head);
  const chunk = (delta: Record<string, string>, finishReason: string | null): string =>
    JSON.stringify({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    });
  sse.event(chunk({ role: 'assistant', content: '' }, null));
  const stop = ports.board.listen(task, 0, (event) => {
    if (event.kind === 'delta') {
      sse.event(chunk({ content: event.text }, null));
      return;
    }
    if (event.kind === 'reset') {
      sse.event(chunk({ content: event.reason === 'new-turn' ? NEW_TURN_TEXT : STARTING_OVER_TEXT }, null));
      return;
    }
    if (event.kind === 'shutdown') {
      const error = {
        message: pausedMessage(event.task, event.state),
        type: 'server_error',
        param: null,
        code: 'shutdown',
      };
      sse.event(JSON.stringify({ error }));
    } else if (event.body.terminal === 'done') sse.event(chunk({}, 'stop'));
    else
      sse.event(
        JSON.stringify({
          error: { message: failureMessage(event.body), type: 'server_error', param: null, code: event.body.terminal },
        }),
      );
    sse.event('[DONE]');
    sse.end();
  });
  res.once('close', () => stop?.());
}

function failureMessage(body: TerminalBody): string {
  const why = body.reason === undefined ? '' : ` (${body.reason})`;
  return `task ${body.task} ended ${body.terminal}${why}${body.reply === '' ? '' : `: ${body.reply}`}`;
}

/** The answer of a request open when a durable server paused: the task goes on after the restart. */
function pausedMessage(task: string, state: string): string {
  return `the server is restarting; task ${task} (${state}) goes on after the restart: ask GET /v1/tasks/${task}`;
}
