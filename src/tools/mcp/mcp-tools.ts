/**
 * MCP servers as a tool source of `serve` (docs/spec.md §13.3): a ToolRunner behind the kernel's port,
 * like the command-line tools. The kernel sees tools named `<server>__<tool>` with the servers' JSON
 * Schemas; nothing in it knows where they come from.
 *
 * `start` connects every configured server at once and resolves when each has listed its tools or
 * failed (MCP_LIST_TIMEOUT_MS each): serve prints `listening on` only after it. A call's arguments are
 * checked against its tool's schema before anything is sent; a call of a server that is away is
 * answered at once with an error naming it. Cancellation comes from the kernel through the call's
 * AbortSignal (an agent stopped, destroyed or reclaimed, or serve shutting down), and the SDK turns it
 * into `notifications/cancelled`.
 *
 * `specs()` changes while serve runs: a server that lists new tools (`notifications/tools/list_changed`),
 * comes back or goes away. `onToolsChanged` tells serve, which offers the new list to the model through
 * the kernel's door, so the journal records it.
 */
import type { ToolCall, ToolContext, ToolResult, ToolSpec } from '../../kernel/index.ts';
import type { ToolSource } from '../tool-source.ts';
import { checkArguments } from './mcp-arguments.ts';
import { MCP_NAME_SEPARATOR, offeredName, type McpServerConfig } from './mcp-config.ts';
import { McpConnection, type ConnectionOptions } from './mcp-connection.ts';

export class McpToolRunner implements ToolSource {
  private readonly servers: ReadonlyMap<string, McpConnection>;
  private changed: (() => void) | null = null;

  constructor(
    configs: readonly McpServerConfig[],
    options: ConnectionOptions,
    private readonly now: () => number = Date.now,
  ) {
    const notice: ConnectionOptions['notice'] = (n) => {
      options.notice(n);
      if (n.type === 'ready' || n.type === 'failed' || n.type === 'tools.changed') this.changed?.();
    };
    this.servers = new Map(configs.map((c) => [c.name, new McpConnection(c, { ...options, notice })]));
  }

  /**
   * `listener` is called after each change of what `specs()` may answer: a server is ready (again), failed
   * or listed its tools again. Called from the servers' events, never from inside a `run`; null stops it.
   */
  onToolsChanged(listener: (() => void) | null): void {
    this.changed = listener;
  }

  /** Connects every server; resolves once each is ready or has failed (never rejects). */
  async start(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.start()));
  }

  /** The tools of the servers that are ready, in config order, as the model is told of them. */
  specs(): ToolSpec[] {
    return [...this.servers.values()].flatMap((s) =>
      s.tools().map((t) => ({
        name: offeredName(s.config.name, t.name),
        description: t.description,
        parameters: t.inputSchema,
        parallelSafe: s.config.parallelSafe,
      })),
    );
  }

  /** Whether `name` is a configured server's (listed or not). */
  owns(name: string): boolean {
    return this.split(name) !== null;
  }

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const target = this.split(call.name);
    if (target === null) return Promise.resolve({ ok: false, output: `tool "${call.name}" is not an MCP server's` });
    const { server, tool } = target;
    const listed = server.tools().find((t) => t.name === tool);
    if (listed === undefined) {
      const why =
        server.tools().length === 0
          ? server.unavailable()
          : `MCP server "${server.config.name}" does not offer the tool "${tool}"`;
      return Promise.resolve({ ok: false, output: why });
    }
    const checked = checkArguments(call.args, listed.validate);
    if (checked.kind === 'invalid')
      return Promise.resolve({ ok: false, output: `invalid arguments for ${call.name}: ${checked.problem}` });
    const timeoutMs = Math.max(1, Math.min(server.config.timeoutMs, ctx.deadlineMs - this.now()));
    return server.call(tool, checked.args, timeoutMs, ctx.signal);
  }

  /** Stops every stdio server and leaves every HTTP one; nothing is retried after. */
  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.close()));
  }

  /** The server and its tool's own name; server names never hold the separator, so the first one splits. */
  private split(name: string): { server: McpConnection; tool: string } | null {
    const at = name.indexOf(MCP_NAME_SEPARATOR);
    if (at <= 0) return null;
    const server = this.servers.get(name.slice(0, at));
    return server === undefined ? null : { server, tool: name.slice(at + MCP_NAME_SEPARATOR.length) };
  }
}
