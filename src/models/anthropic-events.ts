/**
 * Anthropic Messages stream events → kernel chunks.
 *
 * A message streams as content blocks, each opened, fed deltas and closed by index: `text` blocks
 * become text chunks, `tool_use` blocks become tool-call deltas (`input_json_delta` carries pieces
 * of the call's JSON arguments). Other blocks (thinking, server tools) are not part of the kernel's
 * conversation and are skipped. Tool calls get their own dense indexes 0, 1, … in the order their
 * blocks open, since the kernel keys calls by index and block indexes also count text blocks.
 *
 * Usage comes in two halves: input tokens in `message_start`, output tokens (cumulative) in
 * `message_delta`. A stream is complete only with `message_stop`.
 *
 * The SDK parses each event's JSON but checks nothing about its shape, so each event is checked
 * with zod, field by field as it is read; unknown event types are skipped (the API may add some).
 */
import { z } from 'zod';
import { ContextFullError, type FinishReason, type ModelChunk } from '../kernel/index.ts';
import type { ChunkTranslator } from './pump.ts';
import { malformedStream, parseWire } from './wire.ts';

const tokenCount = z.number().int().min(0);
const blockIndex = z.number().int().min(0);

const eventType = z.object({ type: z.string() });

const messageStart = z.object({
  message: z.object({
    usage: z.object({
      input_tokens: tokenCount,
      output_tokens: tokenCount.nullish(),
      cache_creation_input_tokens: tokenCount.nullish(),
      cache_read_input_tokens: tokenCount.nullish(),
    }),
  }),
});

const blockStart = z.object({
  index: blockIndex,
  content_block: z.object({
    type: z.string(),
    text: z.string().nullish(),
    id: z.string().nullish(),
    name: z.string().nullish(),
    input: z.unknown().optional(),
  }),
});

const blockDelta = z.object({
  index: blockIndex,
  delta: z.object({ type: z.string(), text: z.string().nullish(), partial_json: z.string().nullish() }),
});

const blockStop = z.object({ index: blockIndex });

const messageDelta = z.object({
  delta: z.object({ stop_reason: z.string().nullish() }),
  usage: z.object({ output_tokens: tokenCount, input_tokens: tokenCount.nullish() }).nullish(),
});

type Block =
  | { readonly kind: 'text' }
  | { readonly kind: 'tool'; readonly toolIndex: number; readonly input: unknown; argsSent: boolean }
  | { readonly kind: 'skipped' };

export class MessagesEventTranslator implements ChunkTranslator {
  private inputTokens = 0;
  private outputTokens = 0;
  private finishReason: FinishReason | null = null;
  private stopped = false;
  private readonly blocks = new Map<number, Block>();
  private nextToolIndex = 0;

  constructor(private readonly provider: string) {}

  push(event: unknown, out: ModelChunk[]): void {
    const { type } = parseWire(eventType, event, this.provider);
    switch (type) {
      case 'message_start': {
        const usage = parseWire(messageStart, event, this.provider).message.usage;
        // The API's total input is the sum of the three counts (cache writes and reads are apart).
        this.inputTokens =
          usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        this.outputTokens = usage.output_tokens ?? 0;
        break;
      }
      case 'content_block_start':
        this.blockStart(parseWire(blockStart, event, this.provider), out);
        break;
      case 'content_block_delta':
        this.blockDelta(parseWire(blockDelta, event, this.provider), out);
        break;
      case 'content_block_stop':
        this.blockStop(parseWire(blockStop, event, this.provider).index, out);
        break;
      case 'message_delta':
        this.messageDelta(parseWire(messageDelta, event, this.provider));
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  finish(): ModelChunk {
    if (!this.stopped) throw malformedStream(this.provider, 'the stream ended before message_stop');
    return {
      type: 'done',
      finishReason: this.finishReason ?? 'stop',
      usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens },
    };
  }

  private blockStart(event: z.infer<typeof blockStart>, out: ModelChunk[]): void {
    if (this.blocks.has(event.index))
      throw malformedStream(this.provider, `content block ${event.index} started twice`);
    const block = event.content_block;
    if (block.type === 'text') {
      this.blocks.set(event.index, { kind: 'text' });
      if (typeof block.text === 'string' && block.text !== '') out.push({ type: 'text', text: block.text });
      return;
    }
    if (block.type !== 'tool_use') {
      this.blocks.set(event.index, { kind: 'skipped' });
      return;
    }
    if (typeof block.id !== 'string' || typeof block.name !== 'string' || block.name === '') {
      throw malformedStream(this.provider, `tool_use block ${event.index} without an id and a name`);
    }
    const toolIndex = this.nextToolIndex++;
    this.blocks.set(event.index, { kind: 'tool', toolIndex, input: block.input, argsSent: false });
    out.push({ type: 'tool_call', index: toolIndex, id: block.id, name: block.name });
  }

  private blockDelta(event: z.infer<typeof blockDelta>, out: ModelChunk[]): void {
    const block = this.blocks.get(event.index);
    if (block === undefined)
      throw malformedStream(this.provider, `delta for content block ${event.index}, which never started`);
    const delta = event.delta;
    if (block.kind === 'text' && delta.type === 'text_delta') {
      if (typeof delta.text !== 'string')
        throw malformedStream(this.provider, `text_delta of block ${event.index} without text`);
      if (delta.text !== '') out.push({ type: 'text', text: delta.text });
    } else if (block.kind === 'tool' && delta.type === 'input_json_delta') {
      if (typeof delta.partial_json !== 'string') {
        throw malformedStream(this.provider, `input_json_delta of block ${event.index} without partial_json`);
      }
      if (delta.partial_json === '') return;
      block.argsSent = true;
      out.push({ type: 'tool_call', index: block.toolIndex, argsDelta: delta.partial_json });
    }
    // Citations, thinking and signatures, and deltas of skipped blocks, are not the kernel's.
  }

  private blockStop(index: number, out: ModelChunk[]): void {
    const block = this.blocks.get(index);
    if (block === undefined) throw malformedStream(this.provider, `content block ${index} stopped, but never started`);
    // A call without arguments streams no input_json_delta; its (empty) input came with the start.
    if (block.kind === 'tool' && !block.argsSent) {
      block.argsSent = true;
      out.push({ type: 'tool_call', index: block.toolIndex, argsDelta: JSON.stringify(block.input ?? {}) });
    }
  }

  private messageDelta(event: z.infer<typeof messageDelta>): void {
    if (event.usage !== null && event.usage !== undefined) {
      this.outputTokens = event.usage.output_tokens;
      // Anthropic counts input in message_start; some compatible servers only here. The larger wins.
      if (typeof event.usage.input_tokens === 'number')
        this.inputTokens = Math.max(this.inputTokens, event.usage.input_tokens);
    }
    const reason = event.delta.stop_reason;
    if (reason === null || reason === undefined) return;
    if (reason === 'model_context_window_exceeded') {
      // The documented stop reason for a full window: the kernel prunes and asks again (docs/spec.md §3.9).
      throw new ContextFullError(`provider "${this.provider}": stop_reason model_context_window_exceeded`);
    }
    this.finishReason = finishReasonOf(reason);
  }
}

function finishReasonOf(reason: string): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'error';
    default:
      // end_turn, stop_sequence, pause_turn, and reasons added later.
      return 'stop';
  }
}
