/**
 * One MCP server as serve holds it (docs/spec.md §13.3): started over stdio or reached over Streamable
 * HTTP with the official SDK's client, its tools listed, its calls made, its failures survived.
 *
 * Theory of operation. A connection is in one of five states: `idle` before `start`, `connecting`
 * (spawning or reaching it, `initialize`, `tools/list`, bounded by MCP_LIST_TIMEOUT_MS), `ready` (its
 * listed tools, narrowed by the allow-list, with their compiled argument checks), `down` (its last
 * error, a retry armed with backoff) and `closed` (serve is stopping: nothing is retried). A call is
 * answered from the state at once: only a `ready` server is sent anything, so the kernel never waits on
 * a server that is away. Every client belongs to one generation; a close or a tool-list notice of an
 * older client is ignored, so a dead server's last words cannot disturb its successor.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../kernel/index.ts';
import { SchemaCompiler, type ArgumentsValidator } from './mcp-arguments.ts';
import {
  CONNECTION_LOST,
  notOffered,
  stoppedDuringCall,
  timedOut,
  unavailableText,
  type CallableServer,
} from './mcp-call.ts';
import {
  MCP_LIST_TIMEOUT_MS,
  OFFERED_TOOL_NAME,
  offeredName,
  RETRY_MS_FIRST,
  RETRY_MS_MAX,
  type McpServerConfig,
} from './mcp-config.ts';
import type { McpNotice } from './mcp-notices.ts';
import { toToolResult } from './mcp-result.ts';

export { RETRY_MS_FIRST, RETRY_MS_MAX };
/** A stdio server that has not exited this long after its stdin closed is sent SIGTERM. */
const CLOSE_GRACE_MS = 300;
/** A stderr line is cut to this many characters, so one endless line cannot flood the log. */
const STDERR_LINE_CHARS_MAX = 4096;
/** `tools/list` pages read at most: a server that pages forever still ends its listing. */
const LIST_PAGES_MAX = 100;

export interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly validate: ArgumentsValidator;
}

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'connecting'; readonly client: Client; readonly transport: Transport }
  | {
      readonly kind: 'ready';
      readonly client: Client;
      readonly transport: Transport;
      readonly tools: ReadonlyMap<string, ListedTool>;
    }
  | { readonly kind: 'down'; readonly error: string; readonly retry: NodeJS.Timeout }
  | { readonly kind: 'closed' };

export interface ConnectionOptions {
  readonly clientVersion: string;
  readonly notice: (n: McpNotice) => void;
}

export class McpConnection implements CallableServer {
  private state: State = { kind: 'idle' };
  private generation = 0;
  private failuresInARow = 0;
  private readonly schemas = new SchemaCompiler();

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Connects and lists the tools; resolves once the server is ready or has failed (never rejects). */
  start(): Promise<void> {
    return this.connect();
  }

  /** The offered tools, by the server's own names, in its listing order; empty unless ready. */
  tools(): readonly ListedTool[] {
    return this.state.kind === 'ready' ? [...this.state.tools.values()] : [];
  }

  /** Calls a tool whose arguments are already checked; resolves (never rejects) with the outcome. */
  async call(tool: string, args: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<ToolResult> {
    const name = offeredName(this.config.name, tool);
    const state = this.state;
    if (state.kind !== 'ready') return { ok: false, output: this.unavailable() };
    if (!state.tools.has(tool)) return { ok: false, output: `${notOffered(this.config.name, tool)} now` };
    if (signal.aborted) return { ok: false, output: 'cancelled before it started' };
    const generation = this.generation;
    try {
      // The signal's abort makes the SDK send notifications/cancelled; so does the timeout.
      const result = await state.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
      });
      return toToolResult(result);
    } catch (err) {
      if (signal.aborted) return { ok: false, output: `${name} cancelled` };
      if (err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout))
        return { ok: false, output: timedOut(this.config.name, tool, timeoutMs) };
      if (err instanceof McpError && err.code === Number(ErrorCode.ConnectionClosed))
        return { ok: false, output: stoppedDuringCall(this.config.name, tool) };
      // An HTTP server that went away shows only as failed requests (no process exits): the request
      // failing below the protocol (not an McpError) marks it down, to be retried like a dead stdio server.
      if (!(err instanceof McpError) && this.config.transport.kind === 'http') this.lost(generation, errorText(err));
      return { ok: false, output: `MCP server "${this.config.name}" failed the call of ${name}: ${errorText(err)}` };
    }
  }

  /** The tool error of a call while the server is not ready. */
  unavailable(): string {
    const s = this.state;
    const why =
      s.kind === 'down' ? `it failed: ${s.error}` : s.kind === 'closed' ? 'serve is stopping' : 'it is starting';
    return unavailableText(this.config.name, why);
  }

  /** Stops the server (stdio) or leaves it (HTTP); nothing is retried after. */
  async close(): Promise<void> {
    const s = this.state;
    this.state = { kind: 'closed' };
    this.generation += 1;
    if (s.kind === 'down') clearTimeout(s.retry);
    if (s.kind === 'connecting' || s.kind === 'ready') await closeClient(s.client, s.transport);
  }

  private async connect(): Promise<void> {
    if (this.state.kind === 'closed') return;
    this.generation += 1;
    const generation = this.generation;
    const transport = this.transport();
    const client = new Client({ name: 'homeagent', version: this.options.clientVersion }, { capabilities: {} });
    client.onclose = () => this.lost(generation, CONNECTION_LOST);
    client.onerror = (err) => {
      if (generation === this.generation && this.state.kind === 'ready')
        this.options.notice({ type: 'error', server: this.config.name, error: errorText(err) });
    };
    this.state = { kind: 'connecting', client, transport };
    const deadline = AbortSignal.timeout(MCP_LIST_TIMEOUT_MS);
    try {
      await client.connect(transport, { signal: deadline, timeout: MCP_LIST_TIMEOUT_MS });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.relist(generation));
      const tools = await this.list(client, deadline);
      if (generation !== this.generation) return;
      this.state = { kind: 'ready', client, transport, tools };
      this.failuresInARow = 0;
      this.options.notice({ type: 'ready', server: this.config.name, tools: [...tools.keys()] });
    } catch (err) {
      if (generation !== this.generation) return;
      const error = deadline.aborted ? `no tool list within ${MCP_LIST_TIMEOUT_MS} ms` : errorText(err);
      this.fail(error);
      await closeClient(client, transport);
    }
  }

  private transport(): Transport {
    const t = this.config.transport;
    switch (t.kind) {
      case 'stdio': {
        const transport = new StdioClientTransport({
          command: t.command,
          args: [...t.args],
          env: { ...t.env },
          ...(t.cwd === null ? {} : { cwd: t.cwd }),
          stderr: 'pipe',
        });
        forwardLines(transport, (line) => this.options.notice({ type: 'stderr', server: this.config.name, line }));
        return transport;
      }
      case 'http':
        return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: { ...t.headers } } });
    }
  }

  /** Every listed tool the allow-list keeps and the model can be offered, by its own name. */
  private async list(client: Client, signal: AbortSignal): Promise<Map<string, ListedTool>> {
    const tools = new Map<string, ListedTool>();
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES_MAX; page += 1) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: MCP_LIST_TIMEOUT_MS,
      });
      for (const tool of listed.tools) {
        const kept = this.keep(tool.name, tool.inputSchema);
        if (kept !== null) tools.set(tool.name, { ...kept, name: tool.name, description: tool.description ?? '' });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    const allowed = this.config.tools;
    for (const name of allowed ?? [])
      if (!tools.has(name))
        this.options.notice({
          type: 'tool.skipped',
          server: this.config.name,
          tool: name,
          why: 'the server does not list it',
        });
    return tools;
  }

  private keep(
    name: string,
    inputSchema: Readonly<Record<string, unknown>>,
  ): Pick<ListedTool, 'inputSchema' | 'validate'> | null {
    const allowed = this.config.tools;
    if (allowed !== null && !allowed.includes(name)) return null;
    const skip = (why: string): null => {
      this.options.notice({ type: 'tool.skipped', server: this.config.name, tool: name, why });
      return null;
    };
    if (!OFFERED_TOOL_NAME.test(offeredName(this.config.name, name)))
      return skip(`"${offeredName(this.config.name, name)}" is not 1 to 64 letters, digits, "_" or "-"`);
    const { validate, error } = this.schemas.compile(inputSchema);
    if (error !== null)
      this.options.notice({
        type: 'error',
        server: this.config.name,
        error: `the input schema of "${name}" cannot be compiled (${error}); its arguments are sent unchecked`,
      });
    return { inputSchema, validate };
  }

  /** `notifications/tools/list_changed`: the list is read again; removed tools answer an error. */
  private async relist(generation: number): Promise<void> {
    const s = this.state;
    if (generation !== this.generation || s.kind !== 'ready') return;
    try {
      const tools = await this.list(s.client, AbortSignal.timeout(MCP_LIST_TIMEOUT_MS));
      const now = this.state;
      if (generation !== this.generation || now.kind !== 'ready') return;
      this.state = { ...now, tools };
      const added = [...tools.keys()].filter((t) => !now.tools.has(t));
      const removed = [...now.tools.keys()].filter((t) => !tools.has(t));
      this.options.notice({ type: 'tools.changed', server: this.config.name, added, removed });
    } catch (err) {
      if (generation === this.generation)
        this.options.notice({
          type: 'error',
          server: this.config.name,
          error: `cannot list its tools again: ${errorText(err)}`,
        });
    }
  }

  /** The server closed or died: once for its generation, it is marked down and retried. */
  private lost(generation: number, why: string): void {
    if (generation !== this.generation || this.state.kind !== 'ready') return;
    this.fail(why);
  }

  private fail(error: string): void {
    this.failuresInARow += 1;
    const retryInMs = Math.min(RETRY_MS_MAX, RETRY_MS_FIRST * 2 ** (this.failuresInARow - 1));
    const generation = this.generation;
    const retry = setTimeout(() => {
      if (generation === this.generation && this.state.kind === 'down') void this.connect();
    }, retryInMs);
    // A pending retry never keeps serve's process alive.
    retry.unref();
    this.state = { kind: 'down', error, retry };
    this.options.notice({ type: 'failed', server: this.config.name, error, retryInMs });
  }
}

/** Closes a client; a stdio server that lingers after its stdin closed is sent SIGTERM. */
async function closeClient(client: Client, transport: Transport): Promise<void> {
  const pid = transport instanceof StdioClientTransport ? transport.pid : null;
  const term = setTimeout(() => {
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // It has exited already.
    }
  }, CLOSE_GRACE_MS);
  try {
    await client.close();
  } catch {
    // A transport that fails to close has nothing left to close.
  } finally {
    clearTimeout(term);
  }
}

/** Sends each stderr line of a stdio server to `line`, cut to STDERR_LINE_CHARS_MAX. */
function forwardLines(transport: StdioClientTransport, line: (text: string) => void): void {
  let pending = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const text = pending.slice(0, newline).replace(/\r$/, '');
      if (text.trim() !== '') line(text.slice(0, STDERR_LINE_CHARS_MAX));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > STDERR_LINE_CHARS_MAX) {
      line(pending.slice(0, STDERR_LINE_CHARS_MAX));
      pending = '';
    }
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
