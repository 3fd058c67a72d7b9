/**
 * Cross-field rules of the `expect` block (docs/spec.md §12.2 "Expect"), part of the second checking pass.
 *
 * The shape pass checks the block's keys and value types; these rules check the names inside it
 * against the rest of the file and the report: a task id must name a task of this scenario, an agent
 * must be declared, a counter or a task field must exist, and a per-level counter takes levels. A
 * misspelt name would otherwise pass the schema and fail as an expectation after the whole run, which
 * reads as a kernel bug. Like the rest of the pass, this trusts nothing about the raw JSON and skips
 * what the shape pass reports.
 */
import { COUNTER_NAMES, PER_LEVEL_COUNTERS, TASK_FIELDS } from './expect-names.ts';
import { nearestName, type Issue, type Segment } from './problems.ts';
import { entries, isObj, unknownAgentMessage, unknownTaskMessage, type Obj, type TaskContext } from './refs.ts';

const ORDER_KEYS = ['suspendOrder', 'resumeOrder', 'finishOrder'] as const;
const TASK_RECORD_KEYS = ['terminal', 'replyContains', 'tasks'] as const;
const COUNTER_KEYS = ['counters', 'countersMin'] as const;
const LEVEL_KEYS: ReadonlySet<string> = new Set(['1', '2', '3', '4']);

/** Every issue of the names inside `expect`. */
export function expectIssues(expect: Obj, ctx: TaskContext): Issue[] {
  const issues: Issue[] = [];
  const task = (id: unknown, path: Segment[]): void => {
    if (typeof id !== 'string') return;
    const message = unknownTaskMessage(id, ctx);
    if (message !== undefined) issues.push({ path, message });
  };
  const agent = (id: string, path: Segment[]): boolean => {
    if (ctx.agents.has(id)) return true;
    issues.push({ path, message: unknownAgentMessage(id, ctx.residents) });
    return false;
  };
  for (const key of TASK_RECORD_KEYS) {
    const rec = expect[key];
    if (isObj(rec)) for (const id of Object.keys(rec)) task(id, ['expect', key, id]);
  }
  for (const key of ORDER_KEYS) entries(expect[key]).forEach((id, i) => task(id, ['expect', key, i]));
  if (isObj(expect.outputs)) {
    for (const [channel, list] of Object.entries(expect.outputs)) {
      entries(list).forEach((o, i) => {
        if (isObj(o)) task(o.task, ['expect', 'outputs', channel, i, 'task']);
      });
    }
  }
  if (isObj(expect.tasks)) checkTaskFields(expect.tasks, issues);
  for (const key of COUNTER_KEYS) {
    const rec = expect[key];
    if (!isObj(rec)) continue;
    for (const [id, names] of Object.entries(rec)) {
      if (agent(id, ['expect', key, id]) && isObj(names)) checkCounters(names, ['expect', key, id], issues);
    }
  }
  if (isObj(expect.agents)) for (const id of Object.keys(expect.agents)) agent(id, ['expect', 'agents', id]);
  entries(expect.equal).forEach((pair, i) => {
    entries(pair).forEach((ref, j) => {
      if (typeof ref !== 'string') return;
      const message = counterRefProblem(ref, ctx);
      if (message !== undefined) issues.push({ path: ['expect', 'equal', i, j], message });
    });
  });
  return issues;
}

function checkTaskFields(tasks: Obj, issues: Issue[]): void {
  const known: ReadonlySet<string> = new Set(TASK_FIELDS);
  for (const [id, fields] of Object.entries(tasks)) {
    if (!isObj(fields)) continue;
    for (const field of Object.keys(fields)) {
      if (!known.has(field))
        issues.push({
          path: ['expect', 'tasks', id, field],
          message: unknownNameMessage('task field', field, TASK_FIELDS),
        });
    }
  }
}

/** Counter names exist; a per-level counter takes `{"1".."4": n}`, any other counter a number. */
function checkCounters(names: Obj, at: readonly Segment[], issues: Issue[]): void {
  for (const [name, value] of Object.entries(names)) {
    const path = [...at, name];
    if (!COUNTER_NAMES.includes(name)) {
      issues.push({ path, message: unknownNameMessage('counter', name, COUNTER_NAMES) });
    } else if (PER_LEVEL_COUNTERS.has(name) && typeof value === 'number') {
      issues.push({
        path,
        message: `'${name}' is counted per level: write {"1": n, …, "4": n} with the levels to check`,
      });
    } else if (!PER_LEVEL_COUNTERS.has(name) && isObj(value)) {
      issues.push({ path, message: `'${name}' is not counted per level: write a number` });
    }
  }
}

/** `agent.counter`, or `agent.counter.N` with N a level of a per-level counter. */
function counterRefProblem(ref: string, ctx: TaskContext): string | undefined {
  const parts = ref.split('.');
  // Stryker disable next-line StringLiteral: split returns at least one part, so the default is never used
  const [agent = ''] = parts;
  const [, name = '', level, ...rest] = parts;
  if (name === '') return undefined; // the shape pass reports it
  if (rest.length > 0) return `must be "<agent>.<counter>" or "<agent>.<counter>.<level>", got "${ref}"`;
  if (!ctx.agents.has(agent)) return unknownAgentMessage(agent, ctx.residents);
  if (!COUNTER_NAMES.includes(name)) return unknownNameMessage('counter', name, COUNTER_NAMES);
  if (level === undefined) return undefined;
  if (!PER_LEVEL_COUNTERS.has(name)) return `'${name}' is not counted per level: write "${agent}.${name}"`;
  return LEVEL_KEYS.has(level) ? undefined : `the level must be 1, 2, 3 or 4, got "${level}"`;
}

function unknownNameMessage(what: string, name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  return `unknown ${what} '${name}'${near !== undefined ? `; did you mean '${near}'?` : ''} (known: ${known.join(', ')})`;
}
