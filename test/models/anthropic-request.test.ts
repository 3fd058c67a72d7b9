/**
 * Kernel request to Anthropic Messages request body, field by field: `system` from the system messages,
 * the output cap, the turns (tool results in a user turn, same-role turns merged, empty texts left out),
 * tool calls as tool_use blocks with an object input, and tool specs with an object input schema.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/kernel/index.ts';
import { messagesRequest } from '../../src/models/anthropic-request.ts';
import { modelRequest, WEATHER_TOOL } from './request.ts';

const target = { model: 'claude-test', maxTokens: null };

describe('messagesRequest', () => {
  it('joins several system messages with a blank line; without any, and without tools, leaves both out', () => {
    const joined = messagesRequest(
      modelRequest([
        { role: 'system', content: 'One.' },
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'Two.' },
      ]),
      target,
    );
    expect(joined.system).toBe('One.\n\nTwo.');
    const bare = messagesRequest(modelRequest([{ role: 'user', content: 'hi' }]), target);
    expect(bare).toEqual({
      model: 'claude-test',
      max_tokens: 256,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect('system' in bare).toBe(false);
    expect('tools' in bare).toBe(false);
  });

  it("asks for the lower of the provider's and the kernel's output caps", () => {
    const request = modelRequest(); // maxTokens 256
    expect(messagesRequest(request, { model: 'm', maxTokens: 100 }).max_tokens).toBe(100);
    expect(messagesRequest(request, { model: 'm', maxTokens: 256 }).max_tokens).toBe(256);
    expect(messagesRequest(request, { model: 'm', maxTokens: 1000 }).max_tokens).toBe(256);
  });

  it('leaves out empty texts and the turns they empty, merging the turns of one role around them', () => {
    const messages: Message[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: '' },
      { role: 'user', content: '' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'reply', toolCalls: [{ id: 'c', name: 'f', args: '{"a":[1]}' }] },
      { role: 'assistant', content: 'more' },
    ];
    expect(messagesRequest(modelRequest(messages), target).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'reply' },
          { type: 'tool_use', id: 'c', name: 'f', input: { a: [1] } },
          { type: 'text', text: 'more' },
        ],
      },
    ]);
  });

  it('sends the arguments of a call that are not a JSON object as {}', () => {
    const args = ['', 'not json', '[1,2]', 'null', '5', '"text"', '{"ok":true}'];
    const messages: Message[] = [
      { role: 'assistant', content: '', toolCalls: args.map((a, i) => ({ id: `c${i}`, name: 'f', args: a })) },
    ];
    const [turn] = messagesRequest(modelRequest(messages), target).messages;
    expect((turn?.content as Array<{ input: unknown }>).map((b) => b.input)).toEqual([
      {},
      {},
      {},
      {},
      {},
      {},
      { ok: true },
    ]);
  });

  it('makes every input schema an object schema', () => {
    const tool = { ...WEATHER_TOOL, parameters: { type: 'string', properties: {} } };
    expect(messagesRequest(modelRequest(undefined, [tool]), target).tools).toEqual([
      { name: 'weather', description: 'The weather of a city', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('refuses a tool message without the call it answers', () => {
    expect(() => messagesRequest(modelRequest([{ role: 'tool', content: 'x' }]), target)).toThrow(
      new Error('a tool message without toolCallId cannot be sent'),
    );
  });
});
