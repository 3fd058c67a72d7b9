/**
 * In-process servers for the server tests: `createServer` on 127.0.0.1 with an ephemeral port, a
 * temporary data directory, the log kept in memory, no terminal. HTTP goes through the real sockets
 * (fetch, node:http, net) exactly as a client's would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Provider } from '../../src/kernel/index.ts';
import {
  createServer,
  type RunningServer,
  type ServerIo,
  type ShutdownResult,
} from '../../src/server/create-server.ts';
import { DEFAULT_JOURNAL_POLICY } from '../../src/server/journal-policy.ts';
import type { ServeSettings } from '../../src/server/settings.ts';

export interface TestServer {
  readonly url: string;
  readonly dir: string;
  readonly logs: string[];
  readonly server: RunningServer;
  /** The terminal channel's input and output (used when `terminal` is on). */
  readonly stdin: PassThrough;
  readonly stdout: PassThrough;
  /** Shuts down (idempotent) and removes the data directory. */
  stop(): Promise<ShutdownResult>;
}

/** The settings of a test server with its data under `dir`: a demo model on 127.0.0.1, an ephemeral port. */
export function testSettings(dir: string, overrides: Partial<ServeSettings> = {}): ServeSettings {
  return {
    model: { kind: 'demo' },
    host: '127.0.0.1',
    port: 0,
    token: null,
    bodyTimeoutMs: 2000,
    maxWatchers: 16,
    allowedHosts: [],
    dataDir: join(dir, 'data'),
    durable: true,
    journalPolicy: DEFAULT_JOURNAL_POLICY,
    journal: null,
    trace: null,
    logFormat: 'json',
    terminal: false,
    tools: [],
    mcpServers: [],
    timers: [],
    builtinPlugins: [],
    kernel: {},
    channels: [],
    outputs: [],
    residents: [],
    ...overrides,
  };
}

/**
 * `createServer` as a library user calls it, for the tests of starts that may fail: the data under
 * `dir`, nothing logged, no terminal. Unlike startTestServer it leaves the directory and the server to
 * the test.
 */
export function createQuietServer(
  dir: string,
  overrides: Partial<ServeSettings>,
  openOutputFile?: ServerIo['openOutputFile'],
): Promise<RunningServer> {
  return createServer(testSettings(dir, overrides), {
    log: () => undefined,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    env: {},
    onFatal: () => undefined,
    ...(openOutputFile === undefined ? {} : { openOutputFile }),
  });
}

export async function startTestServer(
  overrides: Partial<ServeSettings> = {},
  provider?: Provider,
  io: Partial<Pick<ServerIo, 'openOutputFile' | 'env' | 'logStream'>> = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-server-'));
  const settings = testSettings(dir, overrides);
  const logs: string[] = [];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = await createServer(settings, {
    log: (line) => logs.push(line),
    stdin,
    stdout,
    env: {},
    onFatal: (err) => logs.push(`FATAL ${String(err)}`),
    ...(provider === undefined ? {} : { provider }),
    ...io,
  });
  let stopped: Promise<ShutdownResult> | null = null;
  return {
    url: server.url,
    dir,
    logs,
    server,
    stdin,
    stdout,
    stop: () => {
      stopped ??= (async () => {
        const result = await server.shutdown('test over');
        await server.closeConnections(200);
        rmSync(dir, { recursive: true, force: true });
        return result;
      })();
      return stopped;
    },
  };
}

export interface SseEvent {
  readonly event: string | null;
  readonly id: string | null;
  readonly data: string;
}

/** Parses a whole SSE body (events separated by blank lines; comments skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    let event: string | null = null;
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, id, data: data.join('\n') });
  }
  return events;
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Writes a request's bytes as they are on a fresh connection to the server at `url`, and resolves once
 * the server closes it: the status, and the body after the head.
 */
export function rawRequest(
  url: string,
  text: string,
  encoding: BufferEncoding = 'utf8',
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(Buffer.from(text, encoding)));
    let received = '';
    socket.on('data', (part: Buffer) => (received += part.toString('utf8')));
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, body: received.slice(received.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
}

/** Resolves once `condition` holds, checking every 10 ms; throws after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A JSON log line of serve's own (`serve.<what>`), with its fields. */
export interface ServeLine {
  readonly type: string;
  readonly message: string;
  readonly [field: string]: unknown;
}

/** The `serve.<what>` lines of a JSON log, parsed, in order. */
export function serveLines(logs: readonly string[], what: string): ServeLine[] {
  return logs.flatMap((line) => {
    if (!line.includes(`"serve.${what}"`)) return [];
    const parsed = JSON.parse(line) as ServeLine;
    return parsed.type === `serve.${what}` ? [parsed] : [];
  });
}
