/**
 * The scripted demo model (docs/spec.md §13): what `serve --model demo` talks to when no provider is
 * configured, so the server, its channels and its journal can be tried without a key or a network.
 * It is no language model and says so: every reply starts with DEMO_REPLY_PREFIX, and `serve`
 * prints DEMO_MODEL_LABEL in its start line.
 *
 * Deterministic: the reply is a function of the request's last input alone — the last user message, or
 * an interrupt's own message when the last input is one (the kernel gives an interrupt's text as a
 * system message with the interrupt mark, docs/spec.md §3.4) — split into a few
 * chunks at fixed places, with usage counted the same way every time. It honours the abort signal
 * before every chunk (and during the optional pause between chunks), like a real provider.
 */
import { abortError } from '../clock/index.ts';
import { INTERRUPT_MARK, type Message, type ModelChunk, type ModelRequest, type Provider } from '../kernel/index.ts';
import type { Sleep } from './provider.ts';

export const DEMO_MODEL_LABEL = 'demo model (scripted replies, not a language model)';
export const DEMO_REPLY_PREFIX = '[demo model]';

/** The echoed input is cut here, so a large input gives a reply of bounded size. */
export const DEMO_ECHO_CHARS_MAX = 200;
const DEMO_CHUNKS = 4;

export interface DemoOptions {
  /** A pause before each chunk, to make streaming visible; 0 (the default) streams without pausing. */
  readonly chunkDelayMs?: number;
  /** Required with a chunk delay: the clock that waits it (SystemClock's sleep in `serve`). */
  readonly sleep?: Sleep;
}

export class DemoProvider implements Provider {
  private readonly chunkDelayMs: number;
  private readonly sleep: Sleep | null;

  constructor(options: DemoOptions = {}) {
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
    this.sleep = options.sleep ?? null;
    if (this.chunkDelayMs > 0 && this.sleep === null)
      throw new RangeError('DemoProvider: a chunkDelayMs needs a sleep');
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    const reply = demoReply(request.messages);
    for (const piece of splitReply(reply, DEMO_CHUNKS)) {
      if (signal.aborted) throw abortError(signal);
      if (this.sleep !== null && this.chunkDelayMs > 0) await this.sleep(this.chunkDelayMs, signal);
      if (signal.aborted) throw abortError(signal);
      yield { type: 'text', text: piece };
    }
    if (signal.aborted) throw abortError(signal);
    yield {
      type: 'done',
      finishReason: 'stop',
      usage: {
        inputTokens: request.messages.reduce((n, m) => n + roughTokens(m.content), 0),
        outputTokens: roughTokens(reply),
      },
    };
  }
}

export function demoReply(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user' || isInterrupt(m));
  const interrupt = last !== undefined && isInterrupt(last);
  const said = last === undefined ? '' : (interrupt ? last.content.slice(INTERRUPT_MARK.length) : last.content).trim();
  const echo = said.length > DEMO_ECHO_CHARS_MAX ? `${said.slice(0, DEMO_ECHO_CHARS_MAX)}…` : said;
  const heard =
    echo === '' ? 'I received no text.' : interrupt ? `You interrupted me to say: "${echo}".` : `You said: "${echo}".`;
  return `${DEMO_REPLY_PREFIX} ${heard} This is a scripted reply, not a language model; configure a provider to talk to a real one.`;
}

function isInterrupt(m: Message): boolean {
  return m.role === 'system' && m.content.startsWith(INTERRUPT_MARK);
}

/** Splits at word boundaries into at most `count` pieces of about equal length. */
function splitReply(text: string, count: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 1; i < count; i++) {
    const target = Math.round((text.length * i) / count);
    const space = text.indexOf(' ', Math.max(target, start + 1));
    if (space < 0) break;
    pieces.push(text.slice(start, space + 1));
    start = space + 1;
  }
  pieces.push(text.slice(start));
  return pieces.filter((p) => p !== '');
}

/** About four characters a token: only the size matters, the kernel sums usage for reports. */
function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
