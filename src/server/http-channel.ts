/**
 * The HTTP channel (docs/spec.md §13.1) on node:http: routing, the Host check, the bearer token, and
 * the server's limits.
 *
 * A server bound to a loopback address first checks the `Host` header of every request, the live
 * page and `/healthz` included (host-check.ts): a foreign name is 403, so a DNS-rebinding page cannot
 * reach a server that has no token.
 *
 * Every `/v1/*` route needs `Authorization: Bearer <token>` when a token is configured (401
 * otherwise); `/healthz` never does, so a load balancer can probe it, nor does `/`, the live page,
 * which holds no data and asks for the token itself. The token is compared in
 * constant time, on digests, so neither its content nor its length leaks through timing.
 *
 * Limits: a request's headers must arrive within the body timeout, and its body within it too
 * (http-io.ts answers 408); node's own request timeout backs both up. A route that throws is a bug:
 * it is answered 500 and logged, and the server goes on.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postChatCompletion } from './chat-completions.ts';
import { getEvents } from './events-route.ts';
import { sendError, sendJson } from './http-io.ts';
import type { HostCheck } from './host-check.ts';
import { getLivePage } from './live-page.ts';
import { getModels, modelObject, MODELS_PATH, type ModelObject } from './models-route.ts';
import { getTask, getTaskEvents, postInput, postInterrupt, type TaskPorts } from './task-routes.ts';
import type { TraceFeed } from './trace-feed.ts';

export interface HttpPorts extends TaskPorts {
  readonly token: string | null;
  /** The Host check of a loopback server; null when bound elsewhere (the token guards it). */
  readonly hostCheck: HostCheck | null;
  /** The body of `GET /v1/status`. */
  status(): unknown;
  /** The trace as it happens, for `GET /v1/events`. */
  readonly feed: TraceFeed;
  /** The most `GET /v1/events` streams open at once. */
  readonly maxWatchers: number;
  /** A route failed unexpectedly (a bug): logged by the server. */
  routeFailed(route: string, err: unknown): void;
}

const TASK_PATH = /^\/v1\/tasks\/([^/]+)(\/events)?$/;
/** The methods of a route that reads: HEAD answers like GET, without the body. */
const READ = 'GET, HEAD';
/** Node checks its own request timeouts this often (its default, 30 s, would make them imprecise). */
const CONNECTION_CHECK_MS = 1000;

export class HttpChannel {
  private readonly server: Server;
  private readonly tokenDigest: Buffer | null;
  private readonly model: ModelObject = modelObject(Date.now());

  constructor(private readonly ports: HttpPorts) {
    this.tokenDigest = ports.token === null ? null : digest(ports.token);
    this.server = createServer({ connectionsCheckingInterval: CONNECTION_CHECK_MS }, (req, res) =>
      this.handle(req, res),
    );
    this.server.headersTimeout = ports.bodyTimeoutMs;
    // Stryker disable next-line ArithmeticOperator: node expires no request before its headers timeout (the body timeout), so a smaller value acts the same
    this.server.requestTimeout = ports.bodyTimeoutMs + CONNECTION_CHECK_MS;
  }

  /**
   * Listens; resolves with the address and port actually bound (port 0 picks a free one; `127.1` or
   * `localhost` is resolved to the address it names).
   */
  listen(host: string, port: number): Promise<{ readonly host: string; readonly port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        // Stryker disable next-line StringLiteral: a settled promise ignores a later reject; this only lets the listener go
        this.server.off('error', reject);
        const address = this.server.address() as AddressInfo;
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  /** Stops accepting connections and closes the idle ones; open requests are answered first. */
  stopAccepting(): void {
    this.server.close();
    this.server.closeIdleConnections();
  }

  /** Resolves when every connection is gone, or after `waitMs`, when the rest are cut. */
  closed(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.closeAllConnections();
        resolve();
      }, waitMs);
      timer.unref();
      this.server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // Stryker disable next-line StringLiteral: node:http gives a server's request its URL
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    // Stryker disable next-line StringLiteral: node:http gives a server's request its method
    const method = req.method ?? 'GET';
    this.route(req, res, method, path).catch((err: unknown) => {
      this.ports.routeFailed(`${method} ${path}`, err);
      if (!res.headersSent) sendError(res, 500, 'internal error; the server log has the details');
      else res.destroy();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse, method: string, path: string): Promise<void> {
    if (this.ports.hostCheck !== null && !this.ports.hostCheck.admits(req.headers.host)) return refuseHost(req, res);
    const read = method === 'GET' || method === 'HEAD';
    if (path === '/healthz') {
      if (!read) return notAllowed(res, READ);
      const down = this.ports.unavailable();
      const text = down === null ? 'ok' : `unavailable: ${down.code}: ${down.message}`;
      res.writeHead(down === null ? 200 : 503, {
        'content-type': 'text/plain; charset=utf-8',
        ...(down === null ? {} : { 'retry-after': String(down.retryAfterS) }),
      });
      res.end(text);
      return;
    }
    if (path === '/') {
      if (!read) return notAllowed(res, READ);
      return getLivePage(res);
    }
    if (!path.startsWith('/v1/')) return sendError(res, 404, `no route ${path}; the API lives under /v1/`);
    if (!this.authorized(req)) {
      return sendError(res, 401, 'missing or wrong bearer token; send Authorization: Bearer <token>', null, {
        'www-authenticate': 'Bearer',
      });
    }
    const ports = this.ports;
    switch (path) {
      case '/v1/inputs':
        return method === 'POST' ? postInput(req, res, ports) : notAllowed(res, 'POST');
      case '/v1/interrupts':
        return method === 'POST' ? postInterrupt(req, res, ports) : notAllowed(res, 'POST');
      case '/v1/chat/completions':
        return method === 'POST' ? postChatCompletion(req, res, ports) : notAllowed(res, 'POST');
      case '/v1/status':
        return read ? sendJson(res, 200, ports.status()) : notAllowed(res, READ);
      case '/v1/events':
        return read ? getEvents(req, res, ports.feed, ports.maxWatchers) : notAllowed(res, READ);
    }
    if (path === MODELS_PATH || path.startsWith(`${MODELS_PATH}/`))
      return read ? getModels(res, path, this.model) : notAllowed(res, READ);
    const task = TASK_PATH.exec(path);
    if (task === null) return sendError(res, 404, `no route ${path}`);
    if (!read) return notAllowed(res, READ);
    // Stryker disable next-line StringLiteral: the pattern's first group takes part in every match
    const id = decodeTaskId(task[1] ?? '');
    if (id === null) return sendError(res, 400, 'the task id in the path is not valid percent-encoding', 'task');
    if (task[2] === undefined) getTask(res, ports, id);
    else getTaskEvents(req, res, ports, id);
  }

  private authorized(req: IncomingMessage): boolean {
    if (this.tokenDigest === null) return true;
    // Stryker disable next-line StringLiteral: without the header nothing matches, as with an empty one
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match === null) return false;
    // Stryker disable next-line StringLiteral: the pattern's group takes part in every match
    return timingSafeEqual(digest(match[1] ?? ''), this.tokenDigest);
  }
}

function refuseHost(req: IncomingMessage, res: ServerResponse): void {
  const host = req.headers.host === undefined ? 'no Host header' : `the Host ${JSON.stringify(req.headers.host)}`;
  sendError(
    res,
    403,
    `${host} is not a name of this server; it answers loopback names (localhost, 127.0.0.1, [::1]) and the names listed in http.allowedHosts`,
    'Host',
  );
}

function notAllowed(res: ServerResponse, allowed: string): void {
  sendError(res, 405, `method not allowed; use ${allowed}`, null, { allow: allowed });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function decodeTaskId(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
