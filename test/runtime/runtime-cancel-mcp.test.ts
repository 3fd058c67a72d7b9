/**
 * The Runtime with serve's MCP runner (src/tools/mcp) against a Streamable HTTP MCP server (docs/spec.md
 * §13.3): every cancellation of a call in flight — an agent stop, a pause (a durable shutdown), a
 * child's destroy or reclaim, its parent's destroy — reaches the server as notifications/cancelled,
 * and the call's promise settles at once as cancelled instead of waiting for the tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/clock/system-clock.ts';
import { McpToolRunner } from '../../src/tools/mcp/mcp-tools.ts';
import { startHttpMcpServer, type HttpMcpServer } from '../tools/mcp/http-mcp-server.ts';
import { http } from '../tools/mcp/servers.ts';
import { create, job, waitFor, world, type World } from './cancel-world.ts';

/** Far longer than any test: a call that is not cancelled does not end in time. */
const WAIT_MS = 30_000;

let web: HttpMcpServer;
let runner: McpToolRunner;

beforeAll(async () => {
  web = await startHttpMcpServer();
  runner = new McpToolRunner([http('web', web.url, { tools: ['wait'], timeoutMs: 60_000 })], {
    clientVersion: 'test',
    notice: () => undefined,
  });
  await runner.start();
  expect(runner.specs().map((t) => t.name)).toEqual(['web__wait']);
});

afterAll(async () => {
  await runner.close();
  await web.close();
});

const cases: readonly {
  readonly name: string;
  /** The agent whose task calls the tool. */
  readonly agent: string;
  readonly cancel: (w: World) => void;
  /**
   * Whether the kernel cancels (a `tool.cancel`, the task answered `agent_stopped`); a pause leaves the
   * kernel as it is for the next start, and the Runtime aborts the call itself.
   */
  readonly byKernel: boolean;
}[] = [
  { name: 'an agent stop (Runtime.stop)', agent: 'root', cancel: (w) => w.runtime.stop(), byKernel: true },
  { name: 'a pause (halt, the durable shutdown)', agent: 'root', cancel: (w) => w.runtime.halt(), byKernel: false },
  {
    name: 'a destroy of the child',
    agent: 'c1',
    cancel: (w) => expect(w.runtime.feed({ type: 'child.destroy', id: 'c1' })).toEqual({ kind: 'destroyed' }),
    byKernel: true,
  },
  {
    name: 'a reclaim of the child',
    agent: 'c1',
    cancel: (w) => w.runtime.submit(job('boss', 'root', 'reclaim c1')),
    byKernel: true,
  },
  {
    name: "a destroy of the child's parent",
    agent: 'g1',
    cancel: (w) => expect(w.runtime.feed({ type: 'child.destroy', id: 'c1' })).toEqual({ kind: 'destroyed' }),
    byKernel: true,
  },
];

describe('Runtime: an MCP call in flight is cancelled at the server', () => {
  it.each(cases)('$name sends notifications/cancelled and settles the call as cancelled', async (c) => {
    const w = world(new SystemClock(), { tools: () => runner, toolSpecs: runner.specs() });
    create(w, 'c1');
    create(w, 'g1', 'c1');
    const waiting = web.waiting;
    const cancelled = web.cancelled;
    w.runtime.submit(job('job', c.agent, `use web__wait {"ms":${WAIT_MS}}`));
    await waitFor(() => (web.waiting === waiting + 1 ? true : null));
    c.cancel(w);

    await waitFor(() => (w.seen.settled.length > 0 ? true : null));
    expect(w.seen.settled).toEqual([{ call: 'tool job', result: { ok: false, output: 'web__wait cancelled' } }]);
    await waitFor(() => (web.cancelled === cancelled + 1 ? true : null));
    const run = w.commands.find((cmd) => cmd.type === 'tool.run' && cmd.task === 'job');
    const cancel = { type: 'tool.cancel', callId: run?.type === 'tool.run' ? run.callId : '' };
    if (c.byKernel) {
      expect(w.commands).toContainEqual(cancel);
      expect(w.replies.get('job')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    } else {
      expect(w.commands).not.toContainEqual(cancel);
      expect(w.replies.has('job')).toBe(false);
    }
    await waitFor(() => (w.runtime.activity().tools === 0 ? true : null));
    expect(w.fatal).toEqual([]);
  });
});
