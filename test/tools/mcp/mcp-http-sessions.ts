/**
 * The HTTP side of the MCP test servers: one session per client, made on its initialize request and
 * found again by its `mcp-session-id` header, as a real Streamable HTTP server keeps them. Anything
 * else is a 404; a handler that throws answers 500.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** What a session needs of the SDK's server classes (`Server` and `McpServer` both have it). */
export interface Connectable {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
}

export type Sessions<S> = Map<string, { readonly transport: StreamableHTTPServerTransport; readonly server: S }>;

/** The request handler; `onBody` sees each request's JSON body as it arrives, before the SDK does. */
export function mcpSessionHandler<S extends Connectable>(
  sessions: Sessions<S>,
  make: () => S,
  onBody: (body: unknown) => void = () => undefined,
): RequestListener {
  return (req, res) => {
    void (async () => {
      const sessionId = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      onBody(body);
      const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (session !== undefined) {
        await session.transport.handleRequest(req, res, body);
        return;
      }
      if (sessionId === undefined && req.method === 'POST' && isInitializeRequest(body)) {
        const server = make();
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
