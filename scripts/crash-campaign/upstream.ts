/**
 * The crash campaign's model provider: an OpenAI-compatible server on 127.0.0.1 (test/models/loopback.ts)
 * that streams every answer in small chunks with small random pauses, so that kills land in the middle
 * of answers, and that calls the configured command tool in some of them, so that kills land in the
 * middle of tool calls too.
 *
 * Every request is an attempt with a number of its own, and every chunk of text it streams carries that
 * number (`a17:word `). A client that records a task's SSE stream can then tell, after an `event: reset`,
 * whether a delta belongs to an attempt the reset withdrew (docs/spec.md §13.1a: it never should).
 */
import { Rng } from '../../src/sim/rng.ts';
import { pause, startEventStream, startLoopback, type Exchange, type Loopback } from '../../test/models/loopback.ts';
import { chatEnd, chatEvent, chatText } from '../../test/models/openai-wire.ts';

/** The command tool the campaign configures; the upstream calls it by this name. */
export const PROBE_TOOL = 'probe';

/** The chance that an answer to a turn that may call tools calls the probe. */
const TOOL_CALL_CHANCE = 0.35;
const WORDS = ['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'gale', 'heron', 'iris', 'juniper'];

/** The attempt numbers a delta's text carries (`a17:` → 17). */
export function attemptsOf(text: string): number[] {
  return [...text.matchAll(/\ba(\d+):/g)].map((m) => Number(m[1]));
}

export interface Upstream {
  readonly baseURL: string;
  /** Requests answered so far (each an attempt). */
  readonly attempts: () => number;
  /** Attempts whose client went away before the answer ended (a kill, a cancel). */
  readonly abandoned: () => number;
  /** Attempts answered with a tool call. */
  readonly toolCalls: () => number;
  close(): Promise<void>;
}

export async function startUpstream(seed: number): Promise<Upstream> {
  let abandoned = 0;
  let toolCalls = 0;
  const answer = async (exchange: Exchange): Promise<void> => {
    const attempt = exchange.index + 1;
    const rng = Rng.derive(seed, 'upstream', attempt);
    let gone = false;
    void exchange.closed.then(() => {
      if (!exchange.res.writableFinished) {
        gone = true;
        abandoned += 1;
      }
    });
    const write = async (text: string, delayMs: number): Promise<boolean> => {
      await pause(delayMs);
      if (gone) return false;
      exchange.res.write(text);
      return true;
    };
    startEventStream(exchange.res);
    exchange.res.write(chatEvent({ role: 'assistant', content: '' }));
    if (callsProbe(exchange.body) && rng.chance(TOOL_CALL_CHANCE)) {
      toolCalls += 1;
      if (rng.chance(0.5) && !(await write(chatText(`a${attempt}:checking `), rng.int(5, 40)))) return;
      const call = chatEvent({
        tool_calls: [
          {
            index: 0,
            id: `call_${attempt}`,
            type: 'function',
            function: { name: PROBE_TOOL, arguments: JSON.stringify({ attempt }) },
          },
        ],
      });
      if (!(await write(call, rng.int(5, 40)))) return;
      exchange.res.end(chatEnd('tool_calls'));
      return;
    }
    const chunks = rng.int(2, 6);
    for (let i = 0; i < chunks; i += 1) {
      const word = WORDS[rng.int(0, WORDS.length - 1)] ?? 'word';
      if (!(await write(chatText(`a${attempt}:${word} `), rng.int(5, 50)))) return;
    }
    if (!gone) exchange.res.end(chatEnd());
  };
  const loopback: Loopback = await startLoopback([answer]);
  return {
    baseURL: loopback.baseURL,
    attempts: () => loopback.requests.length,
    abandoned: () => abandoned,
    toolCalls: () => toolCalls,
    close: () => loopback.close(),
  };
}

/**
 * Whether this request may call the probe: the tool is offered, and the conversation does not end with
 * a tool result (the turn after a tool call answers in text, so every task ends).
 */
function callsProbe(body: unknown): boolean {
  const request = body as {
    tools?: { function?: { name?: string } }[];
    messages?: { role?: string }[];
  } | null;
  const offered = request?.tools?.some((t) => t.function?.name === PROBE_TOOL) ?? false;
  return offered && request?.messages?.at(-1)?.role !== 'tool';
}
