/** Chat Completions stream events as an OpenAI-compatible server writes them, for the tests and the bench. */
import { sseEvent } from './loopback.ts';

export function chatEvent(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return sseEvent({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

export function chatText(text: string): string {
  return chatEvent({ content: text });
}

export function chatUsage(prompt: number, completion: number): string {
  return sseEvent({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  });
}

/** The end of an answer: finish reason, usage, [DONE]. */
export function chatEnd(finishReason = 'stop', prompt = 7, completion = 3): string {
  return chatEvent({}, finishReason) + chatUsage(prompt, completion) + sseEvent('[DONE]');
}
