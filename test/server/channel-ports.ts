/**
 * The ports of an HttpChannel driven on its own, without a kernel behind it: an empty task board, no
 * token, no Host check, nothing submitted. A test overrides what it exercises.
 */
import { HttpChannel, type HttpPorts } from '../../src/server/http-channel.ts';
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

export interface OpenChannel {
  readonly channel: HttpChannel;
  readonly port: number;
  readonly url: string;
}

const opened: HttpChannel[] = [];

/** An HttpChannel over `channelPorts(overrides)` on 127.0.0.1, an ephemeral port. */
export async function openChannel(overrides: Partial<HttpPorts> = {}): Promise<OpenChannel> {
  const channel = new HttpChannel(channelPorts(overrides));
  opened.push(channel);
  const { port } = await channel.listen('127.0.0.1', 0);
  return { channel, port, url: `http://127.0.0.1:${port}` };
}

/** Closes every channel openChannel opened (a test file's afterEach). */
export async function closeChannels(): Promise<void> {
  for (const channel of opened.splice(0)) {
    channel.stopAccepting();
    await channel.closed(100);
  }
}
