/**
 * References between the parts of a scenario file: which task ids and agent ids a file declares, and
 * the messages for a name that refers to nothing. Shared by the cross-field pass (triggers, kernel
 * replies) and the checks of `expect`, which name tasks and agents the same way.
 */
import { KERNEL_TASK } from './schema.ts';

export type Obj = Readonly<Record<string, unknown>>;

/** A JSON object (not an array, not null). */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The entries of a JSON array; `[]` for anything else (the shape pass reports it). */
export function entries(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** What a task reference (`when.task`, `afterTerminal`, an id in `expect`) may name. */
export interface TaskContext {
  readonly ids: ReadonlySet<string>;
  readonly agents: ReadonlySet<string>;
  readonly residents: readonly string[];
  readonly generate: unknown;
}

/** Why `target` names no task of this scenario, or undefined when it names one. */
export function unknownTaskMessage(target: string, ctx: TaskContext): string | undefined {
  if (ctx.ids.has(target) || isGeneratedName(target, ctx.generate)) return undefined;
  const agent = KERNEL_TASK.exec(target)?.[1];
  if (agent === undefined) {
    return `unknown task '${target}': must be the id of an input in this file or a kernel task "<agent>:<n>" (n ≥ 1)`;
  }
  return ctx.agents.has(agent) ? undefined : unknownAgentMessage(agent, ctx.residents);
}

export function unknownAgentMessage(agent: string, residents: readonly string[]): string {
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
  // Stryker disable next-line StringLiteral: group 1 of a match is always set; the fallback only satisfies the type
  const level = interrupt[1] ?? '';
  return Number(interrupt[2]) <= countOf(generate.interrupts[`L${level}`]);
}
