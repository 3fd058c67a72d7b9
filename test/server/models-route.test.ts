/**
 * `GET /v1/models` and `/v1/models/{model}` (src/server/models-route.ts) on an HttpChannel of its own:
 * the one model's fields, created when the server started, and the 404 of any other name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeChannels, openChannel } from './channel-ports.ts';

afterEach(closeChannels);

describe('GET /v1/models', () => {
  it('lists the one model, created in seconds since the epoch when the server started', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { url } = await openChannel();
    const after = Math.ceil(Date.now() / 1000);
    const list = (await (await fetch(`${url}/v1/models`)).json()) as { data: { created: number }[] };
    expect(list.data).toEqual([
      { id: 'homeagent', object: 'model', created: expect.any(Number), owned_by: 'homeagent' },
    ]);
    const created = list.data[0]?.created ?? 0;
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(after);
  });

  it('answers another name 404, naming it and the one model; an empty name too', async () => {
    const { url } = await openChannel();
    const other = await fetch(`${url}/v1/models/gpt-4o`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({
      error: {
        message: 'no model "gpt-4o"; the one model is "homeagent"',
        type: 'not_found_error',
        param: 'model',
      },
    });
    const empty = await fetch(`${url}/v1/models/`);
    expect(empty.status).toBe(404);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/^no model ""/);
  });

  it('is not a prefix of other paths, and refuses methods that write', async () => {
    const { url } = await openChannel();
    const near = await fetch(`${url}/v1/modelsx`);
    expect(near.status).toBe(404);
    expect(((await near.json()) as { error: { message: string } }).error.message).toBe('no route /v1/modelsx');
    const post = await fetch(`${url}/v1/models`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
