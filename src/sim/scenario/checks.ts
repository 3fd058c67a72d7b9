/**
 * Cross-field and cross-entry rules of a scenario file: the second of the two checking passes.
 *
 * Plain code over the raw JSON for the rules that relate fields or entries: level and stop against
 * class, at most one timing, unique ids, trigger targets, declared agents, events that do something.
 * The pass runs even when the shape pass failed, so that one bad field never hides another; it
 * therefore trusts nothing about the JSON and skips what the shape pass already reports.
 */
import { INPUTS_MAX } from './bounds.ts';
import { expectIssues } from './expect-checks.ts';
import type { Issue, Segment } from './problems.ts';
import { entries, isObj, unknownAgentMessage, unknownTaskMessage, type Obj, type TaskContext } from './refs.ts';
import { EVENT_ACTIONS, KERNEL_TASK, TIMING_KEYS } from './schema.ts';
import { residentIssues } from './resident-checks.ts';
import { mcpIssues } from './mcp-checks.ts';

/** Every cross-field issue of the raw document; `[]` when it is not even an object. */
export function crossFieldIssues(raw: unknown): Issue[] {
  if (!isObj(raw)) return [];
  const issues: Issue[] = [];
  const residents = residentIds(raw.residents, issues);
  const agents = new Set(['root', ...residents]);
  const ids = inputIds(raw.inputs, issues);
  const ctx: TaskContext = { ids, agents, residents, generate: raw.generate };
  entries(raw.inputs).forEach((entry, i) => {
    if (isObj(entry)) checkInput(entry, i, ctx, issues);
  });
  checkInputTotal(raw, issues);
  if (isObj(raw.kernelReplies)) {
    for (const key of Object.keys(raw.kernelReplies)) {
      const agent = KERNEL_TASK.exec(key)?.[1];
      if (agent !== undefined && !agents.has(agent))
        issues.push({ path: ['kernelReplies', key], message: unknownAgentMessage(agent, residents) });
    }
  }
  entries(raw.events).forEach((entry, i) => {
    if (isObj(entry) && EVENT_ACTIONS.every((k) => entry[k] === undefined)) {
      issues.push({ path: ['events', i], message: `an event needs at least one of: ${EVENT_ACTIONS.join(', ')}` });
    }
  });
  issues.push(...crashIssues(raw));
  issues.push(...residentIssues(raw, residents));
  issues.push(...mcpIssues(raw));
  if (isObj(raw.expect)) issues.push(...expectIssues(raw.expect, ctx));
  return issues;
}

/** docs/spec.md §12.2 Bounds: file inputs plus generated inputs ≤ INPUTS_MAX (each count alone is the shape pass's). */
function checkInputTotal(raw: Obj, issues: Issue[]): void {
  const fileInputs = entries(raw.inputs).length;
  const generated = generatedCount(raw.generate);
  if (fileInputs + generated <= INPUTS_MAX) return;
  const path = fileInputs > INPUTS_MAX ? ['inputs'] : ['generate'];
  issues.push({
    path,
    message: `inputs plus generated inputs must be ≤ ${INPUTS_MAX}, got ${fileInputs + generated} (${fileInputs} in inputs, ${generated} generated); split the scenario`,
  });
}

function generatedCount(generate: unknown): number {
  if (!isObj(generate)) return 0;
  // A count that is itself out of bounds is the shape pass's problem; it adds nothing here. A negative
  // one is clamped to 0 (rather than tested with `>= 0`, whose `> 0` twin could never be told apart).
  const countOf = (v: unknown): number =>
    Number.isSafeInteger(v) && (v as number) <= INPUTS_MAX ? Math.max(v as number, 0) : 0;
  const levels = isObj(generate.interrupts) ? generate.interrupts : {};
  return countOf(generate.queued) + countOf(levels.L1) + countOf(levels.L2) + countOf(levels.L3) + countOf(levels.L4);
}

function residentIds(raw: unknown, issues: Issue[]): string[] {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else
      issues.push({
        path: ['residents', i, 'id'],
        message: `duplicate resident id '${entry.id}' (first declared at residents[${earlier}])`,
      });
  });
  return [...first.keys()].filter((id) => id !== 'root'); // "root" is reported by the shape pass
}

function inputIds(raw: unknown, issues: Issue[]): Set<string> {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else
      issues.push({
        path: ['inputs', i, 'id'],
        message: `duplicate id '${entry.id}' (first used by inputs[${earlier}]); ids must be unique`,
      });
  });
  return new Set(first.keys());
}

function checkInput(entry: Obj, i: number, ctx: TaskContext, issues: Issue[]): void {
  const at = (...rest: Segment[]): Segment[] => ['inputs', i, ...rest];
  if (entry.class === 'interrupt' && entry.level === undefined) {
    issues.push({ path: at('level'), message: 'required on an interrupt: one of L1, L2, L3, L4' });
  }
  if (entry.class === 'queued' && entry.level !== undefined) {
    issues.push({ path: at('level'), message: 'allowed only on interrupts: remove it, or set class to "interrupt"' });
  }
  if (entry.class === 'queued' && entry.stop !== undefined) {
    issues.push({
      path: at('stop'),
      message: 'allowed only on interrupts: remove it, or set class to "interrupt" with a level',
    });
  }
  const timings = TIMING_KEYS.filter((k) => entry[k] !== undefined);
  for (const key of timings.slice(1)) {
    // Stryker disable next-line StringLiteral: unreachable fallback, a second timing implies a first
    issues.push({
      path: at(key),
      message: `conflicts with '${timings[0] ?? ''}': give at most one of at, when, afterTerminal`,
    });
  }
  if (typeof entry.agent === 'string' && entry.agent !== '' && !ctx.agents.has(entry.agent)) {
    issues.push({ path: at('agent'), message: unknownAgentMessage(entry.agent, ctx.residents) });
  }
  const self = typeof entry.id === 'string' ? entry.id : undefined;
  if (isObj(entry.when) && typeof entry.when.task === 'string')
    checkTarget(entry.when.task, self, at('when', 'task'), ctx, issues);
  if (typeof entry.afterTerminal === 'string') checkTarget(entry.afterTerminal, self, at('afterTerminal'), ctx, issues);
}

function checkTarget(
  target: string,
  self: string | undefined,
  path: Segment[],
  ctx: TaskContext,
  issues: Issue[],
): void {
  if (target === '') return; // the shape pass reports it
  if (target === self) {
    issues.push({
      path,
      message: 'an input cannot trigger on itself: name another input or a kernel task "<agent>:<n>"',
    });
    return;
  }
  const message = unknownTaskMessage(target, ctx);
  if (message !== undefined) issues.push({ path, message });
}

/**
 * docs/spec.md §12.2 `events[].crash`: a process that is down cannot crash again, so each crash falls
 * after the restart of the one before it (by time; events at one instant keep their file order).
 */
function crashIssues(raw: Obj): Issue[] {
  const crashes: { at: number; restartAfterMs: number; index: number }[] = [];
  entries(raw.events).forEach((entry, index) => {
    if (!isObj(entry) || !isObj(entry.crash)) return;
    const { at } = entry;
    const { restartAfterMs } = entry.crash;
    // Bad values are the shape pass's problems; only well-formed crashes are related here.
    if (Number.isSafeInteger(at) && Number.isSafeInteger(restartAfterMs))
      crashes.push({ at: at as number, restartAfterMs: restartAfterMs as number, index });
  });
  // The sort is stable and the crashes were pushed in file order, so crashes at one instant keep it.
  crashes.sort((a, b) => a.at - b.at);
  const issues: Issue[] = [];
  for (let i = 1; i < crashes.length; i += 1) {
    const before = crashes[i - 1] as (typeof crashes)[number];
    const crash = crashes[i] as (typeof crashes)[number];
    const restartAt = before.at + before.restartAfterMs;
    if (crash.at <= restartAt) {
      issues.push({
        path: ['events', crash.index, 'crash'],
        message: `a crash at ${crash.at} falls while the process is down (events[${before.index}] crashes it at ${before.at} until ${restartAt}); crash after ${restartAt}`,
      });
    }
  }
  return issues;
}
