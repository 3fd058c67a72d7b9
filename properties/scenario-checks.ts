/**
 * Checks shared by the generated-scenario properties (kernel.scenarios.test.ts) and their regressions
 * (kernel.regressions.test.ts): run a scenario file through the simulator and list what is wrong with
 * the report, as readable problems (an empty list means the run passed).
 */
import { parseScenario, type Scenario } from '../src/sim/scenario.ts';
import type { Report } from '../src/sim/report.ts';
import { runScenario, type SimOptions } from '../src/sim/simulation.ts';
import type { ScenarioJson } from './scenario-arbitrary.ts';

export function parsed(json: ScenarioJson): Scenario {
  const result = parseScenario(json);
  if (!result.ok) {
    throw new Error(`generated scenario does not parse:\n${result.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  }
  return result.scenario;
}

export async function run(scenario: Scenario, opts: SimOptions = {}): Promise<Report> {
  const outcome = await runScenario(scenario, opts);
  if (outcome.kind !== 'report') {
    throw new Error(`scenario refused as unusable:\n${outcome.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  }
  return outcome.report;
}

export function formatViolations(report: Report): string {
  return report.violations
    .map((v) => `  ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}\n${v.context.map((c) => `      ${c}`).join('\n')}`)
    .join('\n');
}

/**
 * Property 1's checks, as a list of problems (empty = passed): no violation (monitors, and the
 * simulator's end-of-run RUNTIME / FATAL / UNHANDLED / DRAINCHECK findings, printed with their trace
 * context), every task terminal exactly once, a null terminal only for an input whose trigger did not
 * fire, trigger outcomes consistent with their targets, every expectation but the unfired triggers
 * met; then the bookkeeping (`accountingProblems`), the replies and levels (`replyProblems`) and the
 * queued FIFO order (`orderProblems`).
 */
export function terminalProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  if (report.violations.length > 0) problems.push(`${report.violations.length} violation(s):\n${formatViolations(report)}`);
  const fired = new Map(report.triggers.map((t) => [t.input, t.fired]));
  const inputs = new Map(scenario.inputs.map((i) => [i.id, i]));
  for (const input of scenario.inputs) {
    const task = Object.hasOwn(report.tasks, input.id) ? report.tasks[input.id] : undefined;
    const triggered = input.timing.kind !== 'at';
    const didFire = !triggered || fired.get(input.id) === true;
    if (input.stop && input.text === null) {
      // Listed only under `stops` (SPEC §2.9) — or, when its trigger could not fire, like every such
      // input, with terminal null (SPEC §12.2.1).
      if (task !== undefined && (didFire || task.terminal !== null)) problems.push(`${input.id}: a stop without text is listed in tasks`);
      if (didFire && !report.stops.some((s) => s.id === input.id)) problems.push(`${input.id}: a submitted stop is missing from stops`);
      continue;
    }
    if (task === undefined) {
      problems.push(`${input.id}: missing from report.tasks`);
      continue;
    }
    if (didFire && (task.terminalCount !== 1 || task.terminal === null)) {
      problems.push(`${input.id}: submitted, but terminalCount ${task.terminalCount}, terminal ${String(task.terminal)}`);
    }
    if (!didFire && (task.terminalCount !== 0 || task.terminal !== null)) {
      problems.push(`${input.id}: its trigger did not fire, yet terminalCount ${task.terminalCount}, terminal ${String(task.terminal)}`);
    }
  }
  for (const [id, task] of Object.entries(report.tasks)) {
    if (task.terminalCount > 1) problems.push(`${id}: ${task.terminalCount} terminal events`);
    if (task.terminal === null && !(inputs.has(id) && fired.get(id) === false)) {
      problems.push(`${id}: terminal null, but it is not an input whose trigger did not fire`);
    }
  }
  // An unfired trigger must be explained by its target.
  for (const input of scenario.inputs) {
    if (fired.get(input.id) !== false) continue;
    const timing = input.timing;
    if (timing.kind === 'at') continue;
    const target = Object.hasOwn(report.tasks, timing.task) ? report.tasks[timing.task] : undefined;
    if (timing.kind === 'afterTerminal' && target !== undefined && target.terminal !== null) {
      problems.push(`${input.id}: afterTerminal ${timing.task} did not fire, but ${timing.task} ended ${target.terminal}`);
    }
    if (timing.kind === 'when' && (timing.step === 'Model' || timing.step === 'Prepare') && target !== undefined && target.modelCalls > 0) {
      problems.push(`${input.id}: when ${timing.task}/${timing.step} did not fire, but ${timing.task} made ${target.modelCalls} model call(s)`);
    }
  }
  problems.push(...accountingProblems(report));
  problems.push(...replyProblems(scenario, report));
  problems.push(...orderProblems(report));
  // Expectations other than unfired triggers (allTerminal counts an unfired input as non-terminal).
  for (const e of report.expectations) {
    if (e.ok || e.name.startsWith('trigger.')) continue;
    if (e.name === 'allTerminal' && Array.isArray(e.actual) && e.actual.every((id) => typeof id === 'string' && fired.get(id) === false)) continue;
    problems.push(`expectation ${e.name} failed: expected ${JSON.stringify(e.expected)}, got ${JSON.stringify(e.actual)}`);
  }
  return problems;
}

/**
 * The report's bookkeeping agrees with the tasks' terminals (SPEC §2.8, §2.9, §7, §12.3): backpressure
 * and drops are counted once each, every user_stop cancellation is listed by exactly one stop, the
 * terminal order lists every ended task once, and a run in which nothing ended `agent_stopped` resumed
 * every suspended task (DRAIN: the simulator's final root stop finds nothing pending).
 */
/**
 * `stops[].cancelled` against the terminals (SPEC §2.9, §12.3): every task that ended
 * `cancelled`/`user_stop` is listed by a stop, a stop lists a task at most once, and every listed task
 * ended `cancelled`/`user_stop` — also the stop-marked running task whose tool panicked during the
 * ToolExec the stop waited for (it ends `failed` and is not listed). Two stops that both find the same
 * task running (stop-marked in a critical step) may both list it: SPEC-silent, allowed here.
 */
export function stopListProblems(report: Report): string[] {
  const problems: string[] = [];
  const listed = new Set(report.stops.flatMap((s) => s.cancelled));
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.reason === 'user_stop' && !listed.has(id)) problems.push(`${id} ended user_stop but no stop lists it`);
  }
  for (const stop of report.stops) {
    stop.cancelled.forEach((id, i) => {
      const t = Object.hasOwn(report.tasks, id) ? report.tasks[id] : undefined;
      if (t === undefined) problems.push(`stop ${stop.id} lists ${id}, which is not a task`);
      else if (t.reason !== 'user_stop') problems.push(`stop ${stop.id} lists ${id}, which ended ${String(t.terminal)} (${String(t.reason)})`);
      if (stop.cancelled.indexOf(id) !== i) problems.push(`stop ${stop.id} lists ${id} twice: ${JSON.stringify(stop.cancelled)}`);
    });
  }
  return problems;
}

export function accountingProblems(report: Report): string[] {
  const problems: string[] = [];
  const tasks = Object.entries(report.tasks);
  const withReason = (reason: string): string[] => tasks.filter(([, t]) => t.reason === reason).map(([id]) => id);
  const c = report.counters.root;
  if (c === undefined) return ['no root counters'];
  const queueFull = withReason('queue_full');
  if (c.backpressure !== queueFull.length) problems.push(`counters.backpressure ${c.backpressure} != queue_full tasks ${queueFull.length}`);
  const overflow = withReason('interrupt_overflow');
  const selfLoop = withReason('self_loop_full');
  if (c.dropped !== overflow.length + selfLoop.length) {
    problems.push(`counters.dropped ${c.dropped} != interrupt_overflow + self_loop_full tasks ${overflow.length + selfLoop.length}`);
  }
  const victims = report.drops.map((d) => d.victim).sort();
  if (JSON.stringify(victims) !== JSON.stringify([...overflow].sort())) {
    problems.push(`drops ${JSON.stringify(victims)} != interrupt_overflow tasks ${JSON.stringify(overflow)}`);
  }
  const invalid = withReason('invalid');
  if (c.rejected !== invalid.length + overflow.length) problems.push(`counters.rejected ${c.rejected} != invalid + interrupt_overflow ${invalid.length + overflow.length}`);
  problems.push(...stopListProblems(report));
  for (const [id, t] of tasks) {
    if (t.terminal === 'cancelled' && t.reason !== 'user_stop') problems.push(`${id}: cancelled with reason ${String(t.reason)}`);
  }
  const ended = tasks.filter(([, t]) => t.terminal !== null).map(([id]) => id).sort();
  const order = [...report.terminalOrder].sort();
  if (JSON.stringify(order) !== JSON.stringify(ended)) problems.push(`terminalOrder ${JSON.stringify(report.terminalOrder)} != ended tasks ${JSON.stringify(ended)}`);
  if (withReason('agent_stopped').length === 0) {
    if (c.suspended !== c.resumed || report.suspendOrder.length !== report.resumeOrder.length || c.suspended !== report.suspendOrder.length) {
      problems.push(
        `drained with counters suspended ${c.suspended} / resumed ${c.resumed}, suspendOrder ${report.suspendOrder.length} / resumeOrder ${report.resumeOrder.length}`,
      );
    }
  }
  return problems;
}


/** SPEC §5 restated (not imported: an oracle must not share the code it checks). */
function expectedLevel(declared: number, source: string, builtinPlugins: readonly string[]): number {
  const slash = source.indexOf('/');
  const head = slash === -1 ? source : source.slice(0, slash);
  const privileged = head.length > 0 && builtinPlugins.includes(head);
  return privileged || declared < 4 ? declared : 3;
}

/**
 * X1 at the scenario level: a task's reply is its own (SPEC §3.2, §4). A `done` task answers with one
 * of its own scripted texts (or the max-tool-turns notice), `failed` with "processing error: …",
 * `cancelled` with the stop reply, skipped and dropped tasks with "". Levels are the declared ones,
 * clamped to L3 unless the source is a built-in plugin (P9).
 */
export function replyProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const turns = scenario.kernel.maxToolTurns ?? 16;
  const maxTurns = `[system] maximum tool turns ${turns} reached, task stopped`;
  const scripted = new Map(scenario.inputs.map((i) => [i.id, i]));
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.terminal === null) continue;
    const input = scripted.get(id);
    const texts = new Set(input === undefined ? [`ok ${id}`] : input.replies.map((r) => r.text));
    texts.add(maxTurns);
    switch (t.terminal) {
      case 'done':
        if (t.reply === null || !texts.has(t.reply)) problems.push(`X1: ${id} ended done with ${JSON.stringify(t.reply)}, not one of its own answers ${JSON.stringify([...texts])}`);
        break;
      case 'failed':
        if (t.reply === null || !t.reply.startsWith('processing error: ')) problems.push(`${id} failed with ${JSON.stringify(t.reply)}`);
        break;
      case 'cancelled':
        if (t.reply !== 'cancelled (user stop)') problems.push(`${id} cancelled with ${JSON.stringify(t.reply)}`);
        break;
      default:
        if (t.reply !== '' && t.reply !== null) problems.push(`${id} ended ${t.terminal} with reply ${JSON.stringify(t.reply)}`);
    }
    if (input !== undefined && input.level !== null) {
      const want = expectedLevel(input.level, input.source, scenario.builtinPlugins);
      if (t.level !== want) problems.push(`P9: ${id} declared L${input.level} from ${input.source}, reported level ${String(t.level)}, expected ${want}`);
    }
  }
  return problems;
}

/**
 * Q1 for the queued FIFO: queued tasks never overtake each other, so of two queued tasks submitted at
 * different instants that both started, the earlier one started no later.
 */
export function orderProblems(report: Report): string[] {
  const problems: string[] = [];
  const queued = Object.entries(report.tasks).filter(
    ([, t]) => t.class === 'queued' && t.submittedAt !== null && t.startedAt !== null,
  );
  for (const [a, ta] of queued) {
    for (const [b, tb] of queued) {
      if ((ta.submittedAt ?? 0) < (tb.submittedAt ?? 0) && (ta.startedAt ?? 0) > (tb.startedAt ?? 0)) {
        problems.push(`Q1: queued ${b} (submitted ${tb.submittedAt}) started at ${tb.startedAt}, before ${a} (submitted ${ta.submittedAt}, started ${ta.startedAt})`);
      }
    }
  }
  return problems;
}
