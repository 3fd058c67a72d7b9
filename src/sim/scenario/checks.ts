/**
 * Cross-field and cross-entry rules of a scenario file: the second of the two checking passes.
 *
 * Plain code over the raw JSON for the rules that relate fields or entries: level and stop against
 * class, at most one timing, unique ids, trigger targets, declared agents, events that do something.
 * The pass runs even when the shape pass failed, so that one bad field never hides another; it
 * therefore trusts nothing about the JSON and skips what the shape pass already reports.
 */
import { EVENT_ACTIONS, KERNEL_TASK, TIMING_KEYS } from './schema.ts';
import type { Issue, Segment } from './problems.ts';

export type Obj = Readonly<Record<string, unknown>>;

/** A JSON object (not an array, not null). */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function entries(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Every cross-field issue of the raw document; `[]` when it is not even an object. */
export function crossFieldIssues(raw: unknown): Issue[] {
  if (!isObj(raw)) return [];
  const issues: Issue[] = [];
  const residents = residentIds(raw.residents, issues);
  const agents = new Set(['root', ...residents]);
  const ids = inputIds(raw.inputs, issues);
  entries(raw.inputs).forEach((entry, i) => {
    if (isObj(entry)) checkInput(entry, i, { ids, agents, residents, generate: raw.generate }, issues);
  });
  if (isObj(raw.kernelReplies)) {
    for (const key of Object.keys(raw.kernelReplies)) {
      const agent = KERNEL_TASK.exec(key)?.[1];
      if (agent !== undefined && !agents.has(agent)) issues.push({ path: ['kernelReplies', key], message: unknownAgentMessage(agent, residents) });
    }
  }
  entries(raw.events).forEach((entry, i) => {
    if (isObj(entry) && EVENT_ACTIONS.every((k) => entry[k] === undefined)) {
      issues.push({ path: ['events', i], message: `an event needs at least one of: ${EVENT_ACTIONS.join(', ')}` });
    }
  });
  return issues;
}

function residentIds(raw: unknown, issues: Issue[]): string[] {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else issues.push({ path: ['residents', i, 'id'], message: `duplicate resident id '${entry.id}' (first declared at residents[${earlier}])` });
  });
  return [...first.keys()].filter((id) => id !== 'root'); // "root" is reported by the shape pass
}

function inputIds(raw: unknown, issues: Issue[]): Set<string> {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else issues.push({ path: ['inputs', i, 'id'], message: `duplicate id '${entry.id}' (first used by inputs[${earlier}]); ids must be unique` });
  });
  return new Set(first.keys());
}

interface InputContext {
  readonly ids: ReadonlySet<string>;
  readonly agents: ReadonlySet<string>;
  readonly residents: readonly string[];
  readonly generate: unknown;
}

function checkInput(entry: Obj, i: number, ctx: InputContext, issues: Issue[]): void {
  const at = (...rest: Segment[]): Segment[] => ['inputs', i, ...rest];
  if (entry.class === 'interrupt' && entry.level === undefined) {
    issues.push({ path: at('level'), message: 'required on an interrupt: one of L1, L2, L3, L4' });
  }
  if (entry.class === 'queued' && entry.level !== undefined) {
    issues.push({ path: at('level'), message: 'allowed only on interrupts: remove it, or set class to "interrupt"' });
  }
  if (entry.class === 'queued' && entry.stop !== undefined) {
    issues.push({ path: at('stop'), message: 'allowed only on interrupts: remove it, or set class to "interrupt" with a level' });
  }
  const timings = TIMING_KEYS.filter((k) => entry[k] !== undefined);
  for (const key of timings.slice(1)) {
    issues.push({ path: at(key), message: `conflicts with '${timings[0] ?? ''}': give at most one of at, when, afterTerminal` });
  }
  if (typeof entry.agent === 'string' && entry.agent !== '' && !ctx.agents.has(entry.agent)) {
    issues.push({ path: at('agent'), message: unknownAgentMessage(entry.agent, ctx.residents) });
  }
  const self = typeof entry.id === 'string' ? entry.id : undefined;
  if (isObj(entry.when) && typeof entry.when.task === 'string') checkTarget(entry.when.task, self, at('when', 'task'), ctx, issues);
  if (typeof entry.afterTerminal === 'string') checkTarget(entry.afterTerminal, self, at('afterTerminal'), ctx, issues);
}

function checkTarget(target: string, self: string | undefined, path: Segment[], ctx: InputContext, issues: Issue[]): void {
  if (target === '') return; // the shape pass reports it
  if (target === self) {
    issues.push({ path, message: 'an input cannot trigger on itself: name another input or a kernel task "<agent>:<n>"' });
    return;
  }
  if (ctx.ids.has(target) || isGeneratedName(target, ctx.generate)) return;
  const agent = KERNEL_TASK.exec(target)?.[1];
  if (agent === undefined) {
    issues.push({ path, message: `unknown task '${target}': must be the id of an input in this file or a kernel task "<agent>:<n>" (n ≥ 1)` });
  } else if (!ctx.agents.has(agent)) {
    issues.push({ path, message: unknownAgentMessage(agent, ctx.residents) });
  }
}

function unknownAgentMessage(agent: string, residents: readonly string[]): string {
  const declared = residents.length > 0 ? `declared residents: ${residents.join(', ')}` : 'no residents are declared';
  return `unknown agent '${agent}': must be "root" or a declared resident id (${declared})`;
}

/** A generated input exists when `generate` asks for it: `gq<n>` (n ≤ queued), `gi<L>-<n>` (n ≤ interrupts.L<L>). */
function isGeneratedName(name: string, generate: unknown): boolean {
  if (!isObj(generate)) return false;
  const countOf = (v: unknown): number => (Number.isSafeInteger(v) ? (v as number) : 0);
  const queued = /^gq([1-9][0-9]*)$/.exec(name);
  if (queued) return Number(queued[1]) <= countOf(generate.queued);
  const interrupt = /^gi([1-4])-([1-9][0-9]*)$/.exec(name);
  if (!interrupt || !isObj(generate.interrupts)) return false;
  return Number(interrupt[2]) <= countOf(generate.interrupts[`L${interrupt[1] ?? ''}`]);
}
