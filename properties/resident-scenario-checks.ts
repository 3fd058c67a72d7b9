/**
 * What the generated scenarios with residents must show in their report (kernel.residents.test.ts and
 * its regressions), as readable problems (an empty list means the run passed): no violation of any
 * monitor (CHILD, L4 on children, BALANCE with moved tasks, I5 …) nor of the simulator's end-of-run
 * checks; every task has exactly one terminal event, a task without one is an input whose trigger
 * could not fire; every agent has stopped at the end (the root stops at the drain, its children first);
 * a moved task ended on the parent of the agent it left; levels are the declared ones, clamped on the
 * agent that received them (on a child every interrupt from outside is at most L3, docs/spec.md §5); and a
 * task that ended done answered with one of its own replies (X1).
 */
import type { Report } from '../src/sim/report/index.ts';
import type { Scenario } from '../src/sim/scenario/index.ts';
import { formatViolations } from './scenario-checks.ts';

export function residentProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  if (report.violations.length > 0)
    problems.push(`${report.violations.length} violation(s):\n${formatViolations(report)}`);
  const fired = new Map(report.triggers.map((t) => [t.input, t.fired]));
  for (const input of scenario.inputs) {
    const task = Object.hasOwn(report.tasks, input.id) ? report.tasks[input.id] : undefined;
    const didFire = input.timing.kind === 'at' || fired.get(input.id) === true;
    if (task === undefined) {
      problems.push(`${input.id}: missing from report.tasks`);
      continue;
    }
    if (didFire && (task.terminalCount !== 1 || task.terminal === null)) {
      problems.push(
        `${input.id}: submitted, but terminalCount ${task.terminalCount}, terminal ${String(task.terminal)}`,
      );
    }
    if (!didFire && task.terminalCount !== 0)
      problems.push(`${input.id}: its trigger did not fire, yet terminalCount ${task.terminalCount}`);
  }
  const inputs = new Map(scenario.inputs.map((i) => [i.id, i]));
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.terminalCount > 1) problems.push(`I5: ${id} got ${t.terminalCount} terminal events`);
    if (t.terminal === null && !(inputs.has(id) && fired.get(id) === false))
      problems.push(`${id}: no terminal, and it is not an input whose trigger did not fire`);
  }
  const ended = Object.entries(report.tasks)
    .filter(([, t]) => t.terminal !== null)
    .map(([id]) => id)
    .sort();
  if (JSON.stringify([...report.terminalOrder].sort()) !== JSON.stringify(ended))
    problems.push('terminalOrder does not list every ended task exactly once');
  for (const [id, a] of Object.entries(report.agents)) {
    if (a.state !== 'stopped') problems.push(`docs/spec.md §10.2a: agent ${id} is ${a.state} after the root stopped`);
  }
  problems.push(...movedProblems(report), ...levelProblems(scenario, report), ...replyProblems(scenario, report));
  for (const e of report.expectations) {
    if (e.ok || e.name.startsWith('trigger.')) continue;
    if (
      e.name === 'allTerminal' &&
      Array.isArray(e.actual) &&
      e.actual.every((id) => typeof id === 'string' && fired.get(id) === false)
    )
      continue;
    problems.push(
      `expectation ${e.name} failed: expected ${JSON.stringify(e.expected)}, got ${JSON.stringify(e.actual)}`,
    );
  }
  return problems;
}

/** docs/spec.md §10.2a step 3: a kept task moves up one level at a time, and ends on the last agent it reached. */
function movedProblems(report: Report): string[] {
  const problems: string[] = [];
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.movedFrom.length === 0) continue;
    const path = [...t.movedFrom, t.agent];
    for (let i = 1; i < path.length; i += 1) {
      const from = path[i - 1] as string;
      const parent = report.agents[from]?.parent ?? null;
      if (parent !== path[i])
        problems.push(`${id} moved from ${from} to ${String(path[i])}, but ${from}'s parent is ${String(parent)}`);
    }
    if (t.class !== 'queued' && t.reason === 'residual_dropped_by_parent')
      problems.push(`${id} both moved and dropped`);
  }
  return problems;
}

/** docs/spec.md §5 restated: L4 keeps its level only from a built-in plugin on the root; on a child never. */
function levelProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  for (const input of scenario.inputs) {
    const t = Object.hasOwn(report.tasks, input.id) ? report.tasks[input.id] : undefined;
    if (t === undefined || input.level === null || t.agent === null || t.terminalCount === 0) continue;
    const receiver = t.movedFrom[0] ?? t.agent;
    const head = input.source.split('/')[0] ?? '';
    const privileged = receiver === 'root' && scenario.builtinPlugins.includes(head);
    const want = input.level === 4 && !privileged ? 3 : input.level;
    if (t.level !== want)
      problems.push(
        `P9: ${input.id} declared L${input.level} on ${receiver}, reported level ${String(t.level)}, expected ${want}`,
      );
  }
  return problems;
}

/**
 * X1 across the tree: a task that ended done answered with one of its own scripted texts (its
 * replies, its `kernelReplies`, the default "ok <id>"), or is a compress reporting what it did.
 */
function replyProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const turns = scenario.kernel.maxToolTurns ?? 16;
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.terminal !== 'done') continue;
    if (t.channel === '_compress_') {
      if (t.reply === null || !t.reply.startsWith('compressed: '))
        problems.push(`${id}: a compress ended done with ${JSON.stringify(t.reply)}`);
      continue;
    }
    const own =
      scenario.inputs.find((i) => i.id === id)?.replies ??
      (Object.hasOwn(scenario.kernelReplies, id) ? scenario.kernelReplies[id] : undefined);
    const texts = new Set(own === undefined ? [`ok ${id}`] : own.map((r) => r.text));
    texts.add(`[system] maximum tool turns ${turns} reached, task stopped`);
    if (t.reply === null || !texts.has(t.reply))
      problems.push(`X1: ${id} ended done with ${JSON.stringify(t.reply)}, not one of ${JSON.stringify([...texts])}`);
  }
  return problems;
}
