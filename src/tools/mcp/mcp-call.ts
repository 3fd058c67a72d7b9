/**
 * What happens to an MCP tool call before anything is sent, and the tool errors a call can end in
 * (docs/spec.md §13.3). serve's runner and the simulator's MCP-shaped servers both go through here, so a
 * scenario's model reads exactly the texts a production model reads.
 *
 * A call is routed by its name `<server>__<tool>` (server names never hold the separator, so the first
 * one splits), refused at once when its server is away or does not offer the tool, and its arguments
 * are checked against the tool's JSON Schema; only then is it sent.
 */
import type { ToolCall } from '../../kernel/index.ts';
import { checkArguments, type ArgumentsValidator } from './mcp-arguments.ts';
import { MCP_NAME_SEPARATOR, offeredName } from './mcp-config.ts';

/** Why a stdio server is down after its process exited (or an HTTP server hung up). */
export const CONNECTION_LOST = 'the connection closed (the server exited or hung up)';

/** A server as a call sees it: its name, the tools it offers now, and why it is away when it offers none. */
export interface CallableServer {
  readonly name: string;
  /** The listed tools, empty unless the server is up. */
  tools(): readonly { readonly name: string; readonly validate: ArgumentsValidator }[];
  /** The tool error of a call while the server is away. */
  unavailable(): string;
}

export type Admission<S extends CallableServer> =
  | { readonly kind: 'refused'; readonly output: string }
  | { readonly kind: 'send'; readonly server: S; readonly tool: string; readonly args: Record<string, unknown> };

/** The server and tool a call names, or null when no configured server's name starts it. */
export function splitName<S extends CallableServer>(
  name: string,
  servers: ReadonlyMap<string, S>,
): { server: S; tool: string } | null {
  const at = name.indexOf(MCP_NAME_SEPARATOR);
  if (at <= 0) return null;
  const server = servers.get(name.slice(0, at));
  return server === undefined ? null : { server, tool: name.slice(at + MCP_NAME_SEPARATOR.length) };
}

/** Routes and checks a call; what is refused is answered as a tool error without sending anything. */
export function admitCall<S extends CallableServer>(call: ToolCall, servers: ReadonlyMap<string, S>): Admission<S> {
  const target = splitName(call.name, servers);
  if (target === null) return { kind: 'refused', output: `tool "${call.name}" is not an MCP server's` };
  const { server, tool } = target;
  const listed = server.tools().find((t) => t.name === tool);
  if (listed === undefined) {
    const why = server.tools().length === 0 ? server.unavailable() : notOffered(server.name, tool);
    return { kind: 'refused', output: why };
  }
  const checked = checkArguments(call.args, listed.validate);
  if (checked.kind === 'invalid')
    return { kind: 'refused', output: `invalid arguments for ${call.name}: ${checked.problem}` };
  return { kind: 'send', server, tool, args: checked.args };
}

/** The tool error of a call while its server is not ready; `why` says what it is doing. */
export function unavailableText(server: string, why: string): string {
  return `MCP server "${server}" is not available (${why}); serve retries it, try again later`;
}

export function notOffered(server: string, tool: string): string {
  return `MCP server "${server}" does not offer the tool "${tool}"`;
}

/** A call whose server went away before it answered. */
export function stoppedDuringCall(server: string, tool: string): string {
  return `MCP server "${server}" stopped during the call of ${offeredName(server, tool)}`;
}

export function timedOut(server: string, tool: string, timeoutMs: number): string {
  return `${offeredName(server, tool)} timed out after ${timeoutMs} ms`;
}
