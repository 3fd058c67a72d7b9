/**
 * The behaviour every adapter owes the kernel whatever its wire format (docs/spec.md §13.1), written once
 * and run against each adapter through a small description of its dialect: the abort closes the
 * HTTP stream, nothing arrives after the abort, one retry of a 429, none of a 401, a clear failure
 * for an unparsable event, retry and fallback only before the first chunk.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FallbackProvider, ModelCallError, type NamedProvider } from '../../src/models/index.ts';
import { assemble, collect } from './collect.ts';
import { instantSleep } from './instant-sleep.ts';
import { answerJson, pause, startEventStream, startLoopback, type Handler, type Loopback } from './loopback.ts';
import { modelRequest } from './request.ts';

export interface WireDialect {
  readonly title: string;
  /** The path prefix the SDK puts before its endpoint, relative to the base URL. */
  readonly basePath: string;
  adapter(baseURL: string, name: string): NamedProvider;
  /** The events that open a stream before its first text (none, or a message and a block start). */
  opening(): string;
  /** One text delta, after the opening. */
  text(text: string): string;
  /** Whatever ends a text answer correctly. */
  closing(): string;
  /** An event whose JSON does not parse. */
  unparsable(): string;
  /** The JSON body of an HTTP error answer. */
  errorBody(message: string): unknown;
}

export function providerContract(wire: WireDialect): void {
  const servers: Loopback[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function server(...handlers: Handler[]): Promise<Loopback> {
    const s = await startLoopback(handlers, wire.basePath);
    servers.push(s);
    return s;
  }
  const answer =
    (text: string): Handler =>
    ({ res }) => {
      startEventStream(res);
      res.end(wire.opening() + wire.text(text) + wire.closing());
    };
  const fails =
    (status: number, message: string): Handler =>
    ({ res }) =>
      answerJson(res, status, wire.errorBody(message));
  const fallback = (...providers: NamedProvider[]): FallbackProvider =>
    new FallbackProvider(providers, { sleep: instantSleep().sleep });
  const signal = (): AbortSignal => new AbortController().signal;

  describe(`${wire.title}: the provider contract`, () => {
    it('closes the HTTP stream at once when the call is aborted mid-way', async () => {
      const s = await server(async ({ res, closed }) => {
        startEventStream(res);
        res.write(wire.opening() + wire.text('one ') + wire.text('two '));
        await closed; // the answer never ends: only the client can end this exchange
      });
      const controller = new AbortController();
      const { chunks, error } = await collect(
        wire.adapter(s.baseURL, 'p').stream(modelRequest(), controller.signal),
        (_c, n) => {
          if (n === 1) controller.abort();
        },
      );
      expect(chunks).toEqual([{ type: 'text', text: 'one ' }]);
      expect((error as Error).name).toBe('AbortError');
      await (
        await s.exchange(0)
      ).closed;
      expect(s.requests[0]?.clientClosedEarly).toBe(true);
    });

    it('closes the connection when the call is aborted while waiting for the response headers', async () => {
      const s = await server(async ({ closed }) => {
        await closed; // no headers, ever
      });
      const controller = new AbortController();
      const pending = collect(wire.adapter(s.baseURL, 'p').stream(modelRequest(), controller.signal));
      await s.exchange(0);
      controller.abort();
      const { chunks, error } = await pending;
      expect(chunks).toEqual([]);
      expect((error as Error).name).toBe('AbortError');
      await (
        await s.exchange(0)
      ).closed;
      expect(s.requests[0]?.clientClosedEarly).toBe(true);
    });

    it('delivers nothing after the abort from a server that keeps sending', async () => {
      const s = await server(async ({ res, closed }) => {
        startEventStream(res);
        // A burst in one write: the SDK has decoded all of it before the consumer sees the first.
        res.write(wire.opening() + Array.from({ length: 200 }, (_, i) => wire.text(`t${i} `)).join(''));
        let open = true;
        void closed.then(() => (open = false));
        while (open) {
          res.write(wire.text('more '));
          await pause(1);
        }
      });
      const controller = new AbortController();
      let afterAbort = 0;
      const { chunks, error } = await collect(
        wire.adapter(s.baseURL, 'p').stream(modelRequest(), controller.signal),
        () => {
          if (controller.signal.aborted) afterAbort += 1;
          else controller.abort();
        },
      );
      expect(chunks).toHaveLength(1);
      expect(afterAbort).toBe(0);
      expect((error as Error).name).toBe('AbortError');
      await (
        await s.exchange(0)
      ).closed;
    });

    it('fails with a clear error on an unparsable event after the first chunk, with one request', async () => {
      const s = await server(({ res }) => {
        startEventStream(res);
        res.end(wire.opening() + wire.text('fine ') + wire.unparsable() + wire.closing());
      });
      const { chunks, error } = await collect(fallback(wire.adapter(s.baseURL, 'p')).stream(modelRequest(), signal()));
      expect(chunks).toEqual([{ type: 'text', text: 'fine ' }]);
      expect(error).toBeInstanceOf(ModelCallError);
      expect((error as Error).message).toMatch(
        /^model call failed after its stream began \(not retried, so no chunk is delivered twice\): provider "p": malformed stream: unparsable event/,
      );
      expect(s.requests).toHaveLength(1);
    });

    it('retries a 429 once, after the retry delay: two requests in all', async () => {
      const s = await server(fails(429, 'Rate limit reached'), answer('second time lucky'));
      const delay = instantSleep();
      const provider = new FallbackProvider([wire.adapter(s.baseURL, 'p')], { sleep: delay.sleep });
      const { chunks, error } = await collect(provider.stream(modelRequest(), signal()));
      expect(error).toBeNull();
      expect(assemble(chunks).text).toBe('second time lucky');
      expect(s.requests).toHaveLength(2);
      expect(delay.waitsMs).toEqual([2000]);
    });

    it('makes at most two requests to a provider that keeps failing, and lists them', async () => {
      const s = await server(fails(503, 'overloaded'));
      const { error } = await collect(fallback(wire.adapter(s.baseURL, 'p')).stream(modelRequest(), signal()));
      expect(s.requests).toHaveLength(2);
      expect((error as Error).message).toBe(
        'model call failed on its provider: provider "p": HTTP 503: overloaded (request 1); provider "p": HTTP 503: overloaded (request 2)',
      );
    });

    it('does not repeat a 401, and falls back to the next provider', async () => {
      const bad = await server(fails(401, 'invalid key'));
      const good = await server(answer('from the backup'));
      const alone = await collect(fallback(wire.adapter(bad.baseURL, 'main')).stream(modelRequest(), signal()));
      expect(bad.requests).toHaveLength(1);
      expect((alone.error as Error).message).toBe(
        'model call failed on its provider: provider "main": HTTP 401: invalid key (request 1)',
      );

      const both = fallback(wire.adapter(bad.baseURL, 'main'), wire.adapter(good.baseURL, 'backup'));
      const { chunks, error } = await collect(both.stream(modelRequest(), signal()));
      expect(error).toBeNull();
      expect(assemble(chunks).text).toBe('from the backup');
      expect(bad.requests).toHaveLength(2);
      expect(good.requests).toHaveLength(1);
    });

    it('neither retries nor falls back once a chunk was delivered', async () => {
      const s = await server(async ({ res }) => {
        startEventStream(res);
        res.write(wire.opening() + wire.text('partial '));
        await pause(5);
        res.destroy();
      });
      const backup = await server(answer('never asked'));
      const provider = fallback(wire.adapter(s.baseURL, 'p'), wire.adapter(backup.baseURL, 'backup'));
      const { chunks, error } = await collect(provider.stream(modelRequest(), signal()));
      expect(chunks).toEqual([{ type: 'text', text: 'partial ' }]);
      expect(error).toBeInstanceOf(ModelCallError);
      expect((error as Error).message).toMatch(
        /^model call failed after its stream began \(not retried, so no chunk is delivered twice\): provider "p": /,
      );
      expect(s.requests).toHaveLength(1);
      expect(backup.requests).toHaveLength(0);
    });

    it('retries, then falls back, when a stream ends before its first chunk', async () => {
      const s = await server(({ res }) => {
        startEventStream(res);
        res.end(wire.opening());
      });
      const backup = await server(answer('backup answer'));
      const provider = fallback(wire.adapter(s.baseURL, 'p'), wire.adapter(backup.baseURL, 'backup'));
      const { chunks, error } = await collect(provider.stream(modelRequest(), signal()));
      expect(error).toBeNull();
      expect(assemble(chunks).text).toBe('backup answer');
      expect(s.requests).toHaveLength(2);
      expect(backup.requests).toHaveLength(1);
    });

    it('makes no second request when the call is cancelled during the retry delay', async () => {
      const s = await server(fails(429, 'Rate limit reached'));
      const controller = new AbortController();
      const delay = instantSleep(() => controller.abort());
      const provider = new FallbackProvider([wire.adapter(s.baseURL, 'p')], { sleep: delay.sleep });
      const { error } = await collect(provider.stream(modelRequest(), controller.signal));
      expect((error as Error).name).toBe('AbortError');
      expect(s.requests).toHaveLength(1);
    });

    it('sends nothing for a call aborted before it starts', async () => {
      const s = await server(answer('unused'));
      const controller = new AbortController();
      controller.abort();
      const { error } = await collect(fallback(wire.adapter(s.baseURL, 'p')).stream(modelRequest(), controller.signal));
      expect((error as Error).name).toBe('AbortError');
      expect(s.requests).toHaveLength(0);
    });
  });
}
