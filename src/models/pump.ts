/**
 * One HTTP request of a model call, turned into kernel chunks: the loop both adapters share.
 *
 * The SDKs end their stream quietly when the signal aborts, and may still hand out events they had
 * already decoded from the socket. So the pump checks the signal before every chunk it yields and,
 * once aborted, throws the signal's own abort error: no chunk after the abort reaches the caller,
 * and the Runtime sees a rejection it classifies by `signal.aborted`. Leaving the SDK's iterator
 * early (an abort, a malformed event, the caller returning) runs its `finally`, which aborts the
 * fetch, so the HTTP stream is closed at once in every case.
 */
import { abortError } from '../clock/index.ts';
import type { ModelChunk } from '../kernel/index.ts';

export interface ChunkTranslator {
  /**
   * Appends the kernel chunks of one wire event to `out` (often none). Throws an UpstreamError of
   * kind `malformed` for an event that does not fit the wire format, or a ContextFullError.
   */
  push(event: unknown, out: ModelChunk[]): void;
  /** The one `done` chunk, once the wire stream has ended; throws when it ended before its end marker. */
  finish(): ModelChunk;
}

export interface PumpParts {
  /** Sends the request; resolves with the event stream once the response headers arrived. */
  readonly open: () => Promise<AsyncIterable<unknown>>;
  readonly translator: ChunkTranslator;
  /** Maps any error of the SDK or the translator to an UpstreamError or a ContextFullError. */
  readonly classify: (err: unknown) => Error;
}

export async function* pump(parts: PumpParts, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
  if (signal.aborted) throw abortError(signal);
  let events: AsyncIterable<unknown>;
  try {
    events = await parts.open();
  } catch (err) {
    throw signal.aborted ? abortError(signal) : parts.classify(err);
  }
  // One buffer for the whole call: most events give zero or one chunk.
  const out: ModelChunk[] = [];
  try {
    for await (const event of events) {
      if (signal.aborted) break;
      parts.translator.push(event, out);
      for (const chunk of out) {
        if (signal.aborted) break;
        yield chunk;
      }
      out.length = 0;
      if (signal.aborted) break;
    }
  } catch (err) {
    throw signal.aborted ? abortError(signal) : parts.classify(err);
  }
  if (signal.aborted) throw abortError(signal);
  let done: ModelChunk;
  try {
    done = parts.translator.finish();
  } catch (err) {
    throw parts.classify(err);
  }
  yield done;
}
