/**
 * The outcome every call of the generated MCP-shaped server must have (docs/spec.md §13.3, §3.8): its
 * arguments are checked against the tool's schema before it is sent, with serve's exact texts; a call
 * with valid arguments is never refused for them; a call answered with success carries the tool's
 * scripted result and lasted a duration its `durationMs` allows.
 */
import type { Report, ReportToolCall } from '../src/sim/report/index.ts';
import type { McpToolDef, Scenario } from '../src/sim/scenario/index.ts';
import { MCP_SERVER } from './scenario-vocabulary.ts';

/** The refusal a call's arguments must meet before the server sees it, or null for valid arguments. */
function argumentsRefusal(name: string, args: unknown): string | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return `invalid arguments for ${name}: expected a JSON object`;
  const n = (args as Record<string, unknown>)['n'];
  if (n === undefined) return `invalid arguments for ${name}: /n is required`;
  if (!Number.isInteger(n)) return `invalid arguments for ${name}: /n must be integer`;
  return null;
}

export function mcpProblems(scenario: Scenario, report: Report): string[] {
  const server = scenario.mcpServers?.find((s) => s.name === MCP_SERVER);
  const problems: string[] = [];
  const prefix = `${MCP_SERVER}__`;
  for (const [id, t] of Object.entries(report.tasks)) {
    for (const c of t.toolCalls) {
      if (!c.name.startsWith(prefix) || c.start === null || c.ok === null || c.result === null) continue;
      const wrong = (want: string): void => {
        problems.push(
          `${id}: ${c.name} ${JSON.stringify(c.args)} at ${c.start} gave ${JSON.stringify(c.result)}; expected ${want}`,
        );
      };
      const refusal = argumentsRefusal(c.name, c.args);
      const offered = !c.result.startsWith('unknown tool ') && !c.result.startsWith(`MCP server "${MCP_SERVER}"`);
      if (refusal !== null && offered && c.result !== refusal) wrong(JSON.stringify(refusal));
      if (refusal === null && c.result.startsWith('invalid arguments')) wrong('no refusal of valid arguments');
      const tool = server?.tools.find((d) => `${prefix}${d.name}` === c.name);
      if (c.ok === true) checkSuccess(c, tool, wrong);
    }
  }
  return problems;
}

function checkSuccess(c: ReportToolCall, tool: McpToolDef | undefined, wrong: (want: string) => void): void {
  if (tool === undefined || tool.isError) {
    wrong('a tool error: the server has no such tool, or its results are isError');
    return;
  }
  if (c.result !== tool.result) wrong(JSON.stringify(tool.result));
  const [min, max] = typeof tool.durationMs === 'number' ? [tool.durationMs, tool.durationMs] : tool.durationMs;
  const tookMs = (c.end ?? 0) - (c.start ?? 0);
  if (tookMs < min || tookMs > max) wrong(`a duration within [${min}, ${max}] ms, not ${tookMs}`);
}
