/**
 * The MCP tool runner as serve's tool source (docs/spec.md §13.3), against scripted in-process HTTP
 * servers: the offered specs (`<server>__<tool>`, the server's schema and description, the server's
 * parallel safety, config order), which names it owns, a refused call answered without sending, a
 * call's timeout bounded by the call's deadline (never below 1 ms), every notice passed on, and the
 * change listener told of exactly the notices that change what `specs()` answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../src/kernel/index.ts';
import type { McpNotice } from '../../../src/tools/mcp/mcp-notices.ts';
import { McpToolRunner } from '../../../src/tools/mcp/mcp-tools.ts';
import { startScriptedMcpServer, tool, type ScriptedMcpServer } from './scripted-mcp-server.ts';
import { http } from './servers.ts';

const NOW = 5_000_000;
const ctx = (deadlineMs = NOW + 60_000): ToolContext => ({
  agent: 'root',
  task: 't1',
  signal: new AbortController().signal,
  deadlineMs,
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let first: ScriptedMcpServer;
let second: ScriptedMcpServer;
let runner: McpToolRunner;
const notices: McpNotice[] = [];
const changes: string[][] = [];

beforeAll(async () => {
  first = await startScriptedMcpServer([
    tool('sum', {
      description: 'Adds.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    }),
    tool('slow'),
  ]);
  first.script.call = (name, args, signal) =>
    name === 'sum'
      ? { content: [{ type: 'text', text: `sum ${JSON.stringify(args)}` }] }
      : new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'late' }] }), 5000);
          signal.addEventListener('abort', () => clearTimeout(timer));
        });
  second = await startScriptedMcpServer([tool('b'), tool('a')]);
  runner = new McpToolRunner(
    [http('one', first.url, { timeoutMs: 5000 }), http('two', second.url, { parallelSafe: true, timeoutMs: 90 })],
    { clientVersion: 'test', notice: (n) => notices.push(n) },
    () => NOW,
  );
  runner.onToolsChanged(() => changes.push(runner.specs().map((t) => t.name)));
  await runner.start();
}, 20_000);

afterAll(async () => {
  await runner.close();
  await first.stop();
  await second.stop();
});

describe('McpToolRunner: what it offers and owns', () => {
  it('offers the tools of the servers that are up, in config order, as the model is told of them', () => {
    expect(runner.specs()).toEqual([
      {
        name: 'one__sum',
        description: 'Adds.',
        parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
        parallelSafe: false,
      },
      { name: 'one__slow', description: 'The tool slow.', parameters: { type: 'object' }, parallelSafe: false },
      { name: 'two__b', description: 'The tool b.', parameters: { type: 'object' }, parallelSafe: true },
      { name: 'two__a', description: 'The tool a.', parameters: { type: 'object' }, parallelSafe: true },
    ]);
  });

  it("owns every name of a configured server's, listed or not, and nothing else", () => {
    expect(runner.owns('one__sum')).toBe(true);
    expect(runner.owns('one__unlisted')).toBe(true);
    expect(runner.owns('two__unlisted')).toBe(true);
    expect(runner.owns('three__x')).toBe(false);
    expect(runner.owns('sum')).toBe(false);
  });

  it('passes every notice on, and told the listener of each server that became ready', () => {
    expect(notices.map((n) => `${n.type} ${n.server}`).sort()).toEqual(['ready one', 'ready two']);
    expect(changes).toHaveLength(2);
    expect(changes.at(-1)).toEqual(['one__sum', 'one__slow', 'two__b', 'two__a']);
  });

  it('tells the listener of a server that failed, and answers its calls with the reason', async () => {
    const seen: McpNotice[] = [];
    const told: string[][] = [];
    const alone = new McpToolRunner([http('away', 'http://127.0.0.1:1/mcp')], {
      clientVersion: 'test',
      notice: (n) => seen.push(n),
    });
    alone.onToolsChanged(() => told.push(alone.specs().map((t) => t.name)));
    await alone.start();
    expect(seen).toEqual([{ type: 'failed', server: 'away', error: 'fetch failed', retryInMs: 1000 }]);
    expect(told).toEqual([[]]);
    expect(alone.owns('away__x')).toBe(true);
    expect(await alone.run({ id: 'c1', name: 'away__x', args: '{}' }, ctx())).toEqual({
      ok: false,
      output: 'MCP server "away" is not available (it failed: fetch failed); serve retries it, try again later',
    });
    await alone.close();
  });
});

describe('McpToolRunner: calls', () => {
  it('sends a call with checked arguments to its server', async () => {
    expect(await runner.run({ id: 'c1', name: 'one__sum', args: '{"a":2}' }, ctx())).toEqual({
      ok: true,
      output: 'sum {"a":2}',
    });
  });

  it('answers a refused call without sending it', async () => {
    const before = first.calls;
    expect(await runner.run({ id: 'c1', name: 'one__sum', args: '{"a":"x"}' }, ctx())).toEqual({
      ok: false,
      output: 'invalid arguments for one__sum: /a must be number',
    });
    expect(await runner.run({ id: 'c1', name: 'three__sum', args: '{}' }, ctx())).toEqual({
      ok: false,
      output: 'tool "three__sum" is not an MCP server\'s',
    });
    expect(first.calls).toBe(before);
  });

  it("bounds a call by the server's timeoutMs", async () => {
    second.script.call = () => new Promise(() => undefined);
    expect(await runner.run({ id: 'c1', name: 'two__a', args: '{}' }, ctx())).toEqual({
      ok: false,
      output: 'two__a timed out after 90 ms',
    });
  });

  it("bounds a call by what is left before its deadline, by the runner's clock, and at least 1 ms", async () => {
    expect(await runner.run({ id: 'c1', name: 'one__slow', args: '{}' }, ctx(NOW + 120))).toEqual({
      ok: false,
      output: 'one__slow timed out after 120 ms',
    });
    expect(await runner.run({ id: 'c1', name: 'one__slow', args: '{}' }, ctx(NOW - 1000))).toEqual({
      ok: false,
      output: 'one__slow timed out after 1 ms',
    });
  });
});

describe('McpToolRunner: changes', () => {
  it('tells the listener of a changed tool list, but not of notices that change nothing offered', async () => {
    const before = changes.length;
    second.script.list = () => ({ tools: [tool('a')] });
    await second.notifyToolsChanged();
    await waitFor(() => notices.some((n) => n.type === 'tools.changed'));
    expect(changes.slice(before)).toEqual([['one__sum', 'one__slow', 'two__a']]);
    // A tool list that cannot be read again is an error notice: nothing offered changed.
    second.script.list = () => {
      throw new Error('locked');
    };
    await second.notifyToolsChanged();
    await waitFor(() => notices.some((n) => n.type === 'error' && n.server === 'two'));
    expect(changes.slice(before)).toHaveLength(1);
  });

  it('tells no listener once it is set to null', async () => {
    runner.onToolsChanged(null);
    const before = changes.length;
    second.script.list = () => ({ tools: [tool('c')] });
    await second.notifyToolsChanged();
    await waitFor(() => notices.filter((n) => n.type === 'tools.changed').length === 2);
    expect(changes).toHaveLength(before);
    expect(runner.specs().map((t) => t.name)).toEqual(['one__sum', 'one__slow', 'two__c']);
  });
});
