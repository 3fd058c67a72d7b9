/**
 * `scriptedProvider`: a fake model for unit tests of one's own tools and ports, run through the real
 * Kernel and Runtime. It answers model calls from a script — text, tool calls, or an error — and
 * records every request, so a test can assert what the model was sent (the tool results among it).
 *
 * Theory of operation. A script is a list (the n-th call started gets the n-th reply; a call the
 * kernel cancels uses its reply up), a record by task id (a task's n-th completed call gets its n-th
 * reply, so the request the kernel re-sends after a preemption gets the same answer, as in the
 * simulator), or a function of the request. The abort signal is checked before every chunk and during
 * every pause, like a real provider. A script that has no reply for a call fails that call, which
 * fails its task with the reason in the reply.
 */
import { abortError, SystemClock, type Clock } from '../clock/index.ts';
import type { ModelChunk, ModelRequest, Provider, Usage } from '../kernel/index.ts';

/** A tool call a scripted reply asks for. */
export interface ScriptedToolCall {
  readonly name: string;
  /** The arguments, sent as their JSON text; default `{}`. */
  readonly args?: unknown;
  /** The call id the model gives it; default `call-<n>-<i>` (the n-th model call, its i-th tool call). */
  readonly id?: string;
}

/**
 * One answer: a text, or an object with a text and tool calls, or an error the call fails with (an
 * Error as it is, e.g. a ContextFullError; a string as an Error with that message).
 */
export type ScriptedReply =
  | string
  | { readonly text?: string; readonly toolCalls?: readonly ScriptedToolCall[] }
  | { readonly error: string | Error };

export interface ScriptedProviderOptions {
  /** A pause before each chunk, to give a test time to preempt or stop a stream; default 0. */
  readonly chunkDelayMs?: number;
  /** The clock that waits the pause (a VirtualClock in a simulated test); default the system clock. */
  readonly clock?: Clock;
  /** The text is streamed in pieces of at most this many characters; default: one piece. */
  readonly textChunkChars?: number;
}

export interface ScriptedProvider extends Provider {
  /** Every request, in the order the calls started (a request re-sent after a cancel appears again). */
  readonly requests: readonly ModelRequest[];
}

/** A list (in call order), a record of lists by task id (by the task's completed calls), or a function. */
export type Script =
  | readonly ScriptedReply[]
  | Readonly<Record<string, readonly ScriptedReply[]>>
  | ((request: ModelRequest, callIndex: number) => ScriptedReply);

/**
 * A Provider that answers model calls from `script`: the n-th call with the n-th reply of a list; a
 * call of task `t` with `script[t][request.replyIndex]` of a record; or with `script(request, n)` (n
 * counts the calls from 0, cancelled ones included).
 */
export function scriptedProvider(script: Script, options: ScriptedProviderOptions = {}): ScriptedProvider {
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  if (!Number.isFinite(chunkDelayMs) || chunkDelayMs < 0)
    throw new RangeError(`scriptedProvider: chunkDelayMs must be a finite number >= 0, got ${String(chunkDelayMs)}`);
  const textChunkChars = options.textChunkChars ?? Number.POSITIVE_INFINITY;
  if (!(textChunkChars >= 1))
    throw new RangeError(`scriptedProvider: textChunkChars must be >= 1, got ${String(textChunkChars)}`);
  const clock = options.clock ?? (chunkDelayMs > 0 ? new SystemClock() : null);
  const requests: ModelRequest[] = [];

  return {
    requests,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
      const n = requests.length;
      requests.push(request);
      const reply = replyFor(script, request, n);
      for (const chunk of chunksOf(reply, request, n, textChunkChars)) {
        if (signal.aborted) throw abortError(signal);
        if (clock !== null && chunkDelayMs > 0) await clock.sleep(chunkDelayMs, signal);
        if (signal.aborted) throw abortError(signal);
        yield chunk;
      }
    },
  };
}

/** The reply of call `n`; the Error a call without one fails with. */
function replyFor(script: Script, request: ModelRequest, n: number): ScriptedReply {
  if (typeof script === 'function') return script(request, n);
  if (isList(script)) {
    return (
      script[n] ?? {
        error: `scriptedProvider: no reply for model call ${n + 1} (task ${request.task}); the script has ${script.length}`,
      }
    );
  }
  const replies = script[request.task];
  if (replies === undefined) {
    const tasks = Object.keys(script).join(', ');
    return { error: `scriptedProvider: no replies for task ${request.task} (the script has replies for: ${tasks})` };
  }
  return (
    replies[request.replyIndex] ?? {
      error: `scriptedProvider: no reply ${request.replyIndex + 1} for task ${request.task}; the script has ${replies.length}`,
    }
  );
}

function isList(script: Script): script is readonly ScriptedReply[] {
  return Array.isArray(script);
}

/** The chunks of one reply; an error reply throws its error when the stream starts. */
function* chunksOf(
  reply: ScriptedReply,
  request: ModelRequest,
  n: number,
  textChunkChars: number,
): Generator<ModelChunk> {
  if (typeof reply === 'object' && 'error' in reply) {
    throw reply.error instanceof Error ? reply.error : new Error(reply.error);
  }
  const text = typeof reply === 'string' ? reply : (reply.text ?? '');
  const calls = typeof reply === 'string' ? [] : (reply.toolCalls ?? []);
  for (let at = 0; at < text.length; at += textChunkChars) {
    yield { type: 'text', text: text.slice(at, at + textChunkChars) };
  }
  for (const [index, call] of calls.entries()) {
    yield {
      type: 'tool_call',
      index,
      id: call.id ?? `call-${n + 1}-${index + 1}`,
      name: call.name,
      argsDelta: JSON.stringify(call.args ?? {}),
    };
  }
  yield { type: 'done', finishReason: calls.length > 0 ? 'tool_calls' : 'stop', usage: usageOf(request, text) };
}

/** About four characters a token, as the demo model counts: only the size matters to the kernel. */
function usageOf(request: ModelRequest, text: string): Usage {
  const tokens = (s: string): number => Math.ceil(s.length / 4);
  return { inputTokens: request.messages.reduce((sum, m) => sum + tokens(m.content), 0), outputTokens: tokens(text) };
}
