/**
 * Cross-field rules of a scenario's MCP-shaped servers (docs/spec.md §12.2 `mcpServers`): every offered
 * name `<server>__<tool>` is one the model APIs accept, no scenario tool is named like a server's tools
 * (serve refuses the same clash), and a server's downtimes come in order, each after the last is over.
 * Like the rest of the cross-field pass it trusts nothing about the JSON.
 */
import { MCP_NAME_SEPARATOR, OFFERED_TOOL_NAME, offeredName } from '../../tools/mcp/mcp-config.ts';
import type { Issue } from './problems.ts';
import { entries, isObj, type Obj } from './refs.ts';

export function mcpIssues(raw: Obj): Issue[] {
  if (!isObj(raw.mcpServers)) return [];
  const issues: Issue[] = [];
  const toolNames = isObj(raw.tools) ? Object.keys(raw.tools) : [];
  for (const [server, def] of Object.entries(raw.mcpServers)) {
    if (!isObj(def)) continue;
    for (const tool of isObj(def.tools) ? Object.keys(def.tools) : []) {
      const offered = offeredName(server, tool);
      if (!OFFERED_TOOL_NAME.test(offered))
        issues.push({
          path: ['mcpServers', server, 'tools', tool],
          message: `"${offered}" is not 1 to 64 letters, digits, "_" or "-": the model could not be offered it`,
        });
    }
    for (const name of toolNames)
      if (name.startsWith(`${server}${MCP_NAME_SEPARATOR}`))
        issues.push({
          path: ['tools', name],
          message: `"${name}" is named like the tools of the MCP server "${server}"; rename the tool or the server`,
        });
    issues.push(...downtimeIssues(server, def.down));
  }
  return issues;
}

/** Each downtime starts after the one before it is over; one without `backAfterMs` is the last. */
function downtimeIssues(server: string, down: unknown): Issue[] {
  const issues: Issue[] = [];
  let upAt: number | null = 0;
  entries(down).forEach((d, i) => {
    if (!isObj(d) || typeof d.at !== 'number') return;
    const path = ['mcpServers', server, 'down', i];
    if (upAt === null)
      issues.push({ path, message: 'the server never comes back from the downtime before (no backAfterMs)' });
    else if (d.at < upAt)
      issues.push({ path: [...path, 'at'], message: `must be ≥ ${upAt}, when the downtime before is over` });
    upAt = typeof d.backAfterMs === 'number' ? d.at + d.backAfterMs : null;
  });
  return issues;
}

/** The offered names of the MCP tools listed at start by servers up at start: what residents may be granted. */
export function mcpToolsAtStart(raw: Obj): string[] {
  if (!isObj(raw.mcpServers)) return [];
  const names: string[] = [];
  for (const [server, def] of Object.entries(raw.mcpServers)) {
    if (!isObj(def) || !isObj(def.tools)) continue;
    if (entries(def.down).some((d) => isObj(d) && d.at === 0)) continue;
    for (const [tool, t] of Object.entries(def.tools))
      if (!isObj(t) || t.listedAt === undefined || t.listedAt === 0) names.push(offeredName(server, tool));
  }
  return names;
}
