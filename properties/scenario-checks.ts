/**
 * Checks shared by the generated-scenario properties (kernel.scenarios.test.ts) and their regressions
 * (kernel.regressions.test.ts): run a scenario file through the simulator and list what is wrong with
 * the report, as readable problems (an empty list means the run passed).
 */
import { parseScenario, type Scenario } from '../src/sim/scenario/index.ts';
import type { Report, ReportTask, ReportToolCall } from '../src/sim/report/index.ts';
import { runScenario, type SimOptions } from '../src/sim/simulation.ts';
import type { ScenarioFile } from './scenario-json.ts';

export function parsed(json: ScenarioFile): Scenario {
  const result = parseScenario(json);
  if (!result.ok) {
    throw new Error(
      `generated scenario does not parse:\n${result.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    );
  }
  return result.scenario;
}

export async function run(scenario: Scenario, opts: SimOptions = {}): Promise<Report> {
  const outcome = await runScenario(scenario, opts);
  if (outcome.kind !== 'report') {
    throw new Error(
      `scenario refused as unusable:\n${outcome.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    );
  }
  return outcome.report;
}

export function formatViolations(report: Report): string {
  return report.violations
    .map(
      (v) =>
        `  ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}\n${v.context.map((c) => `      ${c}`).join('\n')}`,
    )
    .join('\n');
}

/**
 * Property 1's checks, as a list of problems (empty = passed): no violation (monitors, and the
 * simulator's end-of-run RUNTIME / FATAL / UNHANDLED / DRAINCHECK findings, printed with their trace
 * context), every task terminal exactly once, a null terminal only for an input whose trigger did not
 * fire, trigger outcomes consistent with their targets, every expectation but the unfired triggers
 * met; then the bookkeeping (`accountingProblems`), the replies and levels (`replyProblems`), the
 * queued FIFO order (`orderProblems`), the outputs (`outputProblems`), the built-in tool outcomes
 * (`builtinProblems`), consolidation (`consolidationProblems`) and the channel registry and routing
 * (`channelProblems`).
 */
export function terminalProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  if (report.violations.length > 0)
    problems.push(`${report.violations.length} violation(s):\n${formatViolations(report)}`);
  const fired = new Map(report.triggers.map((t) => [t.input, t.fired]));
  const inputs = new Map(scenario.inputs.map((i) => [i.id, i]));
  // A submission a crash lost was never acknowledged: listed as never submitted, owed no terminal.
  const lost = new Set((report.lost ?? []).map((l) => l.id));
  for (const input of scenario.inputs) {
    const task = Object.hasOwn(report.tasks, input.id) ? report.tasks[input.id] : undefined;
    if (lost.has(input.id)) {
      if (task !== undefined && (task.terminalCount !== 0 || task.submittedAt !== null))
        problems.push(`${input.id}: lost in a crash, yet listed as submitted or ended`);
      continue;
    }
    const triggered = input.timing.kind !== 'at';
    const didFire = !triggered || fired.get(input.id) === true;
    if (input.stop && input.text === null) {
      // Listed only under `stops` (docs/spec.md §2.9) — or, when its trigger could not fire, like every such
      // input, with terminal null (docs/spec.md §12.2.1).
      if (task !== undefined && (didFire || task.terminal !== null))
        problems.push(`${input.id}: a stop without text is listed in tasks`);
      if (didFire && !report.stops.some((s) => s.id === input.id))
        problems.push(`${input.id}: a submitted stop is missing from stops`);
      continue;
    }
    if (task === undefined) {
      problems.push(`${input.id}: missing from report.tasks`);
      continue;
    }
    if (didFire && (task.terminalCount !== 1 || task.terminal === null)) {
      problems.push(
        `${input.id}: submitted, but terminalCount ${task.terminalCount}, terminal ${String(task.terminal)}`,
      );
    }
    if (!didFire && (task.terminalCount !== 0 || task.terminal !== null)) {
      problems.push(
        `${input.id}: its trigger did not fire, yet terminalCount ${task.terminalCount}, terminal ${String(task.terminal)}`,
      );
    }
  }
  for (const [id, task] of Object.entries(report.tasks)) {
    if (task.terminalCount > 1) problems.push(`${id}: ${task.terminalCount} terminal events`);
    if (task.terminal === null && !lost.has(id) && !(inputs.has(id) && fired.get(id) === false)) {
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
      problems.push(
        `${input.id}: afterTerminal ${timing.task} did not fire, but ${timing.task} ended ${target.terminal}`,
      );
    }
    if (
      timing.kind === 'when' &&
      (timing.step === 'Model' || timing.step === 'Prepare') &&
      target !== undefined &&
      target.modelCalls > 0
    ) {
      problems.push(
        `${input.id}: when ${timing.task}/${timing.step} did not fire, but ${timing.task} made ${target.modelCalls} model call(s)`,
      );
    }
  }
  problems.push(...accountingProblems(report));
  problems.push(...replyProblems(scenario, report));
  problems.push(...orderProblems(report));
  problems.push(...outputProblems(scenario, report));
  problems.push(...builtinProblems(scenario, report));
  problems.push(...consolidationProblems(scenario, report));
  problems.push(...channelProblems(scenario, report));
  // Expectations other than unfired triggers (allTerminal counts an unfired input as non-terminal).
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

/**
 * The report's bookkeeping agrees with the tasks' terminals (docs/spec.md §2.8, §2.9, §7, §12.3): backpressure
 * and drops are counted once each, every user_stop cancellation is listed by exactly one stop, the
 * terminal order lists every ended task once, and a run in which nothing ended `agent_stopped` resumed
 * every suspended task (DRAIN: the simulator's final root stop finds nothing pending).
 */
/**
 * `stops[].cancelled` against the terminals (docs/spec.md §2.9, §12.3): every task that ended
 * `cancelled`/`user_stop` is listed by a stop, a stop lists a task at most once, and every listed task
 * ended `cancelled`/`user_stop` — also the stop-marked running task whose tool panicked during the
 * ToolExec the stop waited for (it ends `failed` and is not listed). Two stops that both find the same
 * task running (stop-marked in a critical step) may both list it: spec-silent, allowed here.
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
      else if (t.reason !== 'user_stop')
        problems.push(`stop ${stop.id} lists ${id}, which ended ${String(t.terminal)} (${String(t.reason)})`);
      if (stop.cancelled.indexOf(id) !== i)
        problems.push(`stop ${stop.id} lists ${id} twice: ${JSON.stringify(stop.cancelled)}`);
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
  if (c.backpressure !== queueFull.length)
    problems.push(`counters.backpressure ${c.backpressure} != queue_full tasks ${queueFull.length}`);
  const overflow = withReason('interrupt_overflow');
  const selfLoop = withReason('self_loop_full');
  if (c.dropped !== overflow.length + selfLoop.length) {
    problems.push(
      `counters.dropped ${c.dropped} != interrupt_overflow + self_loop_full tasks ${overflow.length + selfLoop.length}`,
    );
  }
  const victims = report.drops.map((d) => d.victim).sort();
  if (JSON.stringify(victims) !== JSON.stringify([...overflow].sort())) {
    problems.push(`drops ${JSON.stringify(victims)} != interrupt_overflow tasks ${JSON.stringify(overflow)}`);
  }
  const invalid = withReason('invalid');
  if (c.rejected !== invalid.length + overflow.length)
    problems.push(
      `counters.rejected ${c.rejected} != invalid + interrupt_overflow ${invalid.length + overflow.length}`,
    );
  problems.push(...stopListProblems(report));
  for (const [id, t] of tasks) {
    if (t.terminal === 'cancelled' && t.reason !== 'user_stop')
      problems.push(`${id}: cancelled with reason ${String(t.reason)}`);
  }
  const ended = tasks
    .filter(([, t]) => t.terminal !== null)
    .map(([id]) => id)
    .sort();
  const order = [...report.terminalOrder].sort();
  if (JSON.stringify(order) !== JSON.stringify(ended))
    problems.push(`terminalOrder ${JSON.stringify(report.terminalOrder)} != ended tasks ${JSON.stringify(ended)}`);
  if (withReason('agent_stopped').length === 0) {
    if (
      c.suspended !== c.resumed ||
      report.suspendOrder.length !== report.resumeOrder.length ||
      c.suspended !== report.suspendOrder.length
    ) {
      problems.push(
        `drained with counters suspended ${c.suspended} / resumed ${c.resumed}, suspendOrder ${report.suspendOrder.length} / resumeOrder ${report.resumeOrder.length}`,
      );
    }
  }
  return problems;
}

/** docs/spec.md §5 restated (not imported: an oracle must not share the code it checks). */
function expectedLevel(declared: number, source: string, builtinPlugins: readonly string[]): number {
  const slash = source.indexOf('/');
  const head = slash === -1 ? source : source.slice(0, slash);
  const privileged = head.length > 0 && builtinPlugins.includes(head);
  return privileged || declared < 4 ? declared : 3;
}

/**
 * X1 at the scenario level: a task's reply is its own (docs/spec.md §3.2, §4). A `done` task answers with one
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
    const kernelReplies = Object.hasOwn(scenario.kernelReplies, id) ? scenario.kernelReplies[id] : undefined;
    const own = input?.replies ?? kernelReplies;
    const texts = new Set(own === undefined ? [`ok ${id}`] : own.map((r) => r.text));
    texts.add(maxTurns);
    switch (t.terminal) {
      case 'done':
        if (isConsolidation(t)) {
          // docs/spec.md §3.7: "consolidated: A added, S skipped" (a note in parentheses may follow).
          // A restart cancels and re-sends its call like a preemption (§13.2), which costs a turn (§3.2):
          // with maxToolTurns 1 it then ends on the turn limit, as any task would.
          const restarted = report.crashes !== undefined && t.modelCallsCancelled > 0 && t.reply === maxTurns;
          if (!restarted && (t.reply === null || !CONSOLIDATED.test(t.reply)))
            problems.push(`§3.7: consolidation ${id} ended done with ${JSON.stringify(t.reply)}`);
        } else if (t.reply === null || !texts.has(t.reply)) {
          problems.push(
            `X1: ${id} ended done with ${JSON.stringify(t.reply)}, not one of its own answers ${JSON.stringify([...texts])}`,
          );
        }
        break;
      case 'failed':
        if (t.reply === null || !t.reply.startsWith('processing error: '))
          problems.push(`${id} failed with ${JSON.stringify(t.reply)}`);
        break;
      case 'cancelled':
        if (t.reply !== 'cancelled (user stop)') problems.push(`${id} cancelled with ${JSON.stringify(t.reply)}`);
        break;
      default:
        if (t.reply !== '' && t.reply !== null)
          problems.push(`${id} ended ${t.terminal} with reply ${JSON.stringify(t.reply)}`);
    }
    if (input !== undefined && input.level !== null) {
      const want = expectedLevel(input.level, input.source, scenario.builtinPlugins);
      if (t.level !== want)
        problems.push(
          `P9: ${id} declared L${input.level} from ${input.source}, reported level ${String(t.level)}, expected ${want}`,
        );
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
        problems.push(
          `Q1: queued ${b} (submitted ${tb.submittedAt}) started at ${tb.startedAt}, before ${a} (submitted ${ta.submittedAt}, started ${ta.startedAt})`,
        );
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------- channels, outputs, memory, consolidation

export const CONSOLIDATION_CHANNEL = '_consolidation_';
/** docs/spec.md §3.7's reply, with the optional note in parentheses the kernel adds (malformed answer, no memory). */
const CONSOLIDATED = /^consolidated: (\d+) added, (\d+) skipped( \(.+\))?$/;
const INPUT_CHANNEL_VIEWS = ['all', 'mine', 'unassigned', 'by_agent', 'detail'];

/** A consolidation task: queued on `_consolidation_` (an external input or a kernel task, docs/spec.md §3.7). */
export function isConsolidation(t: ReportTask): boolean {
  return t.class === 'queued' && t.channel === CONSOLIDATION_CHANNEL;
}

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The inputch registry as the scenario's `channels` and `events` leave it (docs/spec.md §8.1, §12.2.1): by
 * name, the plugins and owners it may have. A re-registration keeps the allocation (S23); whether a
 * new non-empty owner overrides the kept one (one reading) or not (the spec: "keeps owner"), and whether an
 * absent plugin keeps the old one, is left open: both values are possible.
 */
export interface RegistryModel {
  readonly channels: Map<string, { plugins: Set<string>; owners: Set<string> }>;
}

function modelRegister(reg: RegistryModel, name: string, plugin: string | undefined, owner: string | undefined): void {
  const old = reg.channels.get(name);
  const p = plugin ?? '';
  const o = owner ?? '';
  if (old === undefined) {
    reg.channels.set(name, { plugins: new Set([p]), owners: new Set([o]) });
    return;
  }
  reg.channels.set(name, {
    plugins: p === '' ? new Set([...old.plugins, '']) : new Set([p]),
    owners: o === '' ? old.owners : new Set([...old.owners, o]),
  });
}

/** The registry after t = 0's channels and every event due at or before `t` (`strict`: before `t`). */
export function registryAt(scenario: Scenario, t: number, strict = false): RegistryModel {
  const reg: RegistryModel = { channels: new Map() };
  for (const c of scenario.channels) modelRegister(reg, c.name, c.plugin, c.owner);
  const events = scenario.events.map((e, order) => ({ e, order })).sort((a, b) => a.e.at - b.e.at || a.order - b.order);
  for (const { e } of events) {
    if (strict ? e.at >= t : e.at > t) break;
    if (e.registerChannel !== undefined)
      modelRegister(reg, e.registerChannel.name, e.registerChannel.plugin, e.registerChannel.owner);
    if (e.unregisterChannel !== undefined) reg.channels.delete(e.unregisterChannel);
  }
  return reg;
}

/**
 * True when the input a task came from was certainly routed by `route.fallback` (docs/spec.md §8.2, S21): its
 * channel was registered when it was submitted, to an owner that is neither unassigned nor the root
 * (no child agent is ever live in these scenarios).
 */
export function routedByFallback(scenario: Scenario, t: ReportTask): boolean {
  if (t.submittedAt === null || t.channel === null) return false;
  const at = registryAt(scenario, t.submittedAt).channels.get(t.channel);
  const before = registryAt(scenario, t.submittedAt, true).channels.get(t.channel);
  const foreign = (c: { owners: Set<string> } | undefined): boolean =>
    c !== undefined && [...c.owners].every((o) => o !== '' && o !== 'root');
  return foreign(at) && foreign(before);
}

/** The text-capable declared devices (docs/spec.md §12.2 `outputs`: caps default to ["text"]). */
function textDevices(scenario: Scenario): Set<string> {
  return new Set(scenario.outputs.filter((o) => (o.caps ?? ['text']).includes('text')).map((o) => o.name));
}

/**
 * Whether an `output_send__<channel>` call must succeed (true), must be refused (false), or either
 * (null: an empty text, which docs/spec.md §9.1 does not settle). docs/spec.md §8.4, §9.1: the root's grant is empty
 * (every device); a device that is not declared or cannot carry text cannot be sent on; the
 * arguments are `{text: string, type?: "text"}`.
 */
export function expectedSend(scenario: Scenario, channel: string, args: unknown): boolean | null {
  if (!textDevices(scenario).has(channel)) return false;
  if (!isObject(args) || typeof args.text !== 'string') return false;
  if (args.type !== undefined && args.type !== 'text') return false;
  if (Object.keys(args).some((k) => k !== 'text' && k !== 'type')) return null;
  return args.text === '' ? null : true;
}

/**
 * Whether an `input_channels` call must succeed, given the registry when it ran (docs/spec.md §8.3, §9.1): an
 * unknown view, an ill-typed argument, `detail` without a name or with an unregistered one are
 * errors. Null when an event at that very instant changed the answer.
 */
function expectedInputChannels(scenario: Scenario, args: unknown, at: number): boolean | null {
  if (args === undefined || args === null) return true;
  if (!isObject(args)) return false;
  const { view, name } = args;
  if (view !== undefined && typeof view !== 'string') return false;
  if (name !== undefined && typeof name !== 'string') return false;
  const v = view ?? 'all';
  if (v === '') return null;
  if (!INPUT_CHANNEL_VIEWS.includes(v)) return false;
  if (v !== 'detail') return true;
  if (name === undefined || name === '') return false;
  const now = registryAt(scenario, at).channels.has(name);
  const before = registryAt(scenario, at, true).channels.has(name);
  return now === before ? now : null;
}

/** docs/spec.md §9: a valid triple has no empty field and entity names of 2..50 characters with a letter or digit. */
function validTriple(t: JsonObject): boolean {
  const name = (v: unknown): boolean => {
    if (typeof v !== 'string') return false;
    const s = v.trim();
    return [...s].length >= 2 && [...s].length <= 50 && /[\p{L}\p{N}]/u.test(s);
  };
  return name(t.subject) && name(t.object) && typeof t.relation === 'string' && t.relation.trim() !== '';
}

/** `memory_write` arguments that are well-typed (docs/spec.md §9.1), as their triples; null when ill-typed. */
function wellTypedTriples(args: unknown): JsonObject[] | null {
  if (!isObject(args) || !Array.isArray(args.triples)) return null;
  const triples: JsonObject[] = [];
  for (const t of args.triples as unknown[]) {
    if (!isObject(t)) return null;
    if (typeof t.subject !== 'string' || typeof t.relation !== 'string' || typeof t.object !== 'string') return null;
    if (t.sentence !== undefined && typeof t.sentence !== 'string') return null;
    triples.push(t);
  }
  return triples;
}

/**
 * Whether a `memory_recall` call must succeed: false for ill-typed arguments, true for 1..3 non-blank
 * keywords with no depth or a depth of 1..2, null for content the tool may refuse (docs/spec.md §3.8: schemas
 * check types, content rules belong to the tool).
 */
function expectedRecall(args: unknown): boolean | null {
  if (!isObject(args) || !Array.isArray(args.keywords)) return false;
  const keywords = args.keywords as unknown[];
  if (!keywords.every((k) => typeof k === 'string')) return false;
  // docs/spec.md §9.1: well-typed arguments always succeed (depth clamped, no keywords → nothing found).
  return args.depth === undefined || typeof args.depth === 'number';
}

/**
 * docs/spec.md §8.4, §3.7, §12.3: everything in `outputs` was sent on a declared device that can carry text,
 * by a task whose successful `output_send__<device>` call it is — exactly one output per successful
 * call, none for a refused one — and never by a consolidation task.
 */
export function outputProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const devices = textDevices(scenario);
  const sent = new Map<string, string[]>();
  for (const [channel, entries] of Object.entries(report.outputs)) {
    if (!devices.has(channel))
      problems.push(`§8.4: ${entries.length} output(s) on ${channel}, which is not a declared text-capable device`);
    for (const o of entries) {
      if (o.agent !== 'root') problems.push(`output on ${channel} from agent ${o.agent}`);
      const list = sent.get(o.task) ?? [];
      list.push(`${channel}: ${o.text}`);
      sent.set(o.task, list);
    }
  }
  for (const [id, t] of Object.entries(report.tasks)) {
    const calls = t.toolCalls
      .filter((c) => c.ok === true && c.name.startsWith('output_send__'))
      .map(
        (c) =>
          `${c.name.slice('output_send__'.length)}: ${isObject(c.args) && typeof c.args.text === 'string' ? c.args.text : '?'}`,
      );
    const outputs = sent.get(id) ?? [];
    sent.delete(id);
    if (JSON.stringify([...calls].sort()) !== JSON.stringify([...outputs].sort())) {
      problems.push(
        `§8.4: ${id}'s successful sends ${JSON.stringify(calls)} != its outputs ${JSON.stringify(outputs)}`,
      );
    }
    if (isConsolidation(t) && outputs.length > 0)
      problems.push(`§3.7: consolidation ${id} sent ${JSON.stringify(outputs)}`);
  }
  for (const [task, outputs] of sent)
    problems.push(`outputs ${JSON.stringify(outputs)} from ${task}, which is not a task`);
  return problems;
}

/**
 * The entity names the successful `memory_write` calls stored, each with the time of its earliest
 * commit: valid triples of a well-typed call are added or were already there (idempotent, docs/spec.md §9).
 */
function committedEntities(report: Report): Map<string, number> {
  const entities = new Map<string, number>();
  for (const t of Object.values(report.tasks)) {
    for (const c of t.toolCalls) {
      if (c.name !== 'memory_write' || c.ok !== true || c.end === null) continue;
      for (const triple of wellTypedTriples(c.args) ?? []) {
        if (!validTriple(triple)) continue;
        for (const name of [triple.subject, triple.object]) {
          const key = String(name).trim();
          entities.set(key, Math.min(entities.get(key) ?? c.end, c.end));
        }
      }
    }
  }
  return entities;
}

/** The outcome every built-in tool call must have (docs/spec.md §3.8, §8.3, §8.4, §9, §9.1). */
export function builtinProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const stored = committedEntities(report);
  const wrong = (id: string, c: ReportToolCall, want: string): void => {
    problems.push(
      `${id}: ${c.name} ${JSON.stringify(c.args)} at ${c.start} gave ok=${String(c.ok)} ${JSON.stringify(c.result)}; expected ${want}`,
    );
  };
  const check = (id: string, c: ReportToolCall, want: boolean | null): void => {
    if (want !== null && c.ok !== want) wrong(id, c, want ? 'success' : 'a tool error');
  };
  for (const [id, t] of Object.entries(report.tasks)) {
    for (const c of t.toolCalls) {
      if (c.start === null) {
        // docs/spec.md §3.8: a call the model asked for that never started is listed as refused, and only a
        // task that did not finish normally (a panic, a stop) leaves calls unstarted — or a
        // consolidation, whose one model call runs no tools whatever the answer asks for (§3.7).
        const finishedNormally = t.terminal === 'done' && !isConsolidation(t);
        if (c.ok !== false || c.result !== null || c.end !== null || finishedNormally) {
          wrong(id, c, 'an unstarted call (ok false, no result, no end) in a task that did not end done');
        }
        continue;
      }
      if (c.ok === null) continue;
      if (c.name.startsWith('output_send__')) {
        const want = expectedSend(scenario, c.name.slice('output_send__'.length), c.args);
        check(id, c, want);
        if (c.ok === true && c.result !== 'ok') wrong(id, c, 'the result "ok"');
      } else if (c.name === 'output_list_channels') {
        check(id, c, true);
        for (const o of scenario.outputs) {
          if (c.ok === true && (o.caps ?? ['text']).length > 0 && !(c.result ?? '').includes(`- ${o.name}:`))
            wrong(id, c, `a listing of ${o.name}`);
        }
      } else if (c.name === 'input_channels') {
        check(id, c, expectedInputChannels(scenario, c.args, c.start));
      } else if (c.name === 'memory_write') {
        const triples = wellTypedTriples(c.args);
        check(id, c, triples !== null);
        if (triples !== null && c.ok === true) {
          // docs/spec.md §3.8, §9 (M4): "added A, skipped S" for every well-typed call; invalid triples are skipped.
          const m = /^added (\d+), skipped (\d+)$/.exec(c.result ?? '');
          const valid = triples.filter(validTriple).length;
          const added = Number(m?.[1] ?? -1);
          const skipped = Number(m?.[2] ?? -1);
          if (m === null || added + skipped !== triples.length || added > valid || skipped < triples.length - valid) {
            wrong(id, c, `"added A, skipped S" with A + S = ${triples.length}, A ≤ ${valid} valid`);
          }
        }
      } else if (c.name === 'memory_recall') {
        check(id, c, expectedRecall(c.args));
        if (c.ok === true && !/^(nothing recalled|entities:|relations:)/.test(c.result ?? ''))
          wrong(id, c, 'a recall listing');
        // M6-like: an entity committed by an earlier memory_write is recalled by its own name.
        if (c.ok === true && isObject(c.args) && Array.isArray(c.args.keywords)) {
          for (const k of c.args.keywords as unknown[]) {
            const since = typeof k === 'string' ? stored.get(k) : undefined;
            if (since !== undefined && since < c.start && !(c.result ?? '').includes(String(k)))
              wrong(id, c, `a recall of ${String(k)}, stored at ${since}`);
          }
        }
      }
    }
  }
  return problems;
}

/**
 * docs/spec.md §3.7, §2.9: a consolidation task is critical as a whole (never suspended), makes one model call
 * and no tool call; an interrupt on `_consolidation_` ends skipped/invalid; with
 * `consolidateEveryTurns` N the kernel creates one consolidation after every N-th committed
 * non-interrupt turn (done, or — if a failed turn counts — failed), and none when N is 0.
 */
export function consolidationProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const suspended = new Set(report.suspendOrder);
  let kernelConsolidations = 0;
  let doneTurns = 0;
  let failedTurns = 0;
  for (const [id, t] of Object.entries(report.tasks)) {
    if (isConsolidation(t)) {
      if (/^root:\d+$/.test(id)) kernelConsolidations += 1;
      if (suspended.has(id) || t.suspends > 0)
        problems.push(`§3.7: consolidation ${id} was suspended (whole-task critical)`);
      // One model call — or two, if an upstream context_full on the root is handled as an overflow (§3.9).
      if (t.modelCalls > 2) problems.push(`§3.7: consolidation ${id} made ${t.modelCalls} model calls`);
      // The answer may ask for tools (they are listed, unstarted); none may run.
      const ran = t.toolCalls.filter((c) => c.start !== null).map((c) => c.name);
      if (ran.length > 0) problems.push(`§3.7: consolidation ${id} ran tools ${JSON.stringify(ran)}`);
      // §2.9: a stop cancels a consolidation waiting in the FIFO, never a running one (not stop-marked).
      if (t.startedAt !== null && t.terminal === 'cancelled')
        problems.push(`§2.9: consolidation ${id} was cancelled after it started`);
      continue;
    }
    if (
      t.class === 'interrupt' &&
      t.channel === CONSOLIDATION_CHANNEL &&
      t.terminal !== null &&
      t.reason !== 'invalid'
    ) {
      problems.push(
        `§3.7: interrupt ${id} on ${CONSOLIDATION_CHANNEL} ended ${t.terminal} (${String(t.reason)}), not skipped/invalid`,
      );
    }
    if (t.class === 'queued' && t.terminal === 'done') doneTurns += 1;
    if (t.class === 'queued' && t.terminal === 'failed') failedTurns += 1;
  }
  const every = scenario.kernel.consolidateEveryTurns ?? 0;
  const least = every > 0 ? Math.floor(doneTurns / every) : 0;
  const most = every > 0 ? Math.floor((doneTurns + failedTurns) / every) : 0;
  if (kernelConsolidations < least || kernelConsolidations > most) {
    problems.push(
      `§3.7: consolidateEveryTurns ${every}, ${doneTurns} done and ${failedTurns} failed queued turns, yet ${kernelConsolidations} kernel consolidation(s) (expected ${least}..${most})`,
    );
  }
  return problems;
}

/**
 * docs/spec.md §8.1, §8.2, §12.3: the report's `channels` is the registry the scenario's channels and events
 * leave behind, and every input, fallback-routed or not, was handled by the root (input is never
 * swallowed, S21).
 */
export function channelProblems(scenario: Scenario, report: Report): string[] {
  const problems: string[] = [];
  const model = registryAt(scenario, Number.POSITIVE_INFINITY).channels;
  const names = report.channels.map((c) => c.name);
  if (JSON.stringify([...names].sort()) !== JSON.stringify([...model.keys()].sort())) {
    problems.push(
      `§8.1: channels ${JSON.stringify(names)} at the end, expected ${JSON.stringify([...model.keys()].sort())}`,
    );
  }
  for (const c of report.channels) {
    const m = model.get(c.name);
    if (m === undefined) continue;
    if (!m.plugins.has(c.plugin) || !m.owners.has(c.owner)) {
      problems.push(
        `§8.1: channel ${c.name} ended with plugin ${JSON.stringify(c.plugin)} owner ${JSON.stringify(c.owner)}, expected plugin in ${JSON.stringify([...m.plugins])}, owner in ${JSON.stringify([...m.owners])}`,
      );
    }
  }
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.terminal !== null && t.agent !== 'root') problems.push(`S21: ${id} ended on agent ${String(t.agent)}`);
  }
  return problems;
}
