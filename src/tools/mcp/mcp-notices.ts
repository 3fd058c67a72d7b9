/**
 * What the MCP tool runner tells serve's log: one value per thing that happened to a server, each
 * turned into one line that names the server (docs/spec.md §13.3). The runner never logs by itself;
 * serve's logger redacts secrets from every line it writes.
 */
export type McpNotice =
  | { readonly type: 'ready'; readonly server: string; readonly tools: readonly string[] }
  | { readonly type: 'failed'; readonly server: string; readonly error: string; readonly retryInMs: number }
  | { readonly type: 'stderr'; readonly server: string; readonly line: string }
  | { readonly type: 'error'; readonly server: string; readonly error: string }
  | {
      readonly type: 'tools.changed';
      readonly server: string;
      readonly added: readonly string[];
      readonly removed: readonly string[];
    }
  | { readonly type: 'tool.skipped'; readonly server: string; readonly tool: string; readonly why: string };

/** The log line of a notice. */
export function noticeText(n: McpNotice): string {
  switch (n.type) {
    case 'ready':
      return `MCP server "${n.server}" is ready with ${n.tools.length} tools${n.tools.length === 0 ? '' : `: ${n.tools.join(', ')}`}`;
    case 'failed':
      return `MCP server "${n.server}" failed: ${n.error}; its tools answer an error until it is back, retrying in ${n.retryInMs} ms`;
    case 'stderr':
      return `${n.server}: ${n.line}`;
    case 'error':
      return `MCP server "${n.server}": ${n.error}`;
    case 'tools.changed':
      return (
        `MCP server "${n.server}" changed its tools (added: ${n.added.join(', ') || 'none'}; removed: ${n.removed.join(', ') || 'none'}); ` +
        'the model is offered the new list from its next call'
      );
    case 'tool.skipped':
      return `MCP server "${n.server}": the tool "${n.tool}" is not offered: ${n.why}`;
  }
}
