/**
 * A route that throws is a bug (src/server/http-channel.ts): the request is answered 500 and the failure
 * goes to the server's log, or, when the answer had already begun, the connection is cut; either way the
 * server goes on serving. Driven through an HttpChannel whose ports fail on purpose.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TraceFeed } from '../../src/server/trace-feed.ts';
import { closeChannels, openChannel } from './channel-ports.ts';

/** A feed whose listening fails after `/v1/events` has sent its head. */
class BrokenFeed extends TraceFeed {
  override listen(): (() => void) | null {
    throw new Error('the feed broke');
  }
}

const failures: { route: string; err: unknown }[] = [];

afterEach(async () => {
  failures.length = 0;
  await closeChannels();
});

async function open(): Promise<string> {
  const { url } = await openChannel({
    status: () => {
      throw new Error('the status broke');
    },
    feed: new BrokenFeed(() => ({})),
    routeFailed: (route, err) => failures.push({ route, err }),
  });
  return url;
}

describe('HttpChannel: a route that throws', () => {
  it('is answered 500 without the details, logged with its route, and the server goes on', async () => {
    const url = await open();
    const res = await fetch(`${url}/v1/status`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { message: 'internal error; the server log has the details', type: 'server_error', param: null },
    });
    expect(failures).toEqual([{ route: 'GET /v1/status', err: new Error('the status broke') }]);
    const health = await fetch(`${url}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, 'ok']);
  });

  it('after its answer began, cuts the connection instead of writing a second head', async () => {
    const url = await open();
    const res = await fetch(`${url}/v1/events?since=0`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(failures).toEqual([{ route: 'GET /v1/events', err: new Error('the feed broke') }]);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
