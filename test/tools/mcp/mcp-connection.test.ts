/**
 * One MCP server as serve holds it (docs/spec.md §13.3), against a scripted Streamable HTTP server in
 * this process and small stdio programs: a paged listing (and its page cap), the allow-list, names the
 * model cannot be offered, schemas that cannot be compiled, each way a call ends (result, tool gone,
 * cancelled before or during, timed out, the server's error, the connection closing, the server gone),
 * the state a call is answered from (starting, down, stopping), tool-list changes and their failure,
 * retries with backoff, and a stdio server's stderr lines, environment, directory and stop.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnection, RETRY_MS_FIRST, RETRY_MS_MAX } from '../../../src/tools/mcp/mcp-connection.ts';
import type { McpServerConfig } from '../../../src/tools/mcp/mcp-config.ts';
import type { McpNotice } from '../../../src/tools/mcp/mcp-notices.ts';
import { startScriptedMcpServer, tool, type ScriptedMcpServer } from './scripted-mcp-server.ts';
import { http, stdio } from './servers.ts';

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const live = (): AbortSignal => new AbortController().signal;

/** A connection with its notices; closed by `closeAll` after each group. */
const open: McpConnection[] = [];
function connection(config: McpServerConfig): { c: McpConnection; notices: McpNotice[] } {
  const notices: McpNotice[] = [];
  const c = new McpConnection(config, { clientVersion: 'test', notice: (n) => notices.push(n) });
  open.push(c);
  return { c, notices };
}
async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

describe('McpConnection: listing', () => {
  let server: ScriptedMcpServer;
  beforeAll(async () => {
    server = await startScriptedMcpServer();
  });
  afterAll(async () => {
    await closeAll();
    await server.stop();
  });

  it('reads every page, in order, and offers each tool with its description and schema', async () => {
    const schema = { type: 'object' as const, properties: { n: { type: 'number' } } };
    server.script.list = (cursor) =>
      cursor === undefined
        ? { tools: [tool('a'), tool('b', { inputSchema: schema })], nextCursor: 'p2' }
        : cursor === 'p2'
          ? { tools: [], nextCursor: 'p3' }
          : { tools: [tool('c', { description: undefined })] };
    const { c, notices } = connection(http('srv', server.url));
    const before = server.lists;
    await c.start();
    expect(server.lists - before).toBe(3);
    expect(notices).toEqual([{ type: 'ready', server: 'srv', tools: ['a', 'b', 'c'] }]);
    expect(c.name).toBe('srv');
    expect(c.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual([
      { name: 'a', description: 'The tool a.', inputSchema: { type: 'object' } },
      { name: 'b', description: 'The tool b.', inputSchema: schema },
      { name: 'c', description: '', inputSchema: { type: 'object' } },
    ]);
    expect(c.tools().every((t) => typeof t.validate === 'function')).toBe(true);
  });

  it('stops reading after 100 pages, keeping what they listed', async () => {
    server.script.list = (cursor) => {
      const page = cursor === undefined ? 0 : Number(cursor);
      return { tools: [tool(`t${page}`)], nextCursor: String(page + 1) };
    };
    const { c, notices } = connection(http('srv', server.url));
    const before = server.lists;
    await c.start();
    expect(server.lists - before).toBe(100);
    expect(c.tools().map((t) => t.name)).toEqual(Array.from({ length: 100 }, (_, i) => `t${i}`));
    expect(notices.map((n) => n.type)).toEqual(['ready']);
  });

  it('offers only the allow-listed tools, and names those the server does not list', async () => {
    server.script.list = () => ({ tools: [tool('a'), tool('b'), tool('bad.name')] });
    const { c, notices } = connection(http('srv', server.url, { tools: ['b', 'gone', 'a', 'also-gone'] }));
    await c.start();
    expect(c.tools().map((t) => t.name)).toEqual(['a', 'b']);
    expect(notices).toEqual([
      { type: 'tool.skipped', server: 'srv', tool: 'gone', why: 'the server does not list it' },
      { type: 'tool.skipped', server: 'srv', tool: 'also-gone', why: 'the server does not list it' },
      { type: 'ready', server: 'srv', tools: ['a', 'b'] },
    ]);
  });

  it('skips a tool whose offered name is not 1 to 64 letters, digits, "_" or "-"', async () => {
    const longest = 'x'.repeat(64 - 'srv__'.length);
    server.script.list = () => ({ tools: [tool('has.dot'), tool(longest), tool(`${longest}y`), tool('ok_-9')] });
    const { c, notices } = connection(http('srv', server.url));
    await c.start();
    expect(c.tools().map((t) => t.name)).toEqual([longest, 'ok_-9']);
    expect(notices).toEqual([
      {
        type: 'tool.skipped',
        server: 'srv',
        tool: 'has.dot',
        why: '"srv__has.dot" is not 1 to 64 letters, digits, "_" or "-"',
      },
      {
        type: 'tool.skipped',
        server: 'srv',
        tool: `${longest}y`,
        why: `"srv__${longest}y" is not 1 to 64 letters, digits, "_" or "-"`,
      },
      { type: 'ready', server: 'srv', tools: [longest, 'ok_-9'] },
    ]);
  });

  it('offers a tool whose schema cannot be compiled, unchecked, and says so', async () => {
    server.script.list = () => ({
      tools: [tool('odd', { inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }), tool('fine')],
    });
    const { c, notices } = connection(http('srv', server.url));
    await c.start();
    expect(c.tools().map((t) => [t.name, t.validate === null])).toEqual([
      ['odd', true],
      ['fine', false],
    ]);
    expect(notices).toEqual([
      {
        type: 'error',
        server: 'srv',
        error:
          'the input schema of "odd" cannot be compiled (schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf); its arguments are sent unchecked',
      },
      { type: 'ready', server: 'srv', tools: ['odd', 'fine'] },
    ]);
  });
});

describe('McpConnection: calls', () => {
  let server: ScriptedMcpServer;
  let c: McpConnection;
  let notices: McpNotice[];
  beforeAll(async () => {
    server = await startScriptedMcpServer([tool('echo'), tool('slow'), tool('broken')]);
    server.script.call = (name, args, signal) => {
      if (name === 'echo') return { content: [{ type: 'text', text: JSON.stringify(args) }] };
      if (name === 'broken') throw new Error('n is odd');
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'slow done' }] }), 5000);
        signal.addEventListener('abort', () => clearTimeout(timer));
      });
    };
    ({ c, notices } = connection(http('srv', server.url, { timeoutMs: 5000 })));
    await c.start();
  });
  afterAll(async () => {
    await closeAll();
    await server.stop();
  });

  it('answers the result of a listed tool, with the arguments sent as given', async () => {
    expect(await c.call('echo', { a: [1, 'x'] }, 1000, live())).toEqual({ ok: true, output: '{"a":[1,"x"]}' });
  });

  it('answers a tool that is not listed now without sending it', async () => {
    const before = server.calls;
    expect(await c.call('nope', {}, 1000, live())).toEqual({
      ok: false,
      output: 'MCP server "srv" does not offer the tool "nope" now',
    });
    expect(server.calls).toBe(before);
  });

  it('sends nothing for a call cancelled before it starts', async () => {
    const before = server.calls;
    const controller = new AbortController();
    controller.abort();
    expect(await c.call('echo', {}, 1000, controller.signal)).toEqual({
      ok: false,
      output: 'cancelled before it started',
    });
    expect(server.calls).toBe(before);
  });

  it('ends a call at its timeout', async () => {
    expect(await c.call('slow', {}, 100, live())).toEqual({ ok: false, output: 'srv__slow timed out after 100 ms' });
  });

  it('ends a call when it is cancelled', async () => {
    const controller = new AbortController();
    const pending = c.call('slow', {}, 5000, controller.signal);
    await waitFor(() => server.calls > 0);
    setTimeout(() => {
      controller.abort();
    }, 50);
    expect(await pending).toEqual({ ok: false, output: 'srv__slow cancelled' });
  });

  it("answers the server's protocol error as a failed call, and the server stays up", async () => {
    expect(await c.call('broken', {}, 1000, live())).toEqual({
      ok: false,
      output: 'MCP server "srv" failed the call of srv__broken: MCP error -32603: n is odd',
    });
    expect(notices.filter((n) => n.type !== 'ready')).toEqual([]);
    expect(await c.call('echo', {}, 1000, live())).toEqual({ ok: true, output: '{}' });
  });

  it('a call still running when serve stops the server ends as stopped during the call', async () => {
    const pending = c.call('slow', {}, 5000, live());
    await new Promise((r) => setTimeout(r, 50));
    await c.close();
    expect(await pending).toEqual({ ok: false, output: 'MCP server "srv" stopped during the call of srv__slow' });
    expect(c.tools()).toEqual([]);
    expect(await c.call('echo', {}, 1000, live())).toEqual({
      ok: false,
      output: 'MCP server "srv" is not available (serve is stopping); serve retries it, try again later',
    });
    expect(notices.map((n) => n.type)).toEqual(['ready']);
  });
});

describe('McpConnection: states', () => {
  let server: ScriptedMcpServer;
  beforeAll(async () => {
    server = await startScriptedMcpServer([tool('a')]);
  });
  afterAll(async () => {
    await closeAll();
    await server.stop();
  });

  it('is starting before start and until the listing ends, and offers nothing meanwhile', async () => {
    let release = (): void => undefined;
    server.script.list = () =>
      new Promise((resolve) => {
        release = () => resolve({ tools: [tool('a')] });
      });
    const { c, notices } = connection(http('srv', server.url));
    const starting = 'MCP server "srv" is not available (it is starting); serve retries it, try again later';
    expect(c.unavailable()).toBe(starting);
    const started = c.start();
    await waitFor(() => server.lists > 0);
    expect(c.unavailable()).toBe(starting);
    expect(c.tools()).toEqual([]);
    expect(await c.call('a', {}, 1000, live())).toEqual({ ok: false, output: starting });
    release();
    await started;
    expect(c.tools().map((t) => t.name)).toEqual(['a']);
    expect(notices.map((n) => n.type)).toEqual(['ready']);
  });

  it('stopped while it starts: the start ends without a notice and nothing is offered', async () => {
    server.script.list = () => new Promise(() => undefined);
    const { c, notices } = connection(http('srv', server.url));
    const started = c.start();
    await new Promise((r) => setTimeout(r, 100));
    await c.close();
    await started;
    expect(notices).toEqual([]);
    expect(c.tools()).toEqual([]);
    expect(c.unavailable()).toBe(
      'MCP server "srv" is not available (serve is stopping); serve retries it, try again later',
    );
  });

  it('once stopped, it is never started again', async () => {
    server.script.list = () => ({ tools: [tool('a')] });
    const { c, notices } = connection(http('srv', server.url));
    await c.close();
    const before = server.lists;
    await c.start();
    expect(server.lists).toBe(before);
    expect(notices).toEqual([]);
    expect(c.tools()).toEqual([]);
  });
});

describe('McpConnection: tool-list changes', () => {
  let server: ScriptedMcpServer;
  afterAll(async () => {
    await closeAll();
    await server.stop();
  });

  it('reads the list again on notifications/tools/list_changed and says what was added and removed', async () => {
    server = await startScriptedMcpServer([tool('a'), tool('b')]);
    const { c, notices } = connection(http('srv', server.url));
    await c.start();
    server.script.list = () => ({ tools: [tool('b'), tool('c'), tool('d')] });
    await server.notifyToolsChanged();
    await waitFor(() => notices.length === 2);
    expect(notices[1]).toEqual({ type: 'tools.changed', server: 'srv', added: ['c', 'd'], removed: ['a'] });
    expect(c.tools().map((t) => t.name)).toEqual(['b', 'c', 'd']);
    expect(await c.call('a', {}, 1000, live())).toEqual({
      ok: false,
      output: 'MCP server "srv" does not offer the tool "a" now',
    });
    expect(await c.call('d', {}, 1000, live())).toEqual({ ok: true, output: 'called d' });
  });

  it('keeps the tools it had when the list cannot be read again, and says why', async () => {
    server.script.list = () => {
      throw new Error('the catalogue is locked');
    };
    const { c, notices } = connection(http('other', server.url));
    server.script.list = () => ({ tools: [tool('x')] });
    await c.start();
    server.script.list = () => {
      throw new Error('the catalogue is locked');
    };
    await server.notifyToolsChanged();
    await waitFor(() => notices.some((n) => n.type === 'error'));
    expect(notices.filter((n) => n.server === 'other')).toEqual([
      { type: 'ready', server: 'other', tools: ['x'] },
      {
        type: 'error',
        server: 'other',
        error: 'cannot list its tools again: MCP error -32603: the catalogue is locked',
      },
    ]);
    expect(c.tools().map((t) => t.name)).toEqual(['x']);
  });

  it('checks the arguments of a relisted tool whose schema has an $id', async () => {
    const schema = { $id: 'https://example.com/tools/sum.json', type: 'object' as const, required: ['a'] };
    server.script.list = () => ({ tools: [tool('sum', { inputSchema: { ...schema } })] });
    const { c, notices } = connection(http('ids', server.url));
    await c.start();
    await server.notifyToolsChanged();
    await waitFor(() => notices.some((n) => n.type === 'tools.changed'));
    expect(notices.filter((n) => n.server === 'ids')).toEqual([
      { type: 'ready', server: 'ids', tools: ['sum'] },
      { type: 'tools.changed', server: 'ids', added: [], removed: [] },
    ]);
    expect(c.tools()[0]?.validate).not.toBeNull();
  });
});

describe('McpConnection: failures and retries', () => {
  afterAll(closeAll);

  it('has the backoff of the spec', () => {
    expect([RETRY_MS_FIRST, RETRY_MS_MAX]).toEqual([1000, 60_000]);
  });

  it('retries after a second, doubles the wait after each failure in a row, and starts again from a second once back', async () => {
    const server = await startScriptedMcpServer([tool('a')]);
    await server.stop();
    const { c, notices } = connection(http('srv', server.url));
    // A second server, stopped while it is down: it is never tried again.
    const other = connection(http('other', server.url));
    await Promise.all([c.start(), other.c.start()]);
    expect(notices).toEqual([{ type: 'failed', server: 'srv', error: 'fetch failed', retryInMs: 1000 }]);
    expect(c.unavailable()).toBe(
      'MCP server "srv" is not available (it failed: fetch failed); serve retries it, try again later',
    );
    await other.c.close();
    await server.restart();
    await waitFor(() => notices.length === 2, 3000);
    expect(notices[1]).toEqual({ type: 'ready', server: 'srv', tools: ['a'] });
    // Gone again: the call fails and marks it down, a second after, as a first failure.
    await server.stop();
    expect(await c.call('a', {}, 1000, live())).toEqual({
      ok: false,
      output: 'MCP server "srv" failed the call of srv__a: fetch failed',
    });
    expect(notices.filter((n) => n.type === 'failed').at(-1)).toEqual({
      type: 'failed',
      server: 'srv',
      error: 'fetch failed',
      retryInMs: 1000,
    });
    await waitFor(() => notices.filter((n) => n.type === 'failed').length === 3, 3000);
    expect(notices.filter((n) => n.type === 'failed').at(-1)).toEqual({
      type: 'failed',
      server: 'srv',
      error: 'fetch failed',
      retryInMs: 2000,
    });
    expect(other.notices).toEqual([{ type: 'failed', server: 'other', error: 'fetch failed', retryInMs: 1000 }]);
  }, 10_000);
});

describe('McpConnection: stdio servers', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'homeagent-mcp-conn-')));
  });
  afterAll(async () => {
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A program that writes `text` to stderr and then waits, ignoring its stdin closing. */
  const writer = (text: string): string[] => [
    '-e',
    `process.stderr.write(${JSON.stringify(text)}); setInterval(() => {}, 1000)`,
  ];
  const lines = (notices: readonly McpNotice[]): string[] =>
    notices.flatMap((n) => (n.type === 'stderr' && n.server === 'proc' ? [n.line] : []));

  it('forwards each non-blank stderr line, without its CR, cut to 4096 characters', async () => {
    const { c, notices } = connection(stdio('proc', writer(`one\r\n\n  \r\ntwo\n${'y'.repeat(5000)}\nthree`)));
    void c.start();
    await waitFor(() => lines(notices).length === 3);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines(notices)).toEqual(['one', 'two', 'y'.repeat(4096)]);
  });

  it('cuts an endless stderr line at 4096 characters and drops the rest of what is pending', async () => {
    const script = `process.stderr.write('z'.repeat(5000)); setTimeout(() => process.stderr.write('tail\\n'), 100); setInterval(() => {}, 1000)`;
    const { c, notices } = connection(stdio('proc', ['-e', script]));
    void c.start();
    await waitFor(() => lines(notices).length === 2);
    expect(lines(notices)).toEqual(['z'.repeat(4096), 'tail']);
  });

  it('starts the program with the configured environment, and in its directory or serve’s', async () => {
    const report = [
      '-e',
      "process.stderr.write('cwd=' + process.cwd() + '\\nfoo=' + process.env.FOO + '\\n'); setInterval(() => {}, 1000)",
    ];
    const inDir = connection(
      stdio('proc', report, {
        transport: { kind: 'stdio', command: process.execPath, args: report, env: { FOO: 'bar' }, cwd: dir },
      }),
    );
    const here = connection(stdio('proc', report));
    void inDir.c.start();
    void here.c.start();
    await waitFor(() => lines(inDir.notices).length === 2 && lines(here.notices).length === 2);
    expect(lines(inDir.notices)).toEqual([`cwd=${dir}`, 'foo=bar']);
    expect(lines(here.notices)).toEqual([`cwd=${process.cwd()}`, 'foo=undefined']);
  });

  it('stops a program that lingers after its stdin closed with SIGTERM, soon', async () => {
    const { c, notices } = connection(stdio('proc', writer('up\n')));
    const started = c.start();
    await waitFor(() => lines(notices).length === 1);
    const closing = Date.now();
    await c.close();
    await started;
    expect(Date.now() - closing).toBeLessThan(1500);
    expect(notices.filter((n) => n.type !== 'stderr')).toEqual([]);
  });

  it('a program that cannot start fails with the error of its spawn', async () => {
    const { c, notices } = connection({
      ...stdio('proc', []),
      transport: { kind: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {}, cwd: null },
    });
    await c.start();
    expect(notices).toEqual([
      { type: 'failed', server: 'proc', error: 'spawn /nonexistent/mcp-server ENOENT', retryInMs: 1000 },
    ]);
  });
});
