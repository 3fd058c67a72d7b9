/**
 * OpenAI Chat Completions stream events → kernel chunks.
 *
 * The SDK parses each SSE event's JSON but checks nothing about its shape, so every event is checked
 * here with zod (a provider's JSON is untrusted input): a field of the wrong type is a malformed
 * stream with the path named, never a TypeError deep in the kernel. Only the fields read are
 * checked; servers add fields of their own (Ollama, vLLM, llama.cpp server), and those pass.
 *
 * Tool calls arrive as deltas keyed by `index`. The kernel port wants `id` and `name` once, on the
 * first delta of an index; some servers repeat them on every delta, so they are passed on only the
 * first time each one appears.
 */
import { z } from 'zod';
import type { FinishReason, ModelChunk, Usage } from '../kernel/index.ts';
import type { ChunkTranslator } from './pump.ts';
import { malformedStream, parseWire } from './wire.ts';

const tokenCount = z.number().int().min(0);

const toolCallDelta = z.object({
  index: z.number().int().min(0),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const chatChunk = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int().min(0),
        delta: z.object({ content: z.string().nullish(), tool_calls: z.array(toolCallDelta).nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z.object({ prompt_tokens: tokenCount, completion_tokens: tokenCount }).nullish(),
});

type ToolCallDelta = z.infer<typeof toolCallDelta>;

/** Which of a call's `id` and `name` have been passed on already. */
interface CallSeen {
  id: boolean;
  name: boolean;
}

export class ChatChunkTranslator implements ChunkTranslator {
  private finishReason: FinishReason | null = null;
  private usage: Usage | null = null;
  private readonly calls = new Map<number, CallSeen>();

  constructor(private readonly provider: string) {}

  push(event: unknown, out: ModelChunk[]): void {
    const chunk = parseWire(chatChunk, event, this.provider);
    if (chunk.usage !== null && chunk.usage !== undefined) {
      this.usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    for (const choice of chunk.choices ?? []) {
      // One completion per request (`n` is never set): other choices would only be duplicates.
      if (choice.index !== 0) continue;
      const delta = choice.delta;
      if (delta?.content !== undefined && delta.content !== null && delta.content !== '') {
        out.push({ type: 'text', text: delta.content });
      }
      for (const call of delta?.tool_calls ?? []) this.pushCall(call, out);
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        this.finishReason = finishReasonOf(choice.finish_reason);
      }
    }
  }

  finish(): ModelChunk {
    if (this.finishReason === null) throw malformedStream(this.provider, 'the stream ended before a finish_reason');
    // A server that ignores `include_usage` sends no counts; the kernel only sums them for reports.
    return { type: 'done', finishReason: this.finishReason, usage: this.usage ?? { inputTokens: 0, outputTokens: 0 } };
  }

  private pushCall(call: ToolCallDelta, out: ModelChunk[]): void {
    let seen = this.calls.get(call.index);
    if (seen === undefined) {
      seen = { id: false, name: false };
      this.calls.set(call.index, seen);
    }
    const id = !seen.id && typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
    const name = call.function?.name;
    const newName = !seen.name && typeof name === 'string' && name !== '' ? name : undefined;
    const args = call.function?.arguments;
    const argsDelta = typeof args === 'string' && args !== '' ? args : undefined;
    if (id === undefined && newName === undefined && argsDelta === undefined) return;
    if (id !== undefined) seen.id = true;
    if (newName !== undefined) seen.name = true;
    out.push({
      type: 'tool_call',
      index: call.index,
      ...(id === undefined ? {} : { id }),
      ...(newName === undefined ? {} : { name: newName }),
      ...(argsDelta === undefined ? {} : { argsDelta }),
    });
  }
}

function finishReasonOf(reason: string): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'error';
    default:
      // 'stop', and the end-of-generation names some local servers use ('eos').
      return 'stop';
  }
}
