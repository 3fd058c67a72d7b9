/** Anthropic Messages stream events as the API writes them (named SSE events), for the tests and the bench. */
import { sseEvent } from './loopback.ts';

function named(data: { type: string } & Record<string, unknown>): string {
  return sseEvent(data, data.type);
}

export function messageStart(inputTokens = 12): string {
  return named({
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'test-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
}

export function textBlock(index: number, ...pieces: string[]): string {
  return (
    named({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }) +
    pieces.map((text) => named({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })).join('') +
    named({ type: 'content_block_stop', index })
  );
}

export function toolStart(index: number, id: string, name: string): string {
  return named({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } });
}

export function jsonDelta(index: number, partialJson: string): string {
  return named({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partialJson } });
}

export function blockStop(index: number): string {
  return named({ type: 'content_block_stop', index });
}

export function textDelta(index: number, text: string): string {
  return named({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
}

export function messageEnd(stopReason = 'end_turn', outputTokens = 5): string {
  return (
    named({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }) + named({ type: 'message_stop' })
  );
}

export function ping(): string {
  return named({ type: 'ping' });
}
