/**
 * A Streamable HTTP MCP server for the tests, made with the SDK's own server classes on 127.0.0.1 (one
 * session per client, as a real server keeps them). Its tools:
 *  - `add` {a: number, b: number}: the sum, as text;
 *  - `wait` {ms: number}: answers after `ms`, or never once cancelled; every call that reached the
 *    tool is counted in `waiting`, and every cancellation the server receives for one
 *    (notifications/cancelled aborts the handler's signal) in `cancelled`;
 *  - `whoami`: the `authorization` header it was sent, as text (to watch secrets being redacted);
 *  - `big`: 2 MiB of text; `fails`: a result with `isError`; `picture`: an image and a text.
 * `calls` counts the `tools/call` requests that reach the HTTP endpoint, whatever happens to them.
 * `addTool(name)` registers one more tool on every session, which sends notifications/tools/list_changed.
 */
import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { mcpSessionHandler } from './mcp-http-sessions.ts';

export interface HttpMcpServer {
  readonly url: string;
  /** Calls of `wait` that reached the tool: from then on a cancellation is counted. */
  readonly waiting: number;
  /** Calls of `wait` whose cancellation reached the server. */
  readonly cancelled: number;
  /** How many `tools/call` requests arrived at the endpoint. */
  readonly calls: number;
  addTool(name: string): void;
  close(): Promise<void>;
}

export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const state = { waiting: 0, cancelled: 0, calls: 0 };

  const make = (): McpServer => {
    const server = new McpServer({ name: 'test-http', version: '1.0.0' });
    server.registerTool('add', { description: 'Adds.', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => {
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    server.registerTool('wait', { description: 'Waits.', inputSchema: { ms: z.number() } }, ({ ms }, extra) => {
      state.waiting += 1;
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `waited ${ms} ms` }] }), ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          state.cancelled += 1;
        });
      });
    });
    server.registerTool('whoami', { description: 'Says who you are.' }, (extra) => {
      const auth = extra.requestInfo?.headers['authorization'];
      return { content: [{ type: 'text', text: `you sent ${String(auth)}` }] };
    });
    server.registerTool('big', { description: 'A lot of text.' }, () => ({
      content: [{ type: 'text', text: 'x'.repeat(2 << 20) }],
    }));
    server.registerTool('fails', { description: 'Always fails.' }, () => ({
      content: [{ type: 'text', text: 'the disk is full' }],
      isError: true,
    }));
    server.registerTool('picture', { description: 'A picture.' }, () => ({
      content: [
        { type: 'image', data: Buffer.from('0123456789').toString('base64'), mimeType: 'image/png' },
        { type: 'text', text: 'a picture' },
      ],
    }));
    return server;
  };

  const http: Server = createServer(
    // Counted as it arrives, before the SDK's own checks: the runner's checks must send nothing.
    mcpSessionHandler(sessions, make, (body) => {
      if (isToolCall(body)) state.calls += 1;
    }),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    get waiting() {
      return state.waiting;
    },
    get cancelled() {
      return state.cancelled;
    },
    get calls() {
      return state.calls;
    },
    addTool(name) {
      for (const { server } of sessions.values())
        server.registerTool(name, { description: 'Added later.' }, () => ({ content: [{ type: 'text', text: name }] }));
    },
    async close() {
      for (const { server } of sessions.values()) await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}
