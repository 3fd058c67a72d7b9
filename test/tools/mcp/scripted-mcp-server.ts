/**
 * A Streamable HTTP MCP server for the tests whose answers the test writes: `tools/list` and
 * `tools/call` are answered by the functions in `script`, which a test may replace at any time. Made
 * with the SDK's low-level Server class on 127.0.0.1 (one session per client), so a test can page a
 * listing, list tools that the SDK's high-level server would refuse, fail a request, or send
 * notifications/tools/list_changed. `stop` closes the port (the server is gone); `restart` listens on
 * the same port again.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ListToolsResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpSessionHandler } from './mcp-http-sessions.ts';

export interface Script {
  list: (cursor: string | undefined) => ListToolsResult | Promise<ListToolsResult>;
  call: (name: string, args: Record<string, unknown>, signal: AbortSignal) => CallToolResult | Promise<CallToolResult>;
}

export interface ScriptedMcpServer {
  readonly url: string;
  readonly script: Script;
  /** `tools/list` requests answered so far, and the `tools/call` requests received. */
  readonly lists: number;
  readonly calls: number;
  /** Sends notifications/tools/list_changed on every session. */
  notifyToolsChanged(): Promise<void>;
  /** Closes the port and every connection: the server is gone. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

/** A tool as tools/list answers it; the schema is an object schema unless given. */
export function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, description: `The tool ${name}.`, inputSchema: { type: 'object' }, ...extra };
}

export async function startScriptedMcpServer(tools: readonly Tool[] = []): Promise<ScriptedMcpServer> {
  const script: Script = {
    list: () => ({ tools: [...tools] }),
    call: (name) => ({ content: [{ type: 'text', text: `called ${name}` }] }),
  };
  const counts = { lists: 0, calls: 0 };
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();

  const make = (): Server => {
    const server = new Server(
      { name: 'scripted', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (req) => {
      counts.lists += 1;
      return script.list(req.params?.cursor);
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      counts.calls += 1;
      return script.call(req.params.name, req.params.arguments ?? {}, extra.signal);
    });
    return server;
  };

  const http: HttpServer = createServer(mcpSessionHandler(sessions, make));
  const listen = (port: number): Promise<void> =>
    new Promise<void>((resolve) => {
      http.listen(port, '127.0.0.1', resolve);
    });
  await listen(0);
  const port = (http.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    script,
    get lists() {
      return counts.lists;
    },
    get calls() {
      return counts.calls;
    },
    async notifyToolsChanged() {
      for (const { server } of sessions.values()) await server.sendToolListChanged();
    },
    async stop() {
      for (const { server } of sessions.values()) await server.close();
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
    restart: () => listen(port),
  };
}
