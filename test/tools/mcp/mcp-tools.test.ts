/**
 * The MCP tool runner (docs/spec.md §13.3) against real servers: the reference `everything` and
 * `filesystem` servers over stdio, a server that dies mid-call, and a Streamable HTTP server made with
 * the SDK's own classes. Naming, allow-list, argument checks that send nothing, results (text, other
 * content summarized, isError, cut), timeout, cancellation reaching the server, tool-list changes,
 * and a server that is away answering at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../src/kernel/index.ts';
import { McpToolRunner } from '../../../src/tools/mcp/mcp-tools.ts';
import { noticeText, type McpNotice } from '../../../src/tools/mcp/mcp-notices.ts';
import { startHttpMcpServer, type HttpMcpServer } from './http-mcp-server.ts';
import { CRASHING, EVERYTHING, FILESYSTEM, http, stdio } from './servers.ts';

function ctx(signal = new AbortController().signal) {
  return { agent: 'root', task: 't1', signal, deadlineMs: Date.now() + 60_000 };
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let dir: string;
let web: HttpMcpServer;
let runner: McpToolRunner;
const notices: McpNotice[] = [];
/** What `specs()` offered each time the runner said its tools changed, by offered name. */
const changes: string[][] = [];
/**
 * A call of the server that cannot start, made when its first failure is announced: the connection retries
 * after a backoff, and a call made later may find it starting again.
 */
let absentAnswer: Promise<ToolResult> | undefined;
const call = (name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> =>
  runner.run({ id: 'c', name, args: typeof args === 'string' ? args : JSON.stringify(args) }, ctx(signal));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-mcp-'));
  writeFileSync(join(dir, 'note.txt'), 'buy milk');
  web = await startHttpMcpServer();
  runner = new McpToolRunner(
    [
      stdio('everything', [EVERYTHING], {
        tools: ['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation', 'no-such-tool'],
      }),
      stdio('files', [FILESYSTEM, dir], { tools: ['read_text_file', 'list_directory'] }),
      stdio('crashy', [CRASHING]),
      http('web', web.url, { timeoutMs: 300 }),
      stdio('absent', ['/nonexistent/mcp-server.js']),
    ],
    {
      clientVersion: 'test',
      notice: (n) => {
        notices.push(n);
        if (n.type === 'failed' && n.server === 'absent') absentAnswer ??= call('absent__anything', {});
      },
    },
  );
  await runner.start();
  runner.onToolsChanged(() => changes.push(runner.specs().map((t) => t.name)));
}, 30_000);

afterAll(async () => {
  await runner.close();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('MCP tools: discovery', () => {
  it('offers each allowed tool as <server>__<tool> with the server JSON Schema', () => {
    const names = runner.specs().map((s) => s.name);
    expect(names.filter((n) => n.startsWith('everything__'))).toEqual([
      'everything__echo',
      'everything__get-sum',
      'everything__get-tiny-image',
      'everything__trigger-long-running-operation',
    ]);
    expect(names.filter((n) => n.startsWith('files__')).sort()).toEqual([
      'files__list_directory',
      'files__read_text_file',
    ]);
    expect(names).toContain('web__add');
    expect(names).toContain('crashy__echo');
    const sum = runner.specs().find((s) => s.name === 'everything__get-sum');
    expect(sum?.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(sum?.parallelSafe).toBe(false);
  });

  it('says which allowed tool the server does not list, and which server failed to start', () => {
    const lines = notices.map(noticeText);
    expect(lines).toContain(
      'MCP server "everything": the tool "no-such-tool" is not offered: the server does not list it',
    );
    const failed = notices.find((n) => n.type === 'failed' && n.server === 'absent');
    expect(failed).toBeDefined();
    expect(noticeText(failed as McpNotice)).toMatch(/^MCP server "absent" failed: .*retrying in 1000 ms$/);
  });

  it('forwards each stderr line of a stdio server, named by the server', () => {
    expect(notices).toContainEqual({
      type: 'stderr',
      server: 'everything',
      line: 'Starting default (STDIO) server...',
    });
  });
});

describe('MCP tools: calls', () => {
  it('answers the text content of a call', async () => {
    expect(await call('everything__get-sum', { a: 2, b: 3 })).toEqual({ ok: true, output: 'The sum of 2 and 3 is 5.' });
    expect(await call('files__read_text_file', { path: join(dir, 'note.txt') })).toEqual({
      ok: true,
      output: 'buy milk',
    });
    expect(await call('web__add', { a: 1, b: 2 })).toEqual({ ok: true, output: '3' });
  });

  it('a schema mismatch is a tool error naming the field, and nothing is sent', async () => {
    const before = web.calls;
    expect(await call('web__add', { a: 'one', b: 2 })).toEqual({
      ok: false,
      output: 'invalid arguments for web__add: /a must be number',
    });
    expect(await call('web__add', { a: 1 })).toEqual({
      ok: false,
      output: 'invalid arguments for web__add: /b is required',
    });
    expect(await call('web__add', '{"a":')).toMatchObject({
      ok: false,
      output: expect.stringMatching(/^invalid arguments for web__add: not JSON/),
    });
    expect(web.calls).toBe(before);
  });

  it('summarizes other content by type and size; isError is a failed result; a big result is cut', async () => {
    const image = await call('everything__get-tiny-image', {});
    expect(image.ok).toBe(true);
    expect(image.output).toMatch(
      /^Here's the image you requested:\n\[image image\/png, \d+ bytes\]\nThe image above is the MCP logo\.$/,
    );
    expect(await call('web__picture', {})).toEqual({ ok: true, output: '[image image/png, 10 bytes]\na picture' });
    expect(await call('web__fails', {})).toEqual({ ok: false, output: 'the disk is full' });
    const big = await call('web__big', {});
    expect(big.ok).toBe(true);
    expect(big.output.endsWith(`\n[cut: the result had ${2 << 20} bytes; the first ${1 << 20} are kept]`)).toBe(true);
  });

  it('a tool the allow-list leaves out runs nothing', async () => {
    expect(await call('everything__get-env', {})).toEqual({
      ok: false,
      output: 'MCP server "everything" does not offer the tool "get-env"',
    });
  });

  it('timeoutMs fails a call and cancels it at the server', async () => {
    const before = web.cancelled;
    expect(await call('web__wait', { ms: 5000 })).toEqual({ ok: false, output: 'web__wait timed out after 300 ms' });
    await waitFor(() => web.cancelled === before + 1);
  });

  it('a cancelled call sends notifications/cancelled and ends at once', async () => {
    const before = web.cancelled;
    const controller = new AbortController();
    const pending = call('web__wait', { ms: 200 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ ok: false, output: 'web__wait cancelled' });
    await waitFor(() => web.cancelled === before + 1);
    const long = new AbortController();
    const started = Date.now();
    const op = call('everything__trigger-long-running-operation', { duration: 30, steps: 30 }, long.signal);
    setTimeout(() => long.abort(), 100);
    expect(await op).toEqual({ ok: false, output: 'everything__trigger-long-running-operation cancelled' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('re-reads the tool list on notifications/tools/list_changed', async () => {
    web.addTool('late');
    await waitFor(() => notices.some((n) => n.type === 'tools.changed' && n.server === 'web'));
    expect(notices).toContainEqual({ type: 'tools.changed', server: 'web', added: ['late'], removed: [] });
    expect(await call('web__late', {})).toEqual({ ok: true, output: 'late' });
    expect(changes.at(-1)).toContain('web__late');
  });
});

describe('MCP tools: servers that fail', () => {
  it('a server that failed to start answers an error naming it at once', async () => {
    const result = await absentAnswer;
    expect(result?.ok).toBe(false);
    expect(result?.output).toMatch(/^MCP server "absent" is not available \(it failed: .*\); serve retries it/);
  });

  it('a server that dies mid-call fails the call, is logged, and comes back after a backoff', async () => {
    expect(await call('crashy__echo', { text: 'before' })).toEqual({ ok: true, output: 'before' });
    const result = await call('crashy__crash', {});
    expect(result).toEqual({ ok: false, output: 'MCP server "crashy" stopped during the call of crashy__crash' });
    expect(notices).toContainEqual({ type: 'stderr', server: 'crashy', line: 'crashing on purpose' });
    expect(notices.filter((n) => n.type === 'failed' && n.server === 'crashy')).toHaveLength(1);
    expect((await call('crashy__echo', { text: 'x' })).output).toMatch(/^MCP server "crashy" is not available/);
    await waitFor(() => notices.filter((n) => n.type === 'ready' && n.server === 'crashy').length === 2, 8000);
    expect(await call('crashy__echo', { text: 'after' })).toEqual({ ok: true, output: 'after' });
    // Serve was told when the dead server's tools left what specs() offers and when they came back (and of
    // the other servers' events too: the absent server's retries fail on their own clock).
    const crashy = changes
      .map((names) => names.includes('crashy__echo'))
      .filter((offered, i, all) => i === 0 || offered !== all[i - 1]);
    expect(crashy.slice(-3)).toEqual([true, false, true]);
  }, 15_000);

  it('an HTTP server that goes away fails the call, is logged and retried', async () => {
    const gone = await startHttpMcpServer();
    const seen: McpNotice[] = [];
    const alone = new McpToolRunner([http('gone', gone.url)], { clientVersion: 'test', notice: (n) => seen.push(n) });
    await alone.start();
    await gone.close();
    const result = await alone.run({ id: 'c', name: 'gone__add', args: '{"a":1,"b":2}' }, ctx());
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^MCP server "gone" failed the call of gone__add: /);
    expect(seen.filter((n) => n.type === 'failed')).toEqual([
      expect.objectContaining({ server: 'gone', retryInMs: 1000 }),
    ]);
    expect((await alone.run({ id: 'c', name: 'gone__add', args: '{"a":1,"b":2}' }, ctx())).output).toMatch(
      /^MCP server "gone" is not available/,
    );
    await alone.close();
  });
});
