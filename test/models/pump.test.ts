/**
 * The loop both adapters share (src/models/pump.ts), with a scripted event stream and translator: each
 * event's chunks in order, then the one done chunk; no chunk after the abort, the signal's own abort
 * error thrown and the event stream left at once; every other failure passed through `classify`.
 */
import { describe, expect, it } from 'vitest';
import type { ModelChunk } from '../../src/kernel/index.ts';
import { pump, type ChunkTranslator, type PumpParts } from '../../src/models/pump.ts';
import { collect } from './collect.ts';

const DONE: ModelChunk = { type: 'done', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } };

interface Script {
  /** The events the stream yields; a function runs (and is yielded as its result) when reached. */
  readonly events: ReadonlyArray<unknown>;
  /** What each event translates to: its text pieces, or an error to throw. */
  readonly translate?: (event: unknown) => string[];
  readonly finish?: () => ModelChunk;
  readonly open?: () => Promise<void>;
  readonly streamError?: Error;
}

interface Run {
  readonly parts: PumpParts;
  /** Events the pump took from the stream. */
  pulled: number;
  /** True once the stream's iterator was left (its finally ran). */
  closed: boolean;
  /** What `classify` was given. */
  readonly classified: unknown[];
  /** The length of `out` at each push: the buffer is emptied between events. */
  readonly outAtPush: number[];
}

function script(s: Script): Run {
  const run: Run = {
    pulled: 0,
    closed: false,
    classified: [],
    outAtPush: [],
    parts: undefined as unknown as PumpParts,
  };
  async function* stream(): AsyncGenerator<unknown> {
    try {
      for (const e of s.events) {
        run.pulled += 1;
        yield typeof e === 'function' ? (e as () => unknown)() : e;
      }
      if (s.streamError !== undefined) throw s.streamError;
    } finally {
      run.closed = true;
    }
  }
  const translator: ChunkTranslator = {
    push(event, out) {
      run.outAtPush.push(out.length);
      for (const text of (s.translate ?? ((e) => [String(e)]))(event)) out.push({ type: 'text', text });
    },
    finish: s.finish ?? (() => DONE),
  };
  (run as { parts: PumpParts }).parts = {
    open: async () => {
      await s.open?.();
      return stream();
    },
    translator,
    classify: (err) => {
      run.classified.push(err);
      return new Error(`classified: ${(err as Error).message}`);
    },
  };
  return run;
}

const texts = (chunks: readonly ModelChunk[]): string[] => chunks.map((c) => (c.type === 'text' ? c.text : c.type));

describe('pump', () => {
  it("yields each event's chunks in order, then the done chunk, with one buffer emptied between events", async () => {
    const run = script({ events: ['a', 'b', 'c'], translate: (e) => (e === 'b' ? [] : [`${e}1`, `${e}2`]) });
    const { chunks, error } = await collect(pump(run.parts, new AbortController().signal));
    expect(error).toBeNull();
    expect(chunks).toEqual([
      { type: 'text', text: 'a1' },
      { type: 'text', text: 'a2' },
      { type: 'text', text: 'c1' },
      { type: 'text', text: 'c2' },
      DONE,
    ]);
    expect(run.outAtPush).toEqual([0, 0, 0]);
    expect(run.classified).toEqual([]);
  });

  it('opens nothing for a signal already aborted, and throws its own abort error', async () => {
    const controller = new AbortController();
    const reason = Object.assign(new Error('stopped'), { name: 'AbortError' });
    controller.abort(reason);
    let opened = false;
    const run = script({ events: [], open: () => Promise.resolve(void (opened = true)) });
    const { chunks, error } = await collect(pump(run.parts, controller.signal));
    expect(chunks).toEqual([]);
    expect(error).toBe(reason);
    expect(opened).toBe(false);
  });

  it('a failed open is classified; aborted while opening, it is the abort error', async () => {
    const refused = script({ events: [], open: () => Promise.reject(new Error('ECONNREFUSED')) });
    const first = await collect(pump(refused.parts, new AbortController().signal));
    expect((first.error as Error).message).toBe('classified: ECONNREFUSED');
    expect(refused.classified).toEqual([new Error('ECONNREFUSED')]);

    const controller = new AbortController();
    const aborted = script({
      events: [],
      open: () => {
        controller.abort();
        return Promise.reject(new Error('aborted by the SDK'));
      },
    });
    const second = await collect(pump(aborted.parts, controller.signal));
    expect((second.error as Error).name).toBe('AbortError');
    expect(aborted.classified).toEqual([]);
  });

  it('stops between two chunks of one event at the abort, and leaves the stream at once', async () => {
    const controller = new AbortController();
    const run = script({ events: ['a', 'b'], translate: (e) => [`${e}1`, `${e}2`] });
    const { chunks, error } = await collect(pump(run.parts, controller.signal), () => controller.abort());
    expect(texts(chunks)).toEqual(['a1']);
    expect((error as Error).name).toBe('AbortError');
    expect(run.pulled).toBe(1);
    expect(run.closed).toBe(true);
    expect(run.classified).toEqual([]);
  });

  it('an abort during a translation that gives no chunk takes no further event', async () => {
    const controller = new AbortController();
    const run = script({
      events: ['a', 'b', 'c'],
      translate: (e) => {
        if (e === 'b') controller.abort();
        return e === 'a' ? ['a'] : [];
      },
    });
    const { chunks, error } = await collect(pump(run.parts, controller.signal));
    expect(texts(chunks)).toEqual(['a']);
    expect((error as Error).name).toBe('AbortError');
    expect(run.pulled).toBe(2);
  });

  it('an event that arrives after the abort is not translated', async () => {
    const controller = new AbortController();
    const run = script({ events: ['a', () => (controller.abort(), 'late')] });
    const { chunks, error } = await collect(pump(run.parts, controller.signal));
    expect(texts(chunks)).toEqual(['a']);
    expect((error as Error).name).toBe('AbortError');
    expect(run.outAtPush).toHaveLength(1);
  });

  it('an abort after the last chunk, before the end, gives the abort error and no done chunk', async () => {
    const controller = new AbortController();
    let finished = false;
    const run = script({
      events: ['a'],
      finish: () => {
        finished = true;
        return DONE;
      },
    });
    const { chunks, error } = await collect(pump(run.parts, controller.signal), () => controller.abort());
    expect(texts(chunks)).toEqual(['a']);
    expect((error as Error).name).toBe('AbortError');
    expect(finished).toBe(false);
  });

  it('a translation or stream failure is classified, after the chunks before it; aborted, it is the abort error', async () => {
    const bad = script({
      events: ['a', 'b'],
      translate: (e) => {
        if (e === 'b') throw new Error('bad event');
        return ['a'];
      },
    });
    const first = await collect(pump(bad.parts, new AbortController().signal));
    expect(texts(first.chunks)).toEqual(['a']);
    expect((first.error as Error).message).toBe('classified: bad event');
    expect(bad.closed).toBe(true);

    const cut = script({ events: ['a'], streamError: new Error('terminated') });
    const second = await collect(pump(cut.parts, new AbortController().signal));
    expect(texts(second.chunks)).toEqual(['a']);
    expect((second.error as Error).message).toBe('classified: terminated');

    const controller = new AbortController();
    const abortedBad = script({
      events: ['a'],
      translate: () => {
        controller.abort();
        throw new Error('bad event');
      },
    });
    const third = await collect(pump(abortedBad.parts, controller.signal));
    expect((third.error as Error).name).toBe('AbortError');
    expect(abortedBad.classified).toEqual([]);
  });

  it('an unfinished stream is classified through the translator’s own error', async () => {
    const run = script({
      events: ['a'],
      finish: () => {
        throw new Error('ended before its end marker');
      },
    });
    const { chunks, error } = await collect(pump(run.parts, new AbortController().signal));
    expect(texts(chunks)).toEqual(['a']);
    expect((error as Error).message).toBe('classified: ended before its end marker');
    expect(run.classified).toEqual([new Error('ended before its end marker')]);
  });
});
