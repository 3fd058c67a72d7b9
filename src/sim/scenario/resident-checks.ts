/**
 * Cross-entry rules of a scenario's `residents` and the events that act on them (docs/spec.md §12.2): every
 * inputch a resident takes is declared in `channels` (at t = 0, residents are created after the
 * channels), owned by nobody else and claimed once; grants name declared outputs and tools; there are
 * no more of them than `kernel.maxChildren`; a `destroy` names a resident, a `stopAgent` the root or a
 * resident. Like the other cross-field rules
 * it trusts nothing about the raw JSON and skips what the shape pass reports.
 */
import { mcpToolsAtStart } from './mcp-checks.ts';
import { DEFAULT_KERNEL_CONFIG } from '../../kernel/index.ts';
import type { Issue } from './problems.ts';
import { entries, isObj, unknownAgentMessage, type Obj } from './refs.ts';

export function residentIssues(raw: Obj, residents: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  const width = widthIssue(raw);
  if (width !== null) issues.push(width);
  const channels = new Map<string, unknown>();
  for (const c of entries(raw.channels)) if (isObj(c) && typeof c.name === 'string') channels.set(c.name, c.owner);
  const outputs = new Set(
    entries(raw.outputs).flatMap((o) => (isObj(o) && typeof o.name === 'string' ? [o.name] : [])),
  );
  const tools = new Set([...(isObj(raw.tools) ? Object.keys(raw.tools) : []), ...mcpToolsAtStart(raw)]);
  const claimed = new Map<string, string>();
  entries(raw.residents).forEach((r, i) => {
    if (!isObj(r) || typeof r.id !== 'string') return;
    const id = r.id;
    entries(r.inputChs).forEach((name, j) => {
      if (typeof name !== 'string') return;
      const at = ['residents', i, 'inputChs', j];
      if (!channels.has(name)) {
        issues.push({
          path: at,
          message: `inputch '${name}' is not declared in channels (declared: ${[...channels.keys()].join(', ') || 'none'})`,
        });
        return;
      }
      const owner = channels.get(name);
      if (typeof owner === 'string' && owner !== '' && owner !== 'root') {
        issues.push({
          path: at,
          message: `inputch '${name}' is owned by '${owner}' in channels; a resident takes only unassigned inputchs`,
        });
      }
      const other = claimed.get(name);
      if (other !== undefined)
        issues.push({ path: at, message: `inputch '${name}' is already taken by resident '${other}'` });
      else claimed.set(name, id);
    });
    entries(r.allowedOutputs).forEach((name, j) => {
      if (typeof name === 'string' && !outputs.has(name)) {
        issues.push({
          path: ['residents', i, 'allowedOutputs', j],
          message: `output '${name}' is not declared in outputs (declared: ${[...outputs].join(', ') || 'none'})`,
        });
      }
    });
    entries(r.tools).forEach((name, j) => {
      if (typeof name === 'string' && !tools.has(name)) {
        issues.push({
          path: ['residents', i, 'tools', j],
          message: `tool '${name}' is not declared in tools (declared: ${[...tools].join(', ') || 'none'})`,
        });
      }
    });
  });
  const known = new Set(residents);
  entries(raw.events).forEach((e, i) => {
    if (!isObj(e)) return;
    const destroyed = isObj(e.destroy) ? e.destroy.id : undefined;
    if (typeof destroyed === 'string' && !known.has(destroyed)) {
      issues.push({ path: ['events', i, 'destroy', 'id'], message: unknownAgentMessage(destroyed, residents) });
    }
    if (typeof e.stopAgent === 'string' && e.stopAgent !== 'root' && !known.has(e.stopAgent)) {
      issues.push({ path: ['events', i, 'stopAgent'], message: unknownAgentMessage(e.stopAgent, residents) });
    }
  });
  return issues;
}

/**
 * Residents are children of the root, created at t = 0: more than `kernel.maxChildren` of them would
 * be refused by the kernel (docs/spec.md §10.2), so the file names the first one beyond. An invalid
 * `maxChildren` is the shape pass's problem; nothing is said here then.
 */
function widthIssue(raw: Obj): Issue | null {
  const given = isObj(raw.kernel) ? raw.kernel.maxChildren : undefined;
  if (given !== undefined && !(Number.isInteger(given) && (given as number) >= 1)) return null;
  const max = (given as number | undefined) ?? DEFAULT_KERNEL_CONFIG.maxChildren;
  const declared = entries(raw.residents).length;
  if (declared <= max) return null;
  return {
    path: ['residents', max],
    message: `the root takes at most kernel.maxChildren = ${max} children, and ${declared} residents are declared; raise kernel.maxChildren or declare fewer`,
  };
}
