/**
 * A client that goes away before its task ends lets its listener go (src/server/task-routes.ts,
 * chat-completions.ts): a task that runs for hours would otherwise keep one listener, and the answer it
 * holds, for every request that ever waited on it. Driven through an HttpChannel over a board that
 * counts its live listeners; the tasks it is asked for never end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TaskBoard, type TaskListener } from '../../src/server/task-board.ts';
import { closeChannels, openChannel } from './channel-ports.ts';
import { waitFor } from './support.ts';

/** A board that counts the listeners that have not stopped listening. */
class CountingBoard extends TaskBoard {
  live = 0;

  override listen(task: string, afterId: number, listener: TaskListener): (() => void) | null {
    const stop = super.listen(task, afterId, listener);
    if (stop === null) return null;
    this.live += 1;
    let stopped = false;
    return () => {
      if (!stopped) this.live -= 1;
      stopped = true;
      stop();
    };
  }
}

afterEach(closeChannels);

async function open(board: CountingBoard): Promise<string> {
  let n = 0;
  const { url } = await openChannel({
    board,
    nextId: (prefix) => `${prefix}-${++n}`,
    submit: (sub) => {
      board.open(sub.id, 'root');
      return { kind: 'accepted' };
    },
  });
  return url;
}

/** Asks, waits until the request listens, goes away, and gives the listeners left after that. */
async function goAway(board: CountingBoard, url: string, init: RequestInit): Promise<number> {
  const abort = new AbortController();
  const answer = fetch(url, { ...init, signal: abort.signal })
    .then((res) => res.text())
    .catch(() => 'aborted');
  await waitFor(() => board.live === 1);
  abort.abort();
  await answer;
  // The server sees the connection close a moment after the client: give it up to a second.
  await waitFor(() => board.live === 0, 1000).catch(() => undefined);
  return board.live;
}

const json = { 'content-type': 'application/json' };
const chat = (stream: boolean): string => JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream });

describe('a client that goes away', () => {
  it.each([
    { route: 'POST /v1/inputs', path: '/v1/inputs', body: JSON.stringify({ text: 'hi' }), accept: undefined },
    {
      route: 'POST /v1/inputs (events)',
      path: '/v1/inputs',
      body: JSON.stringify({ text: 'hi' }),
      accept: 'text/event-stream',
    },
    { route: 'POST /v1/chat/completions', path: '/v1/chat/completions', body: chat(false), accept: undefined },
    { route: 'POST /v1/chat/completions (stream)', path: '/v1/chat/completions', body: chat(true), accept: undefined },
  ])('$route: its listener is let go', async ({ path, body, accept }) => {
    const board = new CountingBoard();
    const url = await open(board);
    const headers = accept === undefined ? json : { ...json, accept };
    expect(await goAway(board, `${url}${path}`, { method: 'POST', headers, body })).toBe(0);
  });

  it('GET /v1/tasks/{id}/events: its listener is let go', async () => {
    const board = new CountingBoard();
    const url = await open(board);
    board.open('http-9', 'root');
    expect(await goAway(board, `${url}/v1/tasks/http-9/events`, {})).toBe(0);
  });
});
