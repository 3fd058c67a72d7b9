/**
 * The ToolRunner serve gives the Runtime: it routes each call to the source that owns its name — the
 * command-line tools (§13.1) or the MCP servers (§13.3). Names never overlap: serve's settings refuse a
 * command tool named like an MCP server's tools (`<server>__…`).
 */
import type { ToolCall, ToolContext, ToolResult, ToolSpec } from '../kernel/index.ts';
import type { ToolSource } from './tool-source.ts';

export class CombinedToolRunner implements ToolSource {
  constructor(private readonly sources: readonly ToolSource[]) {}

  specs(): ToolSpec[] {
    return this.sources.flatMap((s) => s.specs());
  }

  owns(name: string): boolean {
    return this.sources.some((s) => s.owns(name));
  }

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const source = this.sources.find((s) => s.owns(call.name));
    if (source !== undefined) return source.run(call, ctx);
    const known = this.specs()
      .map((t) => t.name)
      .join(', ');
    return Promise.resolve({
      ok: false,
      output: `tool "${call.name}" is not configured${known === '' ? '' : `; configured tools: ${known}`}`,
    });
  }
}
