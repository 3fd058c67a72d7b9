/**
 * The HTTP channel's request bodies (src/server/http-schemas.ts), checked directly: the input and
 * interrupt bodies are strict (an unknown field, a wrong type, an empty source or channel, an unknown
 * level is a problem naming its field), an interrupt needs text unless it is a stop, and a chat
 * completions body is checked for its messages only, its text being the last user message's content
 * (a string, or the text parts joined).
 */
import { describe, expect, it } from 'vitest';
import { checkChat, checkInput, checkInterrupt } from '../../src/server/http-schemas.ts';

const problem = (path: string, message: string): unknown => ({ ok: false, problem: { path, message } });

describe('checkInput', () => {
  it('accepts text alone, and text with a source and a channel', () => {
    expect(checkInput({ text: '' })).toEqual({ ok: true, value: { text: '' } });
    expect(checkInput({ text: 'hi', source: 's', channel: 'c' })).toEqual({
      ok: true,
      value: { text: 'hi', source: 's', channel: 'c' },
    });
  });

  it('names the field at fault: missing or wrong text, empty source or channel, an unknown field', () => {
    expect(checkInput({})).toEqual(problem('text', 'required: a string'));
    expect(checkInput({ text: 5 })).toEqual(problem('text', 'must be a string, got 5'));
    expect(checkInput({ text: 'hi', source: '' })).toEqual(problem('source', 'must be ≥ 1, got ""'));
    expect(checkInput({ text: 'hi', channel: '' })).toEqual(problem('channel', 'must be ≥ 1, got ""'));
    expect(checkInput({ text: 'a', extra: 1 })).toEqual(
      problem('extra', 'unknown field; the allowed fields here are: text, source, channel'),
    );
  });

  it('refuses a body that is not an object, and gives only the first of several problems', () => {
    expect(checkInput(null)).toEqual(problem('', 'must be an object, got null'));
    expect(checkInput([])).toEqual(problem('', 'must be an object, got an array'));
    expect(checkInput({ text: 1, source: '' })).toEqual(problem('text', 'must be a string, got 1'));
  });
});

describe('checkInterrupt', () => {
  it('accepts text with any of the four levels, and a stop without text', () => {
    for (const level of ['L1', 'L2', 'L3', 'L4'])
      expect(checkInterrupt({ text: 'now', level })).toEqual({ ok: true, value: { text: 'now', level } });
    expect(checkInterrupt({ stop: true })).toEqual({ ok: true, value: { stop: true } });
    expect(checkInterrupt({ text: '', stop: false, source: 'a', channel: 'b' })).toEqual({
      ok: true,
      value: { text: '', stop: false, source: 'a', channel: 'b' },
    });
  });

  it('needs text unless the interrupt is a stop', () => {
    const needsText = problem('text', 'required: a string (only a stop may come without text)');
    expect(checkInterrupt({})).toEqual(needsText);
    expect(checkInterrupt({ level: 'L1' })).toEqual(needsText);
    expect(checkInterrupt({ stop: false })).toEqual(needsText);
  });

  it('names the field at fault, before asking for text', () => {
    expect(checkInterrupt({ text: 'x', level: 'L5' })).toEqual(
      problem('level', 'must be one of: L1, L2, L3, L4 (got "L5")'),
    );
    expect(checkInterrupt({ stop: 'yes' })).toEqual(problem('stop', 'must be true or false, got "yes"'));
    expect(checkInterrupt({ level: 'L0' })).toEqual(problem('level', 'must be one of: L1, L2, L3, L4 (got "L0")'));
    expect(checkInterrupt({ text: 'a', bogus: 1 })).toEqual(
      problem('bogus', 'unknown field; the allowed fields here are: text, level, source, channel, stop'),
    );
    expect(checkInterrupt(7)).toEqual(problem('', 'must be an object, got 7'));
    expect(checkInterrupt({ text: 5 })).toEqual(problem('text', 'must be a string, got 5'));
    expect(checkInterrupt({ text: 'x', source: '' })).toEqual(problem('source', 'must be ≥ 1, got ""'));
    expect(checkInterrupt({ text: 'x', channel: '' })).toEqual(problem('channel', 'must be ≥ 1, got ""'));
  });
});

describe('checkChat', () => {
  it('takes the text of the last user message, after any other roles', () => {
    const body = {
      model: 'homeagent',
      temperature: 0.2,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
        { role: 'assistant', content: 'answer' },
        { role: 'tool', content: 'result' },
      ],
    };
    expect(checkChat(body)).toEqual({ ok: true, value: { body, text: 'second' } });
    expect(checkChat({ messages: [{ role: 'user', content: 'only' }] })).toEqual({
      ok: true,
      value: { body: { messages: [{ role: 'user', content: 'only' }] }, text: 'only' },
    });
  });

  it('joins the text parts of a content array; other parts and text parts without text add nothing', () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'image_url', text: 'not read' },
      { type: 'text' },
      { type: 'text', text: 'b' },
    ];
    const checked = checkChat({ stream: null, messages: [{ role: 'user', content }] });
    expect(checked.ok && checked.value.text).toBe('ab');
  });

  it('reads a user message with null or no content as empty text', () => {
    for (const message of [{ role: 'user', content: null }, { role: 'user' }]) {
      const checked = checkChat({ stream: true, messages: [message] });
      expect(checked).toEqual({ ok: true, value: { body: { stream: true, messages: [message] }, text: '' } });
    }
  });

  it('needs a user message among at least one', () => {
    const noUser = problem(
      'messages',
      'must contain a message with role "user"; its content is what the agent is told',
    );
    expect(checkChat({ messages: [{ role: 'system', content: 'x' }] })).toEqual(noUser);
    expect(
      checkChat({
        messages: [
          { role: 'assistant', content: 'x' },
          { role: 'User', content: 'y' },
        ],
      }),
    ).toEqual(noUser);
    expect(checkChat({ messages: [] })).toEqual(problem('messages', 'must have at least 1 entries'));
    expect(checkChat({})).toEqual(problem('messages', 'required: an array'));
  });

  it('names the known fields of a wrong type', () => {
    expect(checkChat({ stream: 'yes', messages: [{ role: 'user' }] })).toEqual(
      problem('stream', 'must be true or false, got "yes"'),
    );
    expect(checkChat({ model: 3, messages: [{ role: 'user' }] })).toEqual(problem('model', 'must be a string, got 3'));
    expect(checkChat({ messages: [{ content: 'x' }] })).toEqual(problem('messages[0].role', 'required: a string'));
    expect(checkChat({ messages: [{ role: 'user', content: 5 }] })).toEqual(
      problem('messages[0].content', 'Invalid input'),
    );
    for (const part of [{ text: 'no type' }, { type: 'text', text: 5 }, 'text'])
      expect(checkChat({ messages: [{ role: 'user', content: [part] }] }), JSON.stringify(part)).toEqual(
        problem('messages[0].content', 'Invalid input'),
      );
    expect(checkChat({ messages: 'hi' })).toEqual(problem('messages', 'must be an array, got "hi"'));
  });
});
