/**
 * An SSE response (src/server/sse.ts, docs/http-api.md "Streams"): its headers, the event lines, the
 * `: keep-alive` comment every 15 s while the stream is quiet, and nothing written once the stream or
 * its connection has ended. Against a recorded response and fake timers: the heartbeat's period is the
 * contract, and a test may not wait for it.
 */
import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_MS, SseStream } from '../../src/server/sse.ts';

/** What a stream did to its response. */
class RecordedResponse extends EventEmitter {
  status: number | null = null;
  headers: OutgoingHttpHeaders = {};
  flushed = false;
  readonly written: string[] = [];
  ends = 0;
  writableEnded = false;

  writeHead(status: number, headers: OutgoingHttpHeaders): this {
    this.status = status;
    this.headers = headers;
    return this;
  }

  flushHeaders(): void {
    this.flushed = true;
  }

  write(text: string): boolean {
    this.written.push(text);
    return true;
  }

  end(): this {
    this.ends += 1;
    this.writableEnded = true;
    return this;
  }
}

function open(headers?: OutgoingHttpHeaders): { res: RecordedResponse; stream: SseStream } {
  const res = new RecordedResponse();
  const stream = new SseStream(res as unknown as ServerResponse, headers);
  return { res, stream };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SseStream', () => {
  it('answers 200 with the event-stream headers at once, the caller’s added', () => {
    const { res } = open({ 'homeagent-task': 'http-1' });
    expect(res.status).toBe(200);
    expect(res.headers).toEqual({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'homeagent-task': 'http-1',
    });
    expect(res.flushed).toBe(true);
    expect(res.written).toEqual([]);
  });

  it('writes an event as its name, its id and one data line, then a blank line', () => {
    const { res, stream } = open();
    stream.event('{"a":1}');
    stream.event('{"b":2}', 'delta');
    stream.event('{"c":3}', null, 7);
    stream.event('{"d":4}', 'terminal', 0);
    stream.frame('data: whole\n\n');
    expect(res.written).toEqual([
      'data: {"a":1}\n\n',
      'event: delta\ndata: {"b":2}\n\n',
      'id: 7\ndata: {"c":3}\n\n',
      'event: terminal\nid: 0\ndata: {"d":4}\n\n',
      'data: whole\n\n',
    ]);
  });

  it('sends a keep-alive comment every 15 s, not before', () => {
    expect(HEARTBEAT_MS).toBe(15_000);
    const { res, stream } = open();
    vi.advanceTimersByTime(HEARTBEAT_MS - 1);
    expect(res.written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(res.written).toEqual([': keep-alive\n\n']);
    vi.advanceTimersByTime(HEARTBEAT_MS);
    expect(res.written).toEqual([': keep-alive\n\n', ': keep-alive\n\n']);
    stream.end();
  });

  it('once ended, it writes nothing more and ends the response once', () => {
    const { res, stream } = open();
    stream.end();
    stream.end();
    stream.event('late');
    stream.frame('data: late\n\n');
    vi.advanceTimersByTime(3 * HEARTBEAT_MS);
    expect(res.written).toEqual([]);
    expect(res.ends).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a connection that closed stops the heartbeat; a response ended elsewhere gets no more lines', () => {
    const closed = open();
    closed.res.emit('close');
    expect(vi.getTimerCount()).toBe(0);

    const { res, stream } = open();
    res.writableEnded = true;
    stream.event('late');
    vi.advanceTimersByTime(HEARTBEAT_MS);
    expect(res.written).toEqual([]);
    stream.end();
  });
});
