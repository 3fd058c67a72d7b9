/**
 * A Provider for the in-process server tests, scripted by the last user message:
 *  - "slow …"      six text chunks, SLOW_CHUNK_MS apart (to watch a stream, drop it, resume it);
 *  - "hold …"      one chunk, then nothing until `release()` or the abort (to fill the queue);
 *  - "remember …"  a memory_write tool call, then a memory_recall, then text (graph memory calls);
 *  - "recall …"    a memory_recall of "alice", then text;
 *  - "shout …"     a call of the command-line tool `shout` with {"word":"hey"}, then its result as text;
 *  - "chatty …"    the same, but the first turn says "let me check " before its tool call;
 *  - "fail …"      a model call that fails before its first chunk;
 *  - anything else two quick chunks echoing the message.
 * It honours the abort signal like a real provider.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';

export const SLOW_CHUNK_MS = 60;
export const SLOW_CHUNKS = ['one ', 'two ', 'three ', 'four ', 'five ', 'six'];

const USAGE = { inputTokens: 3, outputTokens: 2 };

export class ScriptedProvider implements Provider {
  private holds: (() => void)[] = [];
  /** The input each task was scripted by: later calls of a task (after tools) see the kernel's own prompt. */
  private readonly scripts: Map<string, string>;
  calls = 0;
  /** Every request, in order: what the model was shown (tool results included). */
  readonly requests: ModelRequest[] = [];

  /** `scripts`: tasks already under way (a recovered server's), by the input that scripts them. */
  constructor(scripts: Readonly<Record<string, string>> = {}) {
    this.scripts = new Map(Object.entries(scripts));
  }

  /** Lets every held stream go on. */
  release(): void {
    for (const go of this.holds.splice(0)) go();
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    this.calls += 1;
    this.requests.push(request);
    const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const said = this.scripts.get(request.task) ?? last;
    this.scripts.set(request.task, said);
    if (said.startsWith('slow')) {
      for (const text of SLOW_CHUNKS) {
        await sleep(SLOW_CHUNK_MS, undefined, { signal });
        yield { type: 'text', text };
      }
    } else if (said.startsWith('hold')) {
      yield { type: 'text', text: 'holding ' };
      await new Promise<void>((resolve, reject) => {
        this.holds.push(resolve);
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
      yield { type: 'text', text: 'released' };
    } else if (said.startsWith('shout') || said.startsWith('chatty')) {
      if (request.replyIndex === 0) {
        if (said.startsWith('chatty')) yield { type: 'text', text: 'let me check ' };
        yield { type: 'tool_call', index: 0, id: 's1', name: 'shout', argsDelta: '{"word":"hey"}' };
        yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
        return;
      }
      yield { type: 'text', text: `tool said ${request.messages.at(-2)?.content ?? ''}` };
    } else if (said.startsWith('fail')) {
      throw new Error('the model is down');
    } else if (said.startsWith('remember')) {
      yield* remember(request.replyIndex);
      return;
    } else if (said.startsWith('recall') && request.replyIndex === 0) {
      yield { type: 'tool_call', index: 0, id: 'r1', name: 'memory_recall', argsDelta: '{"keywords":["alice"]}' };
      yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
      return;
    } else {
      yield { type: 'text', text: 'echo: ' };
      yield { type: 'text', text: said };
    }
    yield { type: 'done', finishReason: 'stop', usage: USAGE };
  }
}

function* remember(replyIndex: number): Generator<ModelChunk, void, undefined> {
  if (replyIndex === 0) {
    const args = JSON.stringify({ triples: [{ subject: 'alice', relation: 'likes', object: 'tea' }] });
    yield { type: 'tool_call', index: 0, id: 'w1', name: 'memory_write', argsDelta: args.slice(0, 10) };
    yield { type: 'tool_call', index: 0, argsDelta: args.slice(10) };
    yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
  } else if (replyIndex === 1) {
    yield { type: 'tool_call', index: 0, id: 'r1', name: 'memory_recall', argsDelta: '{"keywords":["alice"]}' };
    yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
  } else {
    yield { type: 'text', text: 'remembered' };
    yield { type: 'done', finishReason: 'stop', usage: USAGE };
  }
}

/** A command-line tool that upper-cases the `word` of its JSON arguments (read from stdin). */
export const SHOUT_TOOL = {
  name: 'shout',
  description: 'Upper-cases a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } } },
  command: [
    process.execPath,
    '-e',
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(JSON.parse(s).word.toUpperCase()))",
  ],
};
