/**
 * serve's shutdown (docs/spec.md §13.1, docs/http-api.md "Shutdown") with three calls in flight at once:
 * the root's model call, a resident's command-line tool and another resident's MCP tool. Each is
 * aborted at its port — the provider's AbortSignal, the tool's process gone, notifications/cancelled at
 * the MCP server — whether the server pauses (durability on: `halt`) or stops the root (`--no-journal`),
 * and every open request is answered as the docs say.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { alive, reasonOf, waitFor } from '../runtime/cancel-world.ts';
import { startHttpMcpServer, type HttpMcpServer } from '../tools/mcp/http-mcp-server.ts';
import { http } from '../tools/mcp/servers.ts';
import { postJson, startTestServer } from './support.ts';

const USAGE = { inputTokens: 3, outputTokens: 2 };

/**
 * Scripted by a task's first user message: `use <tool> <json>` calls that tool; anything else streams
 * nothing until its call is aborted. Every abort is written down with its reason.
 */
class HangingProvider implements Provider {
  readonly started: string[] = [];
  readonly aborted: { readonly task: string; readonly reason: string }[] = [];

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    signal.addEventListener('abort', () => this.aborted.push({ task: request.task, reason: reasonOf(signal) }), {
      once: true,
    });
    this.started.push(request.task);
    await Promise.resolve();
    const said = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const use = /^use (\S+) (.*)$/s.exec(said);
    if (use !== null && request.replyIndex === 0) {
      yield { type: 'tool_call', index: 0, id: 'c1', name: use[1] ?? '', argsDelta: use[2] ?? '' };
      yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
      return;
    }
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    throw signal.reason;
  }
}

let web: HttpMcpServer;
let dir: string;

beforeAll(async () => {
  web = await startHttpMcpServer();
  dir = mkdtempSync(join(tmpdir(), 'homeagent-shutdown-cancel-'));
});

afterAll(async () => {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: a shutdown aborts the model call, the command tool and the MCP tool in flight', () => {
  it.each([
    { durable: true, mode: 'a pause (durability on)' },
    { durable: false, mode: 'a stop (--no-journal)' },
  ])('$mode', async ({ durable }) => {
    const pidFile = join(dir, `pid-${durable}`);
    const pid = (): number => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN);
    const provider = new HangingProvider();
    const s = await startTestServer(
      {
        durable,
        channels: [
          { name: 'jobs', plugin: 'jobs' },
          { name: 'chores', plugin: 'chores' },
        ],
        residents: [
          { id: 'worker', inputChs: ['jobs'] },
          { id: 'helper', inputChs: ['chores'] },
        ],
        tools: [
          {
            name: 'probe',
            description: 'runs until stopped',
            parameters: { type: 'object' },
            command: ['sh', '-c', `echo $$ > '${pidFile}.tmp'; mv '${pidFile}.tmp' '${pidFile}'; exec sleep 30`],
          },
        ],
        mcpServers: [http('web', web.url, { tools: ['wait'], timeoutMs: 60_000 })],
      },
      provider,
    );
    try {
      const waiting = web.waiting;
      const cancelled = web.cancelled;
      const model = postJson(`${s.url}/v1/inputs`, { text: 'think it over' });
      const command = postJson(`${s.url}/v1/inputs`, { text: 'use probe {}', channel: 'jobs' });
      const mcp = postJson(`${s.url}/v1/inputs`, { text: 'use web__wait {"ms":30000}', channel: 'chores' });
      await waitFor(() => (provider.started.length >= 3 && Number.isInteger(pid()) ? true : null));
      await waitFor(() => (web.waiting === waiting + 1 ? true : null));
      const running = pid();
      expect(alive(running)).toBe(true);
      const rootTask = provider.started.find((task) => !task.startsWith('worker') && !task.startsWith('helper'));

      const startedMs = Date.now();
      await s.server.shutdown('test shutdown');
      expect(Date.now() - startedMs).toBeLessThan(5000);

      // At the ports: the model call's signal, the process, the MCP server.
      expect(provider.aborted).toEqual([{ task: rootTask, reason: 'cancelled by the kernel' }]);
      await waitFor(() => (alive(running) ? null : true));
      await waitFor(() => (web.cancelled === cancelled + 1 ? true : null));

      // At the clients: a pause answers 503 with the task's state, a stop answers the terminal.
      for (const answer of await Promise.all([model, command, mcp])) {
        const body: unknown = await answer.json();
        if (durable) {
          expect(answer.status).toBe(503);
          expect(answer.headers.get('retry-after')).toBe('5');
          expect(body).toMatchObject({ state: 'running' });
        } else {
          expect(answer.status).toBe(200);
          expect(body).toMatchObject({ terminal: 'skipped', reason: 'agent_stopped' });
        }
      }
      expect(s.logs.filter((l) => l.startsWith('FATAL'))).toEqual([]);
    } finally {
      await s.stop();
      const left = pid();
      if (Number.isInteger(left) && alive(left)) process.kill(left, 'SIGKILL');
    }
  });
});
