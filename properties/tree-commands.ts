/**
 * fast-check commands for the model-based property of the agent tree (tree.model.test.ts). Theory of
 * operation:
 *
 * The real system is a whole kernel in the shared test world (test/support/kernel-world.ts) with the
 * invariant monitors attached; the model is tree-model.ts. Each command applies one step of a parent's
 * life to both — a control action through the root's `resident_agents` tool (its task is driven until
 * it ends, answering whatever the root runs before it), an input for a child, a model answer, a
 * door input (`child.create` under a child, `child.destroy`, `agent.stop`, `stop`) — and then
 * compares them whole (`checkAgreement`): every agent's kind, parent, state, table, owned inputchs,
 * context-full signals, committed context, scheduler containers and open model call; the registry's
 * owners; every terminal event (each task at most one, with the kind, reason and reply the model
 * predicted); every move of a task to a parent; every control result; and no monitor violation.
 *
 * The harness answers a model call with the answer the model's script gives; the real kernel is never
 * asked which task runs, it is checked against the model's prediction. Commands address agents by
 * index into the model's list, so a printed sequence replays exactly; each prints as the builder call
 * that makes it (`create('rt', 0b011, 'notify', 150)`), ready to paste into `replay([...])`.
 */
import type { Command } from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { AgentDump } from '../src/kernel/agent/dump-types.ts';
import type { SchedulerDump } from '../src/kernel/scheduler/core.ts';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import { InvariantMonitor } from '../src/kernel/trace/monitors.ts';
import type { TraceEvent } from '../src/kernel/trace/vocabulary.ts';
import { KernelWorld } from '../test/support/kernel-world.ts';
import {
  CHANNELS,
  OPERATOR,
  ROOT,
  TREE_BOUNDS_DEFAULT,
  TreeModel,
  scriptAnswers,
  type Answer,
  type ChildSpecModel,
  type Disposition,
  type Kind,
  type ModelAgent,
  type ModelTerminalOf,
  type Residual,
  type Script,
} from './tree-model.ts';

/** One kernel configuration for every run: no cooldown, so preemption is decided by levels alone. */
export interface TreeConfig {
  readonly maxQueue: number;
  readonly parentMessage: 'suspend' | 'discard';
  /** The tree's bounds (docs/spec.md §10.2); absent, the kernel's defaults. */
  readonly maxTreeDepth?: number;
  readonly maxChildren?: number;
}

function boundsOf(config: TreeConfig): { maxTreeDepth: number; maxChildren: number } {
  return {
    maxTreeDepth: config.maxTreeDepth ?? TREE_BOUNDS_DEFAULT.maxTreeDepth,
    maxChildren: config.maxChildren ?? TREE_BOUNDS_DEFAULT.maxChildren,
  };
}

export class RealTree {
  readonly world: KernelWorld;
  readonly monitor: InvariantMonitor;
  /** Terminal events seen so far, by task; a second one is a failure at once. */
  readonly terminals = new Map<string, ModelTerminalOf>();
  readonly moved: { task: string; from: string; to: string }[] = [];
  readonly controlResults: { task: string; ok: boolean }[] = [];
  /** The open model call of each task, from the commands (cheaper than asking the world each time). */
  private readonly openModel = new Map<string, string>();
  private seen = 0;

  constructor(config: TreeConfig) {
    this.monitor = new InvariantMonitor({ builtinPlugins: [OPERATOR] });
    const monitor = this.monitor;
    const openModel = this.openModel;
    this.world = new KernelWorld(
      {
        cooldownMs: 0,
        builtinPlugins: [OPERATOR],
        maxQueue: config.maxQueue,
        parentMessage: config.parentMessage,
        ...boundsOf(config),
      },
      {
        sink: { emit: (e) => monitor.observe(e) },
        onCommand: (c) => {
          if (c.type === 'model.start') {
            if (openModel.has(c.task)) throw new ModelDisagreement(`two open model calls for ${c.task}`);
            openModel.set(c.task, c.callId);
          } else if (c.type === 'model.cancel') {
            for (const [task, callId] of openModel) if (callId === c.callId) openModel.delete(task);
          }
        },
      },
    );
    for (const name of CHANNELS) this.world.registerChannel({ name, plugin: 'sensors' });
  }

  /** The open model call of `task`: the task the model says waits must have exactly one. */
  takeModelCall(task: string): string {
    const callId = this.openModel.get(task);
    if (callId === undefined)
      throw new ModelDisagreement(`the model says ${task} waits for its model, but it has no open model call`);
    this.openModel.delete(task);
    return callId;
  }

  openModelCalls(): number {
    return this.openModel.size;
  }

  /** Takes the trace events emitted since the last call into the tallies above. */
  collect(): readonly TraceEvent[] {
    const events = this.world.rec.events;
    const fresh = events.slice(this.seen);
    this.seen = events.length;
    for (const e of fresh) {
      if (e.type === 'task.terminal') {
        if (this.terminals.has(e.task))
          throw new ModelDisagreement(`I5: a second terminal event for ${e.task}: ${JSON.stringify(e)}`);
        this.terminals.set(e.task, { kind: e.kind, reason: e.reason, reply: e.reply ?? '' });
      } else if (e.type === 'task.moved') this.moved.push({ task: e.task, from: e.agent, to: e.to });
      else if (e.type === 'tool.end' && e.name === 'resident_agents')
        this.controlResults.push({ task: e.task, ok: e.ok });
    }
    return fresh;
  }
}

export interface TreeSystems {
  readonly model: TreeState;
  readonly real: RealTree;
}

/** The model, plus what the harness counts: id sequences and the control results it predicted. */
export class TreeState extends TreeModel {
  seq = 0;
  createSeq = 0;
  /** Whether the summarising call of the compress being scheduled fails. */
  summaryFails = false;
  readonly controlResults: { task: string; ok: boolean }[] = [];

  children(): ModelAgent[] {
    return [...this.agents.values()].filter((a) => a.id !== ROOT);
  }

  /**
   * The child an index names: 0..5 a live child (of `of`, when given; mod their number), 6 and up any
   * child ever created, stopped ones and grandchildren too (so refusals are exercised without starving
   * the live ones); null when none.
   */
  childAt(index: number, of: string | null = null): ModelAgent | null {
    const all = this.children().filter((a) => of === null || index >= LIVE_INDEXES || a.parent === of);
    const live = all.filter((a) => a.state !== 'stopped');
    const pool = index < LIVE_INDEXES && live.length > 0 ? live : all;
    return pool.length === 0 ? null : (pool[index % pool.length] as ModelAgent);
  }
}

export type TreeCommand = Command<TreeState, RealTree>;

/** Agent indexes below this name live children only (see `childAt`). */
export const LIVE_INDEXES = 6;

/** What the generated runs reached; the property asserts floors on it. */
export const reached = {
  actions: { list: 0, create: 0, send: 0, inspect: 0, compress: 0, reclaim: 0, destroy: 0 } as Record<string, number>,
  /** Control actions answered with a tool error (unknown or stopped child, refused creation). */
  refused: {} as Record<string, number>,
  kinds: { resident: 0, rt: 0 } as Record<string, number>,
  grandchildren: 0,
  /** Creations refused by the tree's bounds: the parent at kernel.maxTreeDepth, or at kernel.maxChildren. */
  tooDeep: 0,
  tooManyChildren: 0,
  residual: { keep: 0, drop: 0 } as Record<string, number>,
  /** Dispositions applied to a child that owned at least one inputch. */
  dispositions: { release: 0, keep: 0, handback: 0 } as Record<string, number>,
  moved: 0,
  residualDropped: 0,
  notifies: 0,
  contextfull: 0,
  compressSummarised: 0,
  compressFailed: 0,
  compressNothingOlder: 0,
  compressesSpared: 0,
  superseded: 0,
  agentStops: 0,
  rootStops: 0,
  runs: 0,
  commands: 0,
};

export function setup(config: TreeConfig): () => TreeSystems {
  return () => ({
    model: new TreeState(config.maxQueue, config.parentMessage, boundsOf(config)),
    real: new RealTree(config),
  });
}

// ---------------------------------------------------------------- agreement

export class ModelDisagreement extends Error {
  override readonly name = 'ModelDisagreement';
}

function same(what: string, real: unknown, model: unknown): void {
  if (isDeepStrictEqual(real, model)) return;
  throw new ModelDisagreement(`${what}:\n  real:  ${JSON.stringify(real)}\n  model: ${JSON.stringify(model)}`);
}

/** Which task is where in one scheduler, by id (the model's naive scheduler dumps the same shape). */
function containersOf(s: SchedulerDump): unknown {
  return {
    running: s.running?.id ?? null,
    immediate: s.immediate?.id ?? null,
    levels: [1, 2, 3, 4].map((l) => s.levelQueues[l as Level].map((t) => t.id)),
    queue: s.queue.map((t) => t.id),
    stack: s.stack.map((e) => e.task.id),
  };
}

function agentView(d: AgentDump): unknown {
  return {
    kind: d.kind,
    parent: d.parent,
    state: d.state,
    tableSize: d.tableSize,
    table: d.table,
    inputChs: d.inputChs,
    contextfullSignals: d.contextfullSignals,
    droppedByCompress: d.droppedByCompress,
    context: d.context,
    containers: containersOf(d.scheduler),
    waiting: d.current?.waiting === 'model' ? d.current.task : null,
  };
}

function modelAgentView(m: TreeState, a: ModelAgent): unknown {
  const owned = [...m.registry]
    .filter(([, owner]) => owner === a.id)
    .map(([name]) => name)
    .sort();
  return {
    kind: a.kind,
    parent: a.parent,
    state: a.state,
    tableSize: a.table.length,
    table: a.table,
    inputChs: owned,
    contextfullSignals: a.signals,
    droppedByCompress: a.droppedByCompress,
    context: a.context,
    containers: containersOf(a.sched.dump()),
    waiting: m.waitingTask(a)?.id ?? null,
  };
}

/** After every command: the kernel and the model agree on the whole tree, and nothing was lost. */
export function checkAgreement(m: TreeState, r: RealTree, after: string): void {
  r.collect();
  const dump = r.world.kernel.dump();
  same(
    `agents after ${after}`,
    dump.agents.map((a) => a.id),
    [...m.agents.keys()],
  );
  for (const d of dump.agents) same(`agent ${d.id} after ${after}`, agentView(d), modelAgentView(m, m.agent(d.id)));
  same(
    `registry owners after ${after}`,
    dump.channels.map((c) => [c.name, c.owner]),
    [...m.registry].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  same(`number of terminal events after ${after}`, r.terminals.size, m.terminals.size);
  for (const [task, terminal] of m.terminals)
    same(`terminal event of ${task} after ${after}`, r.terminals.get(task), terminal);
  same(`tasks moved to a parent after ${after}`, r.moved, m.moved);
  same(`resident_agents results after ${after}`, r.controlResults, m.controlResults);
  const waiting = [...m.agents.values()].filter((a) => m.waitingTask(a) !== null).length;
  same(`open model calls after ${after}`, r.openModelCalls(), waiting);
  if (r.monitor.violations.length > 0) {
    throw new ModelDisagreement(`monitor violations after ${after}: ${JSON.stringify(r.monitor.violations)}`);
  }
  reached.commands += 1;
}

/**
 * End of a run: the root stops (docs/spec.md §10.2a), then every task ever submitted has exactly one terminal
 * event, nothing waits, and the monitors' end-of-run checks pass.
 */
export function finishRun(m: TreeState, r: RealTree): void {
  if (m.agent(ROOT).state !== 'stopped') new StopRoot().run(m, r);
  same('live tasks in the model after the root stopped', [...m.tasks.keys()], []);
  const submitted = new Set(r.world.rec.events.flatMap((e) => (e.type === 'task.submitted' ? [e.task] : [])));
  same(
    'tasks without exactly one terminal event',
    [...submitted].filter((id) => !r.terminals.has(id)),
    [],
  );
  same(
    'terminal events of tasks never submitted',
    [...r.terminals.keys()].filter((id) => !submitted.has(id)),
    [],
  );
  same('open calls after the root stopped', r.world.pending().model.length + r.world.pending().tools.length, 0);
  r.monitor.finish({ drained: true, stoppedAgents: [...m.agents.keys()] });
  reached.compressSummarised += m.compressions.summarised;
  reached.compressFailed += m.compressions.failed;
  reached.compressNothingOlder += m.compressions.nothing;
  reached.compressesSpared += m.compressesSpared;
  reached.superseded += [...m.terminals.values()].filter((t) => t.kind === 'superseded').length;
  if (r.monitor.violations.length > 0)
    throw new ModelDisagreement(`monitor violations at the end: ${JSON.stringify(r.monitor.violations)}`);
  reached.runs += 1;
}

// ---------------------------------------------------------------- driving both systems

function tick(m: TreeState, r: RealTree): void {
  m.nowMs += 10;
  r.world.at(m.nowMs);
}

/** Answers `agent`'s open model call in both systems with the model's scripted answer. */
function answerBoth(m: TreeState, r: RealTree, agent: ModelAgent): void {
  const { task, answer } = m.answer(agent, (taskId, name, args) =>
    name === 'resident_agents' ? control(m, taskId, args) : null,
  );
  answerReal(r, task, answer);
  m.settle();
}

function answerReal(r: RealTree, task: string, answer: Answer): void {
  const callId = r.takeModelCall(task);
  switch (answer.kind) {
    case 'text':
      r.world.answerCall(callId, answer.text);
      break;
    case 'tool':
      r.world.answerCall(callId, '', [{ name: answer.name, args: answer.args }]);
      break;
    case 'fail':
      r.world.handle({ type: 'model.failed', callId, failure: 'error', error: answer.error });
      break;
  }
}

/** The `resident_agents` arguments the harness writes, by their docs/spec.md §9.1 names. */
interface ControlArgs {
  readonly action: string;
  readonly id?: string;
  readonly text?: string;
  readonly kind?: string;
  readonly input_chs?: readonly string[];
  readonly task_prompt?: string;
  readonly residual?: Residual;
  readonly channels?: Disposition;
}

const SCRIPT_SUFFIX = /\((plain|notify|note|fail|big)\)$/;

/** The script of a task the control plane creates, read back from the text the harness gave it. */
function scriptOf(text: string): Script {
  return (SCRIPT_SUFFIX.exec(text)?.[1] ?? 'plain') as Script;
}

/** The model's side of one `resident_agents` call by the root (docs/spec.md §10.6): applies it, returns ok. */
function control(m: TreeState, taskId: string, raw: string): { ok: boolean } {
  const args = JSON.parse(raw) as ControlArgs;
  const ok = applyControl(m, args);
  m.controlResults.push({ task: taskId, ok });
  if (ok) reached.actions[args.action] = (reached.actions[args.action] ?? 0) + 1;
  else reached.refused[args.action] = (reached.refused[args.action] ?? 0) + 1;
  return { ok };
}

function applyControl(m: TreeState, args: ControlArgs): boolean {
  if (args.action === 'list') return true;
  const id = args.id ?? '';
  if (args.action === 'create') {
    const spec: ChildSpecModel = {
      id,
      kind: args.kind ?? 'resident',
      inputChs: args.input_chs ?? [],
      taskPrompt:
        args.task_prompt === undefined ? null : { text: args.task_prompt, script: scriptOf(args.task_prompt) },
      window: null,
      capacity: null,
    };
    countBounds(m.createProblem(ROOT, spec));
    const ok = m.create(ROOT, spec);
    if (ok) reached.kinds[spec.kind] = (reached.kinds[spec.kind] ?? 0) + 1;
    return ok;
  }
  const child = m.agents.get(id);
  if (child === undefined || child.parent !== ROOT) return false;
  if (args.action === 'inspect') return true;
  if (child.state === 'stopped') return false;
  switch (args.action) {
    case 'send':
      m.send(child, args.text ?? '', scriptOf(args.text ?? ''));
      return true;
    case 'compress': {
      m.compress(child, m.summaryFails ? null : `summary of ${id}`);
      return true;
    }
    case 'reclaim':
    case 'destroy':
      stopWithPolicy(m, child, args.action, args.residual, args.channels);
      return true;
    default:
      throw new Error(`harness: unknown control action ${args.action}`);
  }
}

function stopWithPolicy(
  m: TreeState,
  child: ModelAgent,
  by: 'destroy' | 'reclaim',
  residual: Residual | undefined,
  channels: Disposition | undefined,
): void {
  const defaults = m.defaults(child.id);
  const r = residual ?? defaults.residual;
  const c = channels ?? defaults.channels;
  reached.residual[r] = (reached.residual[r] ?? 0) + 1;
  if ([...m.registry.values()].includes(child.id)) reached.dispositions[c] = (reached.dispositions[c] ?? 0) + 1;
  const movedBefore = m.moved.length;
  const droppedBefore = [...m.terminals.values()].filter((t) => t.reason === 'residual_dropped_by_parent').length;
  m.stop(child.id, { by, residual: r, channels: c });
  reached.moved += m.moved.length - movedBefore;
  reached.residualDropped +=
    [...m.terminals.values()].filter((t) => t.reason === 'residual_dropped_by_parent').length - droppedBefore;
}

/**
 * Submits a control task to the root (queued, from the operator plugin) and answers the root until it
 * has ended: the tasks ahead of it run first, each with its own script.
 */
function runControl(m: TreeState, r: RealTree, args: ControlArgs): void {
  m.seq += 1;
  const id = `ctl${m.seq}`;
  const text = `control ${m.seq}: ${args.action}`;
  const answers: Answer[] = [
    { kind: 'tool', name: 'resident_agents', args: JSON.stringify(args) },
    { kind: 'text', text: `control done ${id}` },
  ];
  m.submit({ id, to: ROOT, cls: 'queued', level: 1, source: OPERATOR, channel: OPERATOR, text, answers });
  m.settle();
  r.world.submit({ id, cls: 'queued', text, source: OPERATOR });
  const root = m.agent(ROOT);
  for (let i = 0; i < 200 && !m.terminals.has(id); i += 1) {
    if (m.waitingTask(root) === null)
      throw new ModelDisagreement(`harness: control task ${id} is live, but the root runs nothing`);
    answerBoth(m, r, root);
  }
}

// ---------------------------------------------------------------- commands

abstract class Base implements TreeCommand {
  check(): boolean {
    return true;
  }
  run(m: TreeState, r: RealTree): void {
    tick(m, r);
    this.apply(m, r);
    checkAgreement(m, r, this.toString());
  }
  abstract apply(m: TreeState, r: RealTree): void;
  abstract toString(): string;
}

const bits = (mask: number): string => `0b${mask.toString(2).padStart(3, '0')}`;

function channelsOf(mask: number, unknown: boolean): string[] {
  const names = CHANNELS.filter((_, i) => (mask & (1 << i)) !== 0);
  return unknown ? [...names, 'ch-unknown'] : names;
}

/**
 * A child of the root. Without a window of its own it is the root's model's `resident_agents create`;
 * with one it comes through the door (`child.create`), as a scenario's residents do: the tool takes no
 * window (docs/spec.md §9.1).
 */
class Create extends Base {
  constructor(
    readonly kind: Kind | 'bogus',
    readonly mask: number,
    readonly prompt: Script | null,
    readonly window: number | null,
    readonly duplicate: boolean,
    readonly unknownChannel: boolean,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    m.createSeq += 1;
    const existing = m.children()[0];
    const id = this.duplicate && existing !== undefined ? existing.id : `k${m.createSeq}`;
    const inputChs = channelsOf(this.mask, this.unknownChannel);
    const taskPrompt = this.prompt === null ? null : `prompt of ${id} (${this.prompt})`;
    if (this.window !== null) {
      const created = createThroughDoor(m, r, ROOT, {
        id,
        kind: this.kind,
        inputChs,
        taskPrompt: taskPrompt === null || this.prompt === null ? null : { text: taskPrompt, script: this.prompt },
        window: this.window,
        capacity: null,
      });
      if (created) reached.kinds[this.kind] = (reached.kinds[this.kind] ?? 0) + 1;
      return;
    }
    runControl(m, r, {
      action: 'create',
      id,
      kind: this.kind,
      input_chs: inputChs,
      ...(taskPrompt === null ? {} : { task_prompt: taskPrompt }),
    });
  }
  toString(): string {
    return `create('${this.kind}', ${bits(this.mask)}, ${this.prompt === null ? 'null' : `'${this.prompt}'`}, ${String(this.window)}${this.duplicate || this.unknownChannel ? `, ${String(this.duplicate)}, ${String(this.unknownChannel)}` : ''})`;
  }
}

function countBounds(problem: string | null): void {
  if (problem === 'too deep') reached.tooDeep += 1;
  if (problem === 'too many children') reached.tooManyChildren += 1;
}

/**
 * `child.create` under `parent` in both systems; the kernel must create exactly when the model does.
 * Returns whether the child was created.
 */
function createThroughDoor(m: TreeState, r: RealTree, parent: string, spec: ChildSpecModel): boolean {
  const problem = m.createProblem(parent, spec);
  countBounds(problem);
  const expected = problem === null;
  m.create(parent, spec);
  m.settle();
  const result = r.world.feed({
    type: 'child.create',
    parent,
    spec: {
      id: spec.id,
      kind: spec.kind,
      inputChs: spec.inputChs,
      ...(spec.taskPrompt === null ? {} : { taskPrompt: spec.taskPrompt.text }),
      ...(spec.window === null ? {} : { contextWindowTokens: spec.window }),
      ...(spec.capacity === null ? {} : { capacity: spec.capacity }),
    },
  });
  same(`child.create ${spec.id} under ${parent}`, result.kind, expected ? 'created' : 'refused');
  return expected;
}

/** A grandchild, through the door (`child.create` with a parent): the control plane is the root's only. */
class CreateUnder extends Base {
  constructor(
    readonly parent: number,
    readonly kind: Kind,
    readonly mask: number,
    readonly prompt: Script | null,
    readonly window: number | null,
    readonly capacity: number | null,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const parent = m.childAt(this.parent);
    if (parent === null) return;
    m.createSeq += 1;
    const id = `k${m.createSeq}`;
    const created = createThroughDoor(m, r, parent.id, {
      id,
      kind: this.kind,
      inputChs: channelsOf(this.mask, false),
      taskPrompt: this.prompt === null ? null : { text: `prompt of ${id} (${this.prompt})`, script: this.prompt },
      window: this.window,
      capacity: this.capacity,
    });
    if (created) {
      reached.grandchildren += 1;
      reached.kinds[this.kind] = (reached.kinds[this.kind] ?? 0) + 1;
    }
  }
  toString(): string {
    return `createUnder(${this.parent}, '${this.kind}', ${bits(this.mask)}, ${this.prompt === null ? 'null' : `'${this.prompt}'`}, ${String(this.window)}, ${String(this.capacity)})`;
  }
}

/** An external input to `to`, on `channel` when it has one (the root's inputch; routing decides). */
function submitInput(
  m: TreeState,
  r: RealTree,
  input: { to: string; channel: string | null; script: Script; level: Level | null },
): void {
  m.seq += 1;
  const id = `x${m.seq}`;
  const text = `input ${id} (${input.script})`;
  const cls = input.level === null ? 'queued' : 'interrupt';
  m.submit({
    id,
    to: input.to,
    cls,
    level: input.level ?? 1,
    source: 'user',
    channel: input.channel ?? 'user',
    text,
    answers: scriptAnswers(input.script, id),
  });
  m.settle();
  r.world.submit({
    id,
    cls,
    text,
    source: 'user',
    ...(input.level === null ? {} : { level: input.level }),
    ...(input.channel === null ? { agent: input.to } : { channel: input.channel }),
  });
}

/** An external input: addressed to a child, or to the root on an inputch (routing decides). */
class Submit extends Base {
  constructor(
    readonly target: number,
    readonly script: Script,
    readonly via: number | null,
    readonly level: Level | null,
    readonly count = 1,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    for (let i = 0; i < this.count; i += 1) {
      const channel = this.via === null ? null : (CHANNELS[this.via % CHANNELS.length] as string);
      const to = channel !== null ? ROOT : (m.childAt(this.target)?.id ?? ROOT);
      submitInput(m, r, { to, channel, script: this.script, level: this.level });
    }
  }
  toString(): string {
    return `submit(${this.target}, '${this.script}', ${String(this.via)}, ${String(this.level)}${this.count === 1 ? '' : `, ${this.count}`})`;
  }
}

/** The harness answers one open model call (of the `index`-th agent that has one). */
class AnswerOne extends Base {
  constructor(readonly index: number) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const open = [...m.agents.values()].filter((a) => m.waitingTask(a) !== null);
    const agent = open[this.index % Math.max(1, open.length)];
    if (agent === undefined) return;
    const task = m.waitingTask(agent);
    const before = task === null ? 0 : task.calls;
    const script = task?.answers[Math.min(before, task.answers.length - 1)];
    if (script?.kind === 'tool' && script.name === 'notify_parent' && agent.kind !== 'root') reached.notifies += 1;
    answerBoth(m, r, agent);
  }
  toString(): string {
    return `answer(${this.index})`;
  }
}

class Send extends Base {
  constructor(
    readonly child: number,
    readonly script: Script,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const id = m.childAt(this.child, ROOT)?.id ?? 'nobody';
    m.seq += 1;
    const text = `message ${m.seq} to ${id} (${this.script})`;
    runControl(m, r, { action: 'send', id, text });
  }
  toString(): string {
    return `send(${this.child}, '${this.script}')`;
  }
}

/**
 * `compress` of a child; with `follow`, an input to the same child right after, while the compress task
 * is still live — on an rt child the newcomer must wait beside it, never supersede it (docs/spec.md §10.1).
 */
class Compress extends Base {
  constructor(
    readonly child: number,
    readonly fails: boolean,
    readonly follow: Script | null = null,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const target = m.childAt(this.child, ROOT);
    const id = target?.id ?? 'nobody';
    m.summaryFails = this.fails;
    runControl(m, r, { action: 'compress', id });
    if (target !== null && this.follow !== null)
      submitInput(m, r, { to: target.id, channel: null, script: this.follow, level: null });
  }
  toString(): string {
    return `compress(${this.child}, ${String(this.fails)}${this.follow === null ? '' : `, '${this.follow}'`})`;
  }
}

/** `inspect` (S7): a read-only snapshot; the child's dump and trace are the same before and after. */
class Inspect extends Base {
  constructor(readonly child: number) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const id = m.childAt(this.child, ROOT)?.id ?? 'nobody';
    // What the root runs first may act on the child (a compress after a context-full signal): it runs
    // before the snapshot, so that only the inspect itself lies between the two.
    const root = m.agent(ROOT);
    for (let i = 0; i < 200 && m.waitingTask(root) !== null; i += 1) answerBoth(m, r, root);
    const before = r.world.kernel.dump().agents.find((a) => a.id === id);
    const from = r.world.rec.events.length;
    runControl(m, r, { action: 'inspect', id });
    const after = r.world.kernel.dump().agents.find((a) => a.id === id);
    same(`S7: ${id} after inspect`, after, before);
    const traced = r.world.rec.events.slice(from).filter((e) => e.agent === id);
    same(`S7: trace events of ${id} during inspect`, traced, []);
  }
  toString(): string {
    return `inspect(${this.child})`;
  }
}

class List extends Base {
  apply(m: TreeState, r: RealTree): void {
    runControl(m, r, { action: 'list' });
  }
  toString(): string {
    return 'list()';
  }
}

class Dispose extends Base {
  constructor(
    readonly action: 'destroy' | 'reclaim',
    readonly child: number,
    readonly residual: Residual | null,
    readonly channels: Disposition | null,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const id = m.childAt(this.child, ROOT)?.id ?? 'nobody';
    runControl(m, r, {
      action: this.action,
      id,
      ...(this.residual === null ? {} : { residual: this.residual }),
      ...(this.channels === null ? {} : { channels: this.channels }),
    });
  }
  toString(): string {
    return `${this.action}(${this.child}, ${this.residual === null ? 'null' : `'${this.residual}'`}, ${this.channels === null ? 'null' : `'${this.channels}'`})`;
  }
}

/** A destroy from outside the agents (`child.destroy`, a scenario event): any child, grandchildren too. */
class DoorDestroy extends Base {
  constructor(
    readonly child: number,
    readonly residual: Residual | null,
    readonly channels: Disposition | null,
  ) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const child = m.childAt(this.child);
    if (child === null) return;
    const live = child.state !== 'stopped';
    if (live) stopWithPolicy(m, child, 'destroy', this.residual ?? undefined, this.channels ?? undefined);
    m.settle();
    const disposal = {
      ...(this.residual === null ? {} : { residual: this.residual }),
      ...(this.channels === null ? {} : { channels: this.channels }),
    };
    const result = r.world.feed({ type: 'child.destroy', id: child.id, disposal });
    same(`child.destroy ${child.id}`, result.kind, live ? 'destroyed' : 'refused');
  }
  toString(): string {
    return `doorDestroy(${this.child}, ${this.residual === null ? 'null' : `'${this.residual}'`}, ${this.channels === null ? 'null' : `'${this.channels}'`})`;
  }
}

/** `agent.stop` (a scenario's `stopAgent`): like a parent's stop, no residual policy. */
class StopAgent extends Base {
  constructor(readonly child: number) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const child = m.childAt(this.child);
    if (child === null) return;
    if (child.state !== 'stopped') reached.agentStops += 1;
    m.stop(child.id, { by: 'stop' });
    m.settle();
    same(`agent.stop ${child.id}`, r.world.feed({ type: 'agent.stop', agent: child.id }).kind, 'stopped');
  }
  toString(): string {
    return `stopAgent(${this.child})`;
  }
}

/** The root stops, and with it the tree, children first (docs/spec.md §10.2a). */
export class StopRoot extends Base {
  apply(m: TreeState, r: RealTree): void {
    if (m.agent(ROOT).state !== 'stopped') reached.rootStops += 1;
    m.stop(ROOT, { by: 'stop' });
    m.settle();
    r.world.stopAgent();
  }
  toString(): string {
    return 'stopRoot()';
  }
}

/**
 * Drives a child over 0.9 × its window: a long input is submitted and the child answered until it has
 * ended; a short input then starts, whose Prepare finds the context full (docs/spec.md §10.5).
 */
class Fill extends Base {
  constructor(readonly child: number) {
    super();
  }
  apply(m: TreeState, r: RealTree): void {
    const child = m.childAt(this.child);
    if (child === null) return;
    new Submit(this.child, 'big', null, null).apply(m, r);
    const big = `x${m.seq}`;
    for (let i = 0; i < 50 && !m.terminals.has(big) && m.waitingTask(child) !== null; i += 1) answerBoth(m, r, child);
    const signals = child.signals;
    new Submit(this.child, 'plain', null, null).apply(m, r);
    if (child.signals > signals) reached.contextfull += 1;
  }
  toString(): string {
    return `fill(${this.child})`;
  }
}

// ---------------------------------------------------------------- builders (the printed vocabulary)

export const create = (
  kind: Kind | 'bogus',
  mask: number,
  prompt: Script | null,
  window: number | null,
  duplicate = false,
  unknownChannel = false,
): TreeCommand => new Create(kind, mask, prompt, window, duplicate, unknownChannel);
export const createUnder = (
  parent: number,
  kind: Kind,
  mask: number,
  prompt: Script | null,
  window: number | null,
  capacity: number | null,
): TreeCommand => new CreateUnder(parent, kind, mask, prompt, window, capacity);
export const submit = (
  target: number,
  script: Script,
  via: number | null,
  level: Level | null,
  count = 1,
): TreeCommand => new Submit(target, script, via, level, count);
export const answer = (index: number): TreeCommand => new AnswerOne(index);
export const send = (child: number, script: Script): TreeCommand => new Send(child, script);
export const compress = (child: number, fails: boolean, follow: Script | null = null): TreeCommand =>
  new Compress(child, fails, follow);
export const inspect = (child: number): TreeCommand => new Inspect(child);
export const list = (): TreeCommand => new List();
export const destroy = (child: number, residual: Residual | null, channels: Disposition | null): TreeCommand =>
  new Dispose('destroy', child, residual, channels);
export const reclaim = (child: number, residual: Residual | null, channels: Disposition | null): TreeCommand =>
  new Dispose('reclaim', child, residual, channels);
export const doorDestroy = (child: number, residual: Residual | null, channels: Disposition | null): TreeCommand =>
  new DoorDestroy(child, residual, channels);
export const stopAgent = (child: number): TreeCommand => new StopAgent(child);
export const stopRoot = (): TreeCommand => new StopRoot();
export const fill = (child: number): TreeCommand => new Fill(child);

/**
 * Replays an exact command sequence through the same checks as the property, ends the run the same
 * way (the root stops, every task has one terminal), and returns both systems.
 */
export function replay(config: TreeConfig, commands: readonly TreeCommand[]): TreeSystems {
  const systems = setup(config)();
  for (const command of commands) command.run(systems.model, systems.real);
  finishRun(systems.model, systems.real);
  return systems;
}
