/**
 * The HttpChannel on its own (src/server/http-channel.ts): node's headers timeout, the 404 of an
 * unknown /v1 path, and a close that resolves as soon as the last connection is gone. Real sockets;
 * no kernel behind the ports.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeChannels, openChannel } from './channel-ports.ts';
import { rawRequest } from './support.ts';

afterEach(closeChannels);

describe('HttpChannel', () => {
  // Node checks its timeouts every connectionsCheckingInterval; left at its default (30 s) a client
  // holding its headers back would keep its connection for up to 30 s, past this test's own limit.
  it('cuts a client whose headers do not arrive within the body timeout with 408', { timeout: 10_000 }, async () => {
    const { url } = await openChannel({ bodyTimeoutMs: 300 });
    const answer = await rawRequest(url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(answer.status).toBe(408);
  });

  it('answers an unknown path under /v1/ 404, naming it', async () => {
    const { port } = await openChannel();
    const res = await fetch(`http://127.0.0.1:${port}/v1/nothing/here?x=1`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { message: 'no route /v1/nothing/here' } });
  });

  it('closed() resolves when the last connection is gone, not at the end of its wait', { timeout: 5_000 }, async () => {
    const { channel, port } = await openChannel();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    channel.stopAccepting();
    await channel.closed(60_000);
  });
});
