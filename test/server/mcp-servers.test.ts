/**
 * `serve` with `mcpServers` (docs/spec.md §13.3): the reference servers over stdio and a Streamable HTTP
 * server are started before `listening on`; their tools reach the model as `<server>__<tool>` narrowed
 * by the allow-list; a call's result reaches the model; a schema mismatch sends nothing; a long-running
 * call is cancelled when its agent is destroyed and when serve shuts down; the values of `env` and
 * `headers` never reach the model, the log or the journal (§13.1a).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { startHttpMcpServer, type HttpMcpServer } from '../tools/mcp/http-mcp-server.ts';
import { EVERYTHING, FILESYSTEM, http, stdio } from '../tools/mcp/servers.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const ENV_SECRET = 'env-secret-8c1f2a9d';
const HEADER_SECRET = 'header-secret-77b3e0c4';
const USAGE = { inputTokens: 3, outputTokens: 2 };

/**
 * Scripted by a task's first user message: `call <tool> <json>` calls that tool, then says
 * `tool said: <result>`; `destroy <id>` destroys that resident; anything else is echoed.
 */
class McpScript implements Provider {
  private readonly scripts = new Map<string, string>();
  offered: readonly string[] = [];

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk, void, undefined> {
    await Promise.resolve();
    if (request.agent === 'root') this.offered = request.tools.map((t) => t.name);
    const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const said = this.scripts.get(request.task) ?? last;
    this.scripts.set(request.task, said);
    const call = /^call (\S+) (.*)$/s.exec(said);
    const destroy = /^destroy (\S+)$/.exec(said);
    if (request.replyIndex === 0 && (call !== null || destroy !== null)) {
      const [name, args] =
        call !== null
          ? [call[1] ?? '', call[2] ?? '']
          : ['resident_agents', JSON.stringify({ action: 'destroy', id: destroy?.[1] })];
      yield { type: 'tool_call', index: 0, id: 'c1', name, argsDelta: args };
      yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
      return;
    }
    const result = [...request.messages].reverse().find((m) => m.role === 'tool')?.content;
    yield { type: 'text', text: result === undefined ? `echo: ${said}` : `tool said: ${result}` };
    yield { type: 'done', finishReason: 'stop', usage: USAGE };
  }
}

let dir: string;
let journal: string;
let web: HttpMcpServer;
let s: TestServer;
const provider = new McpScript();

async function ask(text: string, channel?: string): Promise<{ terminal: string; reason?: string; reply: string }> {
  const res = await postJson(`${s.url}/v1/inputs`, channel === undefined ? { text } : { text, channel });
  return (await res.json()) as { terminal: string; reason?: string; reply: string };
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const toolStarted = (name: string, count = 1): boolean =>
  s.logs.filter((l) => l.includes('"type":"tool.start"') && l.includes(`"name":"${name}"`)).length >= count;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-serve-mcp-'));
  journal = join(dir, 'run.jsonl');
  writeFileSync(join(dir, 'note.txt'), 'buy milk');
  web = await startHttpMcpServer();
  s = await startTestServer(
    {
      journal,
      channels: [
        { name: 'jobs', plugin: 'jobs' },
        { name: 'chores', plugin: 'chores' },
      ],
      residents: [
        { id: 'worker', inputChs: ['jobs'] },
        { id: 'helper', inputChs: ['chores'] },
      ],
      mcpServers: [
        stdio('everything', [EVERYTHING], {
          tools: ['get-sum', 'get-env', 'trigger-long-running-operation'],
          transport: {
            kind: 'stdio',
            command: process.execPath,
            args: [EVERYTHING],
            env: { MCP_TEST_TOKEN: ENV_SECRET },
            cwd: null,
          },
        }),
        stdio('files', [FILESYSTEM, dir], { tools: ['read_text_file'] }),
        http('web', web.url, {
          tools: ['whoami', 'wait'],
          transport: { kind: 'http', url: web.url, headers: { Authorization: `Bearer ${HEADER_SECRET}` } },
        }),
        stdio('absent', ['/nonexistent/mcp-server.js']),
      ],
    },
    provider,
  );
}, 30_000);

afterAll(async () => {
  await s.stop();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve with MCP servers', () => {
  it('prints listening on only after every server has listed its tools or failed', () => {
    const start = s.logs.findIndex((l) => l.includes('"type":"serve.start"'));
    const settled = ['everything', 'files', 'web', 'absent'].map((server) =>
      s.logs.findIndex((l) => /"type":"serve\.mcp\.(ready|failed)"/.test(l) && l.includes(`"server":"${server}"`)),
    );
    expect(settled.every((i) => i >= 0 && i < start)).toBe(true);
    expect(s.logs[settled[3] ?? 0]).toMatch(/MCP server \\"absent\\" failed: .*retrying in 1000 ms/);
    expect(
      s.logs.some((l) => l.includes('"type":"serve.mcp.stderr"') && l.includes('everything: Starting default')),
    ).toBe(true);
  });

  it('a server that cannot start is logged as serve.mcp.failed, naming it (a start of its own)', async () => {
    // The shared server above starts in beforeAll, which no single test covers; this start is the test's.
    const alone = await startTestServer({ mcpServers: [stdio('absent', ['/nonexistent/mcp-server.js'])] });
    try {
      expect(serveLines(alone.logs, 'mcp.failed')).toEqual([
        expect.objectContaining({
          server: 'absent',
          message: expect.stringMatching(/^MCP server "absent" failed: .*retrying in 1000 ms/) as string,
        }),
      ]);
    } finally {
      await alone.stop();
    }
  });

  it('offers the allowed tools as <server>__<tool>, and a call result reaches the model', async () => {
    expect(await ask('call everything__get-sum {"a":2,"b":3}')).toMatchObject({
      terminal: 'done',
      reply: 'tool said: The sum of 2 and 3 is 5.',
    });
    // In config order, each server's tools in its own listing order.
    expect(provider.offered.filter((n) => n.includes('__'))).toEqual([
      'everything__get-env',
      'everything__get-sum',
      'everything__trigger-long-running-operation',
      'files__read_text_file',
      'web__wait',
      'web__whoami',
    ]);
    expect(await ask(`call files__read_text_file {"path":"${join(dir, 'note.txt')}"}`)).toMatchObject({
      reply: 'tool said: buy milk',
    });
  });

  it('a schema mismatch is a tool error the model sees, and nothing is sent', async () => {
    const before = web.calls;
    expect(await ask('call web__wait {"ms":"soon"}')).toMatchObject({
      terminal: 'done',
      reply: 'tool said: error: invalid arguments for web__wait: /ms must be number',
    });
    expect(web.calls).toBe(before);
  });

  it('a tool left out by the allow-list is unknown to the agent', async () => {
    expect((await ask('call everything__echo {"message":"hi"}')).reply).toMatch(
      /^tool said: error: unknown tool everything__echo/,
    );
  });

  it('env and header values are redacted from results, the log and the journal', async () => {
    const env = await ask('call everything__get-env {}');
    expect(env.reply).toContain('"MCP_TEST_TOKEN": "[redacted]"');
    expect(env.reply).not.toContain(ENV_SECRET);
    expect((await ask('call web__whoami {}')).reply).toBe('tool said: you sent [redacted]');
    const written = s.logs.join('\n') + readFileSync(journal, 'utf8');
    expect(written).not.toContain(ENV_SECRET);
    expect(written).not.toContain(HEADER_SECRET);
    expect(readFileSync(journal, 'utf8')).toContain('"env":["MCP_TEST_TOKEN"]');
  });

  it('a long-running call is cancelled when its agent is destroyed', async () => {
    const started = Date.now();
    const job = ask('call everything__trigger-long-running-operation {"duration":30,"steps":30}', 'jobs');
    await waitFor(() => toolStarted('everything__trigger-long-running-operation'));
    expect(await ask('destroy worker')).toMatchObject({ terminal: 'done' });
    expect(await job).toMatchObject({ terminal: 'skipped', reason: 'agent_stopped' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a shutdown cancels running calls: the server is told, and serve stops within 5 s', async () => {
    const before = web.cancelled;
    const chore = ask('call web__wait {"ms":30000}', 'chores');
    const op = ask('call everything__trigger-long-running-operation {"duration":30,"steps":30}');
    await waitFor(() => toolStarted('web__wait') && toolStarted('everything__trigger-long-running-operation', 2));
    const started = Date.now();
    await s.server.shutdown('test shutdown');
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await op).terminal).not.toBe('done');
    expect((await chore).terminal).not.toBe('done');
    await waitFor(() => web.cancelled === before + 1);
  });
});
