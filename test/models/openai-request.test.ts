/**
 * Kernel request to OpenAI Chat Completions request body, field by field: every role one to one, an
 * assistant's tool calls with their raw arguments (content null beside them when empty), a tool result's
 * call id, usage asked for, the output cap, and tools only when there are some.
 */
import { describe, expect, it } from 'vitest';
import { chatRequest } from '../../src/models/openai-request.ts';
import { modelRequest } from './request.ts';

const target = { model: 'gpt-test', maxTokens: null };

describe('chatRequest', () => {
  it('an assistant message without calls keeps its text, even empty; beside calls a text is kept', () => {
    const body = chatRequest(
      modelRequest([
        { role: 'assistant', content: '' },
        { role: 'assistant', content: 'plain', toolCalls: [] },
        { role: 'assistant', content: 'let me look', toolCalls: [{ id: 'c', name: 'f', args: 'not json' }] },
      ]),
      target,
    );
    expect(body.messages).toEqual([
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'plain' },
      {
        role: 'assistant',
        content: 'let me look',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }],
      },
    ]);
  });

  it('sends no tools key without tools, and the lower of the two output caps', () => {
    const body = chatRequest(modelRequest(), { model: 'm', maxTokens: 64 });
    expect('tools' in body).toBe(false);
    expect(body.max_tokens).toBe(64);
    expect(chatRequest(modelRequest(), { model: 'm', maxTokens: 4096 }).max_tokens).toBe(256);
    expect(chatRequest(modelRequest(), { model: 'm', maxTokens: 256 }).max_tokens).toBe(256);
  });

  it('refuses a tool message without the call it answers', () => {
    expect(() => chatRequest(modelRequest([{ role: 'tool', content: 'x' }]), target)).toThrow(
      new Error('a tool message without toolCallId cannot be sent'),
    );
  });
});
