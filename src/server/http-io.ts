/**
 * The HTTP channel's request and response plumbing: reading a JSON body within its limits, and the
 * answers every route shares. Errors are answered, never left to a reset or a hang:
 *
 * - a content type other than JSON, or a charset other than UTF-8 → 415; a body over BODY_BYTES_MAX
 *   → 413, also when the client declares no length (counted while reading); malformed JSON → 400;
 * - a body that does not arrive within the body timeout (a client that never finishes) → 408, and the
 *   connection is closed;
 * - after an early answer (415, 413) the rest of the body — up to BODY_DRAIN_BYTES_MAX, within the body
 *   timeout — is read and dropped before the connection may close, so a client that is still sending
 *   reads the answer instead of a broken pipe; after a 408 the connection is closed at once.
 *
 * Error bodies have one shape on every route, OpenAI's: `{ error: { message, type, param } }`, with
 * `param` naming the field at fault, so an OpenAI client shows them as they are.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const BODY_BYTES_MAX = 1 << 20;
/** After an early answer at most this much of the rest of a body is read and dropped; a larger one is cut. */
export const BODY_DRAIN_BYTES_MAX = 8 << 20;

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: number; readonly message: string };

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Why new inputs are refused for now (503): a code for clients, a message for people, when to retry. */
export interface Unavailable {
  readonly code: string;
  readonly message: string;
  readonly retryAfterS: number;
}

/** 503 with `Retry-After`, the error naming its `code` (`journal_unwritable`). */
export function sendUnavailable(res: ServerResponse, why: Unavailable): void {
  sendJson(
    res,
    503,
    { error: { message: why.message, type: errorType(503), param: null, code: why.code } },
    { 'retry-after': String(why.retryAfterS) },
  );
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  param: string | null = null,
  headers: OutgoingHttpHeaders = {},
): void {
  sendJson(res, status, { error: { message, type: errorType(status), param } }, headers);
}

function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 404:
      return 'not_found_error';
    case 429:
      return 'rate_limit_error';
    default:
      return status >= 500 ? 'server_error' : 'invalid_request_error';
  }
}

/**
 * Why a request body of this content type is refused (415), or null for JSON in UTF-8: the media type
 * `application/json`, with no charset or `utf-8` (JSON is UTF-8, RFC 8259; a body in another charset
 * would be read as UTF-8 and its text changed without a word).
 */
export function contentTypeProblem(header: string | undefined): string | null {
  const got = header === undefined ? 'none' : JSON.stringify(header);
  const [media, ...params] = header?.split(';') ?? [];
  if (media?.trim().toLowerCase() !== 'application/json') return `Content-Type must be application/json, got ${got}`;
  for (const param of params) {
    const [name, value] = param.split('=', 2).map((part) => part.trim().toLowerCase());
    if (name !== 'charset') continue;
    const charset = value?.replace(/^"(.*)"$/, '$1');
    if (charset !== 'utf-8' && charset !== 'utf8')
      return `the body must be UTF-8 (send charset=utf-8 or no charset), got ${got}`;
  }
  return null;
}

/**
 * Reads and parses the JSON body. On an error the caller answers with the status and message given;
 * `settle` arranges for the rest of the body to be dropped and the connection closed once answered.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse, timeoutMs: number): Promise<BodyResult> {
  const typeProblem = contentTypeProblem(req.headers['content-type']);
  if (typeProblem !== null) return Promise.resolve(early(req, res, timeoutMs, 415, typeProblem));
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > BODY_BYTES_MAX) {
    return Promise.resolve(
      early(req, res, timeoutMs, 413, `the body is ${declared} bytes; at most ${BODY_BYTES_MAX} (1 MiB) are accepted`),
    );
  }
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    // Settles once: a later call (a client error after the answer) finds the promise settled.
    const finish = (result: BodyResult): void => {
      clearTimeout(timer);
      req.off('data', onData);
      // Stryker disable next-line StringLiteral: onEnd left on would only parse what was read and call finish, and the promise is settled
      req.off('end', onEnd);
      resolve(result);
    };
    const timer = setTimeout(() => {
      closeAfterAnswer(req, res);
      finish({ ok: false, status: 408, message: `the body did not arrive within ${timeoutMs} ms` });
    }, timeoutMs);
    const onData = (part: Buffer): void => {
      bytes += part.length;
      if (bytes > BODY_BYTES_MAX) {
        finish(early(req, res, timeoutMs, 413, `the body is over ${BODY_BYTES_MAX} bytes (1 MiB), the most accepted`));
        return;
      }
      parts.push(part);
    };
    const onEnd = (): void => {
      const text = Buffer.concat(parts).toString('utf8');
      try {
        finish({ ok: true, value: JSON.parse(text) as unknown });
      } catch (err) {
        finish({
          ok: false,
          status: 400,
          message: `the body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => finish({ ok: false, status: 400, message: 'the request body could not be read' }));
  });
}

/** An answer given before the body was read: the rest is dropped, for at most `timeoutMs`. */
function early(
  req: IncomingMessage,
  res: ServerResponse,
  timeoutMs: number,
  status: number,
  message: string,
): BodyResult {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > BODY_DRAIN_BYTES_MAX) closeAfterAnswer(req, res);
  else drainAfterAnswer(req, timeoutMs);
  return { ok: false, status, message };
}

/**
 * Reads and drops the rest of the body while the answer goes out, and keeps the connection: a client
 * that writes its whole body before it reads (Node's http client does) gets the answer instead of a
 * broken pipe, because the server does not close a socket with unread data on it. Once the body is
 * in, the connection serves the next request as usual. A client that sends more than
 * BODY_DRAIN_BYTES_MAX, or has not finished within `drainMs`, loses the connection.
 */
function drainAfterAnswer(req: IncomingMessage, drainMs: number): void {
  let dropped = 0;
  const cut = (): void => {
    req.socket.destroy();
  };
  const kill = setTimeout(cut, drainMs);
  kill.unref();
  req.on('data', (part: Buffer) => {
    dropped += part.length;
    if (dropped > BODY_DRAIN_BYTES_MAX) cut();
  });
  // A request emits 'close' once its whole body is in, and when its client went away before that.
  req.once('close', () => clearTimeout(kill));
  req.resume();
}

/**
 * Marks the connection to close after the answer, and drops what the client still sends meanwhile so
 * that it reads the answer rather than a reset. Node closes a connection marked so once its answer is
 * out. It is called before any answer has begun.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  req.resume();
}
