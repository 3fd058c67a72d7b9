/**
 * What `serve` is told about one MCP server (docs/spec.md §13.3): how to reach it — a program to start
 * over stdio, or a Streamable HTTP URL — and how its tools are offered. serve's config file has the shape
 * other MCP hosts use (`mcpServers: { <name>: { command, args?, env?, cwd? } | { url, headers? } }`);
 * src/server turns it into these values, so this room needs no config parser.
 */

/** A call runs at most this long unless the server's `timeoutMs` says otherwise. */
export const MCP_TIMEOUT_MS_DEFAULT = 60_000;
/** Connecting and answering `tools/list` may take this long at start before the server counts as failed. */
export const MCP_LIST_TIMEOUT_MS = 10_000;
/** A server that failed is tried again this long after; each failure in a row doubles it, up to RETRY_MS_MAX. */
export const RETRY_MS_FIRST = 1000;
export const RETRY_MS_MAX = 60_000;
/** Between a server's name and its tool's in the name the model sees: `files__read_file`. */
export const MCP_NAME_SEPARATOR = '__';
/** A server's name: letters and digits with single `_` or `-` between them, so it never holds the separator. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*$/;
export const MCP_SERVER_NAME_CHARS_MAX = 32;
/** A name the model is offered: what the OpenAI and Anthropic tool APIs both accept. */
export const OFFERED_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type McpTransportConfig =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the few variables the SDK passes on (HOME, PATH, …): the server never sees serve's keys. */
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | null;
    }
  | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

export interface McpServerConfig {
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** The allow-list of the server's own tool names; null offers every tool it lists. */
  readonly tools: readonly string[] | null;
  readonly parallelSafe: boolean;
  readonly timeoutMs: number;
}

/** The name the model calls a server's tool by. */
export function offeredName(server: string, tool: string): string {
  return `${server}${MCP_NAME_SEPARATOR}${tool}`;
}
