/**
 * The ports of an HttpChannel driven on its own, without a kernel behind it: an empty task board, no
 * token, no Host check, nothing submitted. A test overrides what it exercises.
 */
import type { HttpPorts } from '../../src/server/http-channel.ts';
import { TaskBoard } from '../../src/server/task-board.ts';
import { TraceFeed } from '../../src/server/trace-feed.ts';

export function channelPorts(overrides: Partial<HttpPorts> = {}): HttpPorts {
  return {
    board: new TaskBoard(),
    bodyTimeoutMs: 2000,
    token: null,
    hostCheck: null,
    submit: () => {
      throw new Error('not used');
    },
    unavailable: () => null,
    durable: () => Promise.resolve(),
    nextId: (prefix) => `${prefix}-1`,
    status: () => ({}),
    feed: new TraceFeed(() => ({})),
    maxWatchers: 4,
    routeFailed: () => undefined,
    ...overrides,
  };
}
