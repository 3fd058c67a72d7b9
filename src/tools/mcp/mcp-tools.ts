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
import { admitCall, splitName } from './mcp-call.ts';
import { offeredName, type McpServerConfig } from './mcp-config.ts';
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
    return splitName(name, this.servers) !== null;
  }

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const admitted = admitCall(call, this.servers);
    if (admitted.kind === 'refused') return Promise.resolve({ ok: false, output: admitted.output });
    const { server, tool, args } = admitted;
    const timeoutMs = Math.max(1, Math.min(server.config.timeoutMs, ctx.deadlineMs - this.now()));
    return server.call(tool, args, timeoutMs, ctx.signal);
  }

  /** Stops every stdio server and leaves every HTTP one; nothing is retried after. */
  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.close()));
  }
}
