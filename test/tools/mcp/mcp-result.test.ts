/**
 * An MCP `tools/call` result as the model reads it (docs/spec.md §13.3): text content joined by lines,
 * every other kind of content summarized by its type, MIME type and size, structured content (or the
 * first protocol's `toolResult`) when there is no content, `isError` as a failed result, and a result
 * over 1 MiB cut at a character boundary with a note of how much there was.
 */
import { describe, expect, it } from 'vitest';
import { RESULT_BYTES_MAX, toToolResult } from '../../../src/tools/mcp/mcp-result.ts';

const output = (result: Record<string, unknown>): string => toToolResult(result).output;
const one = (block: unknown): string => output({ content: [block] });

describe('toToolResult: success and failure', () => {
  it('is a failed result only when isError is exactly true', () => {
    expect(toToolResult({ content: [{ type: 'text', text: 'no' }], isError: true })).toEqual({
      ok: false,
      output: 'no',
    });
    expect(toToolResult({ content: [{ type: 'text', text: 'yes' }], isError: false })).toEqual({
      ok: true,
      output: 'yes',
    });
    expect(toToolResult({ content: [{ type: 'text', text: 'yes' }] })).toEqual({ ok: true, output: 'yes' });
    expect(toToolResult({ content: [], isError: 'true' })).toEqual({ ok: true, output: '' });
  });

  it('joins the parts with newlines, in order', () => {
    expect(
      output({
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
          { type: 'text', text: '' },
        ],
      }),
    ).toBe('first\nsecond\n');
  });
});

describe('toToolResult: structured content', () => {
  it('answers structured content as JSON when there is no content', () => {
    expect(output({ structuredContent: { n: 1, s: 'x' } })).toBe('{"n":1,"s":"x"}');
    expect(output({ content: [], structuredContent: [1, 2] })).toBe('[1,2]');
    expect(output({ content: 'not a list', structuredContent: { n: 2 } })).toBe('{"n":2}');
  });

  it('reads the first protocol shape `toolResult`, after structuredContent', () => {
    expect(output({ toolResult: { old: true } })).toBe('{"old":true}');
    expect(output({ structuredContent: { now: 1 }, toolResult: { old: true } })).toBe('{"now":1}');
    expect(output({ structuredContent: null, toolResult: 'old' })).toBe('"old"');
    expect(output({ toolResult: false })).toBe('false');
  });

  it('ignores structured content when there is content', () => {
    expect(output({ content: [{ type: 'text', text: 'shown' }], structuredContent: { hidden: 1 } })).toBe('shown');
  });

  it('is empty with neither content nor structured content', () => {
    expect(toToolResult({})).toEqual({ ok: true, output: '' });
    expect(toToolResult({ content: null })).toEqual({ ok: true, output: '' });
  });
});

describe('toToolResult: each kind of content', () => {
  it('text: its text; a text block without a string is empty', () => {
    expect(one({ type: 'text', text: 'hello' })).toBe('hello');
    expect(one({ type: 'text', text: 42 })).toBe('');
    expect(one({ type: 'text' })).toBe('');
  });

  it('image and audio: type, MIME type and decoded size', () => {
    expect(one({ type: 'image', mimeType: 'image/png', data: 'AAAA' })).toBe('[image image/png, 3 bytes]');
    expect(one({ type: 'audio', mimeType: 'audio/wav', data: 'AAAAAAAA' })).toBe('[audio audio/wav, 6 bytes]');
    expect(one({ type: 'image', data: 'AAAA' })).toBe('[image of unknown type, 3 bytes]');
    expect(one({ type: 'image', mimeType: 7, data: 'AAAA' })).toBe('[image of unknown type, 3 bytes]');
    expect(one({ type: 'audio', mimeType: 'audio/ogg' })).toBe('[audio audio/ogg, 0 bytes]');
    expect(one({ type: 'audio', mimeType: 'audio/ogg', data: 1234 })).toBe('[audio audio/ogg, 0 bytes]');
  });

  it('sizes base64 by its length less its padding, never below zero', () => {
    const size = (data: string): string => one({ type: 'image', mimeType: 'm', data });
    expect(size('AAA=')).toBe('[image m, 2 bytes]');
    expect(size('AA==')).toBe('[image m, 1 bytes]');
    expect(size('AAAAAAA=')).toBe('[image m, 5 bytes]');
    expect(size('AAAAA')).toBe('[image m, 3 bytes]');
    expect(size('AAAAAAA')).toBe('[image m, 5 bytes]');
    expect(size('')).toBe('[image m, 0 bytes]');
    expect(size('==')).toBe('[image m, 0 bytes]');
    expect(size('=')).toBe('[image m, 0 bytes]');
    expect(size(Buffer.from('0123456789').toString('base64'))).toBe('[image m, 10 bytes]');
  });

  it('resource: its URI, MIME type and the size of its text (in UTF-8 bytes) or blob', () => {
    expect(one({ type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'héllo' } })).toBe(
      '[resource file:///a.txt text/plain, 6 bytes of text]',
    );
    expect(
      one({ type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/x', blob: 'AAAAAA==' } }),
    ).toBe('[resource file:///b.bin application/x, 4 bytes]');
    expect(one({ type: 'resource', resource: { uri: 'file:///c', text: '' } })).toBe(
      '[resource file:///c of unknown type, 0 bytes of text]',
    );
    expect(one({ type: 'resource', resource: { text: 7, blob: 'AAAA' } })).toBe('[resource  of unknown type, 3 bytes]');
  });

  it('resource without a resource object: an empty one', () => {
    expect(one({ type: 'resource' })).toBe('[resource  of unknown type, 0 bytes]');
    expect(one({ type: 'resource', resource: null })).toBe('[resource  of unknown type, 0 bytes]');
    expect(one({ type: 'resource', resource: 'file:///x' })).toBe('[resource  of unknown type, 0 bytes]');
  });

  it('resource_link: its URI and MIME type', () => {
    expect(one({ type: 'resource_link', uri: 'https://x/y', mimeType: 'text/html', name: 'y' })).toBe(
      '[resource link https://x/y text/html]',
    );
    expect(one({ type: 'resource_link' })).toBe('[resource link  of unknown type]');
  });

  it('other content: named by its type, or unknown', () => {
    expect(one({ type: 'video', data: 'AAAA' })).toBe('[video content]');
    expect(one({ type: 3 })).toBe('[unknown content]');
    expect(one({})).toBe('[unknown content]');
    expect(one(['text'])).toBe('[unknown content]');
  });

  it('a block that is not an object is of an unknown shape', () => {
    expect(one('text')).toBe('[content of an unknown shape]');
    expect(one(null)).toBe('[content of an unknown shape]');
    expect(one(5)).toBe('[content of an unknown shape]');
  });
});

describe('toToolResult: the size limit', () => {
  const text = (t: string): string => output({ content: [{ type: 'text', text: t }] });
  const note = (had: number, kept: number): string =>
    `\n[cut: the result had ${had} bytes; the first ${kept} are kept]`;

  it('keeps 1 MiB', () => {
    expect(RESULT_BYTES_MAX).toBe(1_048_576);
  });

  it('keeps a result of exactly the limit whole, and cuts one byte more', () => {
    const exact = 'a'.repeat(RESULT_BYTES_MAX);
    expect(text(exact)).toBe(exact);
    expect(text(`${exact}b`)).toBe(exact + note(RESULT_BYTES_MAX + 1, RESULT_BYTES_MAX));
  });

  it('counts UTF-8 bytes, not characters', () => {
    const chars = 'é'.repeat(RESULT_BYTES_MAX / 2 + 1);
    expect(text(chars)).toBe('é'.repeat(RESULT_BYTES_MAX / 2) + note(RESULT_BYTES_MAX + 2, RESULT_BYTES_MAX));
  });

  it('never splits a character at the cut', () => {
    const two = `${'a'.repeat(RESULT_BYTES_MAX - 1)}é`;
    expect(text(two)).toBe('a'.repeat(RESULT_BYTES_MAX - 1) + note(RESULT_BYTES_MAX + 1, RESULT_BYTES_MAX - 1));
    const three = `${'a'.repeat(RESULT_BYTES_MAX - 2)}€`;
    expect(text(three)).toBe('a'.repeat(RESULT_BYTES_MAX - 2) + note(RESULT_BYTES_MAX + 1, RESULT_BYTES_MAX - 2));
    const four = `${'a'.repeat(RESULT_BYTES_MAX - 1)}😀`;
    expect(text(four)).toBe('a'.repeat(RESULT_BYTES_MAX - 1) + note(RESULT_BYTES_MAX + 3, RESULT_BYTES_MAX - 1));
  });

  it('cuts the joined parts, and marks a cut failed result as failed still', () => {
    const half = 'x'.repeat(RESULT_BYTES_MAX / 2);
    const result = toToolResult({
      content: [
        { type: 'text', text: half },
        { type: 'text', text: half },
      ],
      isError: true,
    });
    expect(result).toEqual({
      ok: false,
      output: `${half}\n${half.slice(1)}${note(RESULT_BYTES_MAX + 1, RESULT_BYTES_MAX)}`,
    });
  });
});
