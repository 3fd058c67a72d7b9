/**
 * A deliberately naive model of the agent tree (docs/spec.md §10), written from the spec, for the model-based
 * property in tree.model.test.ts. Theory of operation:
 *
 * The model holds what the tree is made of — agents with their parent, kind, state, window, processing
 * table, context-full latch and committed context; the inputch registry's owners; every task with its
 * scripted model answers — and replays each command the way docs/spec.md §10 describes it, with plain arrays
 * and linear scans. Which task of an agent runs next is docs/spec.md §2's question, not §10's: every agent
 * owns a `SchedulerModel` (scheduler-model.ts, the naive scheduler the scheduler property already
 * checks) and the model drives it the way the agent driver does — a pick when idle, a safe point
 * before each step, a preemption that cancels the streaming call. The only import from src/ are types.
 *
 * Every task waits in its Model step until the harness answers it: its script says what the model
 * answers at each call (a text, one tool call, or a failure). All other steps take no time, so after
 * every command each live agent's running task (if any) waits for its model, and the model predicts
 * exactly which task that is, everything each agent holds, and every terminal event.
 */
import type { AgentState, ContextEvent } from '../src/kernel/agent/dump-types.ts';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import type { Terminal, TerminalKind, TerminalReason } from '../src/kernel/task/terminal.ts';
import { SchedulerModel } from './scheduler-model.ts';

export const ROOT = 'root';
/** The plugin whose sources are kernel-level on the root (the control tasks' source). */
export const OPERATOR = 'op';
/** Inputchs registered, unassigned, before the first command. */
export const CHANNELS = ['ch-a', 'ch-b', 'ch-c'] as const;
/** docs/spec.md §10.5, restated: the context-full share and the compress budget. */
const FULL_RATIO = 0.9;
const KEEP_RATIO = 0.5;
const KEEP_MAX = 20;
const WINDOW_DEFAULT = 32_768;
/** docs/spec.md §10.2, restated: the tree's bounds by default. */
export const TREE_BOUNDS_DEFAULT = { maxTreeDepth: 4, maxChildren: 64 } as const;
const COMPRESS_CHANNEL = '_compress_';
const COMPRESS_TEXT = 'compress the conversation context';
/** What an automatic table record keeps of a round. */
const AUTO_INPUT_MAX = 80;
const AUTO_OUTPUT_MAX = 120;
/** Length of a `big` answer: one fills a 150-token window, two a 320-token one. */
export const BIG_LENGTH = 140;

export type Kind = 'resident' | 'rt';
export type Residual = 'keep' | 'drop';
export type Disposition = 'release' | 'keep' | 'handback';
/** What a task's model answers: a plain text, a notify, a note, a failure, or a long text. */
export type Script = 'plain' | 'notify' | 'note' | 'fail' | 'big';

export type Answer =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool'; readonly name: string; readonly args: string }
  | { readonly kind: 'fail'; readonly error: string };

export interface ModelTerminalOf {
  readonly kind: TerminalKind;
  readonly reason: TerminalReason | null;
  readonly reply: string;
}

interface ModelTask {
  readonly id: string;
  readonly cls: 'queued' | 'interrupt';
  readonly level: Level | null;
  readonly kernel: boolean;
  readonly source: string;
  readonly channel: string;
  readonly text: string;
  readonly answers: readonly Answer[];
  readonly compress: boolean;
  /** Completed model calls (a cancelled call does not count: it is re-sent). */
  calls: number;
  /** Its cursor: Prepare until the task first ran it, then Model. */
  step: 'Prepare' | 'Model';
  /** Its model call is open. */
  waiting: boolean;
  /** A parent message preempted it under `parentMessage: "discard"`: it fails at its next step. */
  discarded: boolean;
}

export interface TableRow {
  readonly inputch: string;
  readonly atMs: number;
  readonly proactive: boolean;
  readonly text: string;
}

export interface ModelAgent {
  readonly id: string;
  readonly kind: 'root' | Kind;
  readonly parent: string | null;
  state: AgentState;
  readonly sched: SchedulerModel;
  readonly window: number;
  /** Where the tree's tasks on it arrive: its first inputch, else `sub/<id>`. */
  readonly home: string;
  readonly children: string[];
  readonly context: ContextEvent[];
  readonly table: TableRow[];
  /** Pending `inputch_note` texts, by task. */
  readonly notes: Map<string, string>;
  latchArmed: boolean;
  signals: number;
  droppedByCompress: number;
  kernelSeq: number;
  /** How many of `sched.terminals` the tree has taken. */
  terminalsTaken: number;
}

export interface ChildSpecModel {
  readonly id: string;
  readonly kind: string;
  readonly inputChs: readonly string[];
  readonly taskPrompt: { readonly text: string; readonly script: Script } | null;
  readonly window: number | null;
  readonly capacity: number | null;
}

export interface StopCause {
  readonly by: 'stop' | 'destroy' | 'reclaim';
  readonly residual?: Residual;
  readonly channels?: Disposition;
}

export interface MovedModel {
  readonly task: string;
  readonly from: string;
  readonly to: string;
}

const KIND_DEFAULTS: Record<Kind, { residual: Residual; channels: Disposition }> = {
  resident: { residual: 'keep', channels: 'release' },
  rt: { residual: 'keep', channels: 'keep' },
};

function tokens(s: string): number {
  // Every text of the property is ASCII: one token per character (docs/spec.md §10.5).
  return s.length;
}

function eventTokens(e: { readonly input: string; readonly response: string }): number {
  return tokens(e.input) + tokens(e.response);
}

export function bigText(task: string): string {
  const head = `long answer of ${task} `;
  return head + 'x'.repeat(Math.max(0, BIG_LENGTH - head.length));
}

export function scriptAnswers(script: Script, task: string): Answer[] {
  switch (script) {
    case 'plain':
      return [{ kind: 'text', text: `ok ${task}` }];
    case 'notify':
      return [
        { kind: 'tool', name: 'notify_parent', args: JSON.stringify({ text: `news from ${task}` }) },
        { kind: 'text', text: `notified by ${task}` },
      ];
    case 'note':
      return [
        { kind: 'tool', name: 'inputch_note', args: JSON.stringify({ text: `note of ${task}` }) },
        { kind: 'text', text: `noted by ${task}` },
      ];
    case 'fail':
      return [{ kind: 'fail', error: `scripted failure of ${task}` }];
    case 'big':
      return [{ kind: 'text', text: bigText(task) }];
  }
}

export class TreeModel {
  nowMs = 0;
  readonly agents = new Map<string, ModelAgent>();
  readonly tasks = new Map<string, ModelTask>();
  /** Where each live task is, by id. */
  readonly owner = new Map<string, string>();
  readonly registry = new Map<string, string>();
  readonly terminals = new Map<string, ModelTerminalOf>();
  readonly moved: MovedModel[] = [];
  /** How the compress tasks ended: summarised, summary call failed, nothing older to summarise. */
  readonly compressions = { summarised: 0, failed: 0, nothing: 0 };
  /** Newcomers on an rt child that waited beside a compress instead of superseding it. */
  compressesSpared = 0;

  constructor(
    readonly maxQueue: number,
    readonly parentMessage: 'suspend' | 'discard' = 'suspend',
    readonly bounds: { readonly maxTreeDepth: number; readonly maxChildren: number } = TREE_BOUNDS_DEFAULT,
  ) {
    this.addAgent(ROOT, 'root', null, WINDOW_DEFAULT, 'root', maxQueue);
    for (const name of CHANNELS) this.registry.set(name, '');
  }

  agent(id: string): ModelAgent {
    const a = this.agents.get(id);
    if (a === undefined) throw new Error(`model: no agent ${id}`);
    return a;
  }

  task(id: string): ModelTask {
    const t = this.tasks.get(id);
    if (t === undefined) throw new Error(`model: no live task ${id}`);
    return t;
  }

  /** The task an agent runs, if its model call is open. */
  waitingTask(agent: ModelAgent): ModelTask | null {
    const running = agent.sched.running;
    if (running === null || agent.state === 'stopped') return null;
    const t = this.task(running.id);
    return t.waiting ? t : null;
  }

  // ---------------------------------------------------------------- the skeleton (docs/spec.md §10.1, §10.2)

  /** Why `create` under `parent` is refused, or null (the checks of docs/spec.md §10.2, in the kernel's order). */
  createProblem(parent: string, spec: ChildSpecModel): string | null {
    const p = this.agents.get(parent);
    if (p === undefined || p.state === 'stopped') return 'parent not live';
    if (this.agents.has(spec.id)) return 'duplicate id';
    let depth = 1;
    for (let a = p; a.parent !== null; a = this.agent(a.parent)) depth += 1;
    if (depth > this.bounds.maxTreeDepth) return 'too deep';
    const live = p.children.filter((c) => this.agent(c).state !== 'stopped').length;
    if (live >= this.bounds.maxChildren) return 'too many children';
    if (spec.kind !== 'resident' && spec.kind !== 'rt') return 'unknown kind';
    const seen = new Set<string>();
    for (const name of spec.inputChs) {
      const owner = this.registry.get(name);
      if (owner === undefined) return 'unknown inputch';
      if (owner !== '' && owner !== parent) return 'inputch owned by another agent';
      if (seen.has(name)) return 'inputch listed twice';
      seen.add(name);
    }
    return null;
  }

  create(parent: string, spec: ChildSpecModel): boolean {
    if (this.createProblem(parent, spec) !== null) return false;
    const p = this.agent(parent);
    const window = spec.window ?? WINDOW_DEFAULT;
    const home = spec.inputChs[0] ?? `sub/${spec.id}`;
    const child = this.addAgent(
      spec.id,
      spec.kind as Kind,
      parent,
      window,
      home,
      spec.capacity ?? p.sched.config.maxQueue,
    );
    p.children.push(child.id);
    this.registry.set(`child/${child.id}`, parent);
    for (const name of spec.inputChs) this.registry.set(name, child.id);
    if (spec.taskPrompt !== null) {
      const { text, script } = spec.taskPrompt;
      this.kernelTask(child, { cls: 'queued', level: null, source: `parent/${parent}`, channel: home, text }, (id) =>
        scriptAnswers(script, id),
      );
    }
    return true;
  }

  private addAgent(
    id: string,
    kind: 'root' | Kind,
    parent: string | null,
    window: number,
    home: string,
    maxQueue: number,
  ): ModelAgent {
    const agent: ModelAgent = {
      id,
      kind,
      parent,
      state: 'running',
      sched: new SchedulerModel(id, { maxQueue, cooldownMs: 0, selfLoopExtraMax: 64 }),
      window,
      home,
      children: [],
      context: [],
      table: [],
      notes: new Map(),
      latchArmed: true,
      signals: 0,
      droppedByCompress: 0,
      kernelSeq: 0,
      terminalsTaken: 0,
    };
    this.agents.set(id, agent);
    return agent;
  }

  /** docs/spec.md §10.2a: children first, depth-first; then the agent's own tasks; then its channels. */
  stop(id: string, cause: StopCause): void {
    const agent = this.agents.get(id);
    if (agent === undefined || agent.state === 'stopped') return;
    for (const child of agent.children) this.stop(child, { by: 'stop' });
    const residual = cause.by === 'stop' ? null : (cause.residual ?? null);
    const waiting = new Set<string>();
    const s = agent.sched;
    if (s.immediate !== null) waiting.add(s.immediate.id);
    for (const level of [4, 3, 2, 1] as const) for (const t of s.levelQueues[level]) waiting.add(t.id);
    for (const t of s.queue) waiting.add(t.id);
    agent.state = 'stopped';
    const ended = s.stopAll({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
    const movedTasks: ModelTask[] = [];
    s.terminals.splice(agent.terminalsTaken);
    for (const taskId of ended) {
      const task = this.task(taskId);
      task.waiting = false;
      const external = !task.kernel && waiting.has(taskId);
      if (residual === 'keep' && external) {
        movedTasks.push(task);
        this.tasks.delete(taskId);
        this.owner.delete(taskId);
      } else if (residual === 'drop' && external)
        this.end(taskId, { kind: 'skipped', reason: 'residual_dropped_by_parent', reply: '' });
      else this.end(taskId, { kind: 'skipped', reason: 'agent_stopped', reply: '' });
    }
    agent.terminalsTaken = s.terminals.length;
    const parent = agent.parent === null ? null : this.agent(agent.parent);
    for (const task of movedTasks) {
      if (parent === null) throw new Error('model: the root has no residual policy');
      this.moved.push({ task: task.id, from: id, to: parent.id });
      const copy: ModelTask = { ...task, cls: 'queued', level: null, calls: 0, step: 'Prepare', waiting: false };
      this.admit(parent, copy, { kernel: false });
    }
    if (agent.kind === 'root') return;
    const disposition =
      cause.by === 'stop' ? KIND_DEFAULTS[agent.kind].channels : (cause.channels ?? KIND_DEFAULTS[agent.kind].channels);
    for (const [name, owner] of this.registry) {
      if (owner !== id) continue;
      if (disposition === 'release') this.registry.set(name, '');
      else if (disposition === 'handback') this.registry.set(name, agent.parent ?? '');
    }
    this.registry.delete(`child/${id}`);
  }

  /** The residual policy and disposition a destroy or reclaim without them applies (docs/spec.md §10.1). */
  defaults(id: string): { residual: Residual; channels: Disposition } {
    const kind = this.agent(id).kind;
    return kind === 'root' ? { residual: 'keep', channels: 'release' } : KIND_DEFAULTS[kind];
  }

  // ---------------------------------------------------------------- inputs

  /**
   * An external input (docs/spec.md §8.2, §5): routed by its channel's owner from the agent it is addressed
   * to, refused on a stopped agent, clamped to L3 unless its source is a built-in plugin on the root.
   * Returns the agent that took it.
   */
  submit(input: {
    id: string;
    to: string;
    cls: 'queued' | 'interrupt';
    level: Level;
    source: string;
    channel: string;
    text: string;
    answers: Answer[];
  }): string {
    const addressed = this.agent(input.to);
    const owner = this.registry.get(input.channel) ?? '';
    let target = addressed;
    if (owner !== '' && owner !== addressed.id) {
      const child = this.agents.get(owner);
      if (child !== undefined && child.parent === addressed.id && child.state !== 'stopped') target = child;
    }
    const privileged = target.kind === 'root' && (input.source === OPERATOR || input.source.startsWith(`${OPERATOR}/`));
    const level: Level | null = input.cls === 'queued' ? null : input.level === 4 && !privileged ? 3 : input.level;
    if (target.state === 'stopped') {
      target.sched.refuse(input.id, input.cls, level, 'agent_stopped');
      this.takeTerminals(target);
      return target.id;
    }
    const task: ModelTask = {
      id: input.id,
      cls: input.cls,
      level,
      kernel: false,
      source: input.source,
      channel: input.channel,
      text: input.text,
      answers: input.answers,
      compress: false,
      calls: 0,
      step: 'Prepare',
      waiting: false,
      discarded: false,
    };
    this.admit(target, task, { kernel: false });
    return target.id;
  }

  /** A task the tree creates on `agent` (`<agent>:<n>`); null when the agent has stopped. */
  kernelTask(
    agent: ModelAgent,
    spec: {
      cls: 'queued' | 'interrupt';
      level: Level | null;
      source: string;
      channel: string;
      text: string;
      compress?: boolean;
    },
    answers: (id: string) => Answer[],
  ): string | null {
    if (agent.state === 'stopped') return null;
    // An rt slot empties before the kernel numbers the newcomer.
    this.supersede(agent);
    agent.kernelSeq += 1;
    const id = `${agent.id}:${agent.kernelSeq}`;
    const task: ModelTask = {
      id,
      cls: spec.cls,
      level: spec.level,
      kernel: true,
      source: spec.source,
      channel: spec.channel,
      text: spec.text,
      answers: answers(id),
      compress: spec.compress === true,
      calls: 0,
      step: 'Prepare',
      waiting: false,
      discarded: false,
    };
    this.admit(agent, task, { kernel: true });
    return id;
  }

  /**
   * A parent message (docs/spec.md §10.3): an L4 from `parent/<parent>` on the child's home channel. It
   * suspends the task it preempts, or with `parentMessage: "discard"` fails it; a task it does not
   * preempt (an L4, a compress) carries on either way.
   */
  send(child: ModelAgent, text: string, script: Script): string | null {
    const running = child.sched.running === null ? null : this.task(child.sched.running.id);
    const id = this.kernelTask(
      child,
      { cls: 'interrupt', level: 4, source: `parent/${child.parent ?? ''}`, channel: child.home, text },
      (taskId) => scriptAnswers(script, taskId),
    );
    const preempted = id !== null && child.sched.armed?.id === id && child.sched.running?.id === running?.id;
    if (this.parentMessage === 'discard' && preempted && running !== null && !running.compress)
      running.discarded = true;
    return id;
  }

  /** docs/spec.md §10.5: the compress task, L4 and critical, on `_compress_`; `summary` null: the call fails. */
  compress(child: ModelAgent, summary: string | null): string | null {
    return this.kernelTask(
      child,
      {
        cls: 'interrupt',
        level: 4,
        source: `parent/${child.parent ?? ''}`,
        channel: COMPRESS_CHANNEL,
        text: COMPRESS_TEXT,
        compress: true,
      },
      () => [summary === null ? { kind: 'fail', error: 'summary failed' } : { kind: 'text', text: summary }],
    );
  }

  private admit(agent: ModelAgent, task: ModelTask, options: { kernel: boolean }): void {
    if (!options.kernel) this.supersede(agent);
    this.tasks.set(task.id, task);
    this.owner.set(task.id, agent.id);
    const s = agent.sched;
    s.nowMs = this.nowMs;
    const outcome =
      task.level === null
        ? s.submitQueued(task.id, { kernel: options.kernel })
        : s.submitInterrupt(task.id, task.level);
    if (outcome.kind === 'admitted' && outcome.armed && s.running !== null) this.task(s.running.id).waiting = false;
    this.takeTerminals(agent);
  }

  /**
   * An rt child's single slot (docs/spec.md §10.1): whatever it holds ends `superseded` before a newcomer —
   * but a compress, critical as a whole, is never superseded: it stays, and the newcomer waits beside it.
   */
  private supersede(agent: ModelAgent): void {
    if (agent.kind !== 'rt' || pendingCount(agent) === 0) return;
    const running = agent.sched.running === null ? null : this.task(agent.sched.running.id);
    if (running !== null && !running.compress) running.waiting = false;
    if ([...this.owner].some(([id, at]) => at === agent.id && this.task(id).compress)) this.compressesSpared += 1;
    agent.sched.supersede({ kind: 'superseded', reply: '' }, (id) => this.task(id).compress);
    this.takeTerminals(agent);
  }

  // ---------------------------------------------------------------- the agent driver

  /** Every agent advances until it waits for a model answer; a child's raise wakes its parent. */
  settle(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const agent of this.agents.values()) if (this.advance(agent)) changed = true;
    }
  }

  private advance(agent: ModelAgent): boolean {
    const s = agent.sched;
    s.nowMs = this.nowMs;
    let progressed = false;
    while (agent.state !== 'stopped') {
      if (s.running === null) {
        const picked = s.pick();
        if (picked === null) break;
        progressed = true;
        if (this.task(picked.id).compress) s.enterCritical();
      }
      const task = this.task((s.running as { id: string }).id);
      if (task.waiting) break;
      progressed = true;
      if (task.discarded && !s.critical) {
        this.finish(agent, task, { kind: 'failed', reply: 'processing error: discarded by a parent message' });
        continue;
      }
      if (task.step === 'Prepare') {
        if (s.safePoint() === 'suspended') continue;
        task.step = 'Model';
        // A compress is the answer to a full context: its own Prepare leaves the latch alone.
        if (agent.kind !== 'root' && !task.compress) this.afterPrepare(agent);
      }
      if (s.safePoint() === 'suspended') continue;
      if (task.compress && compressPlan(agent).older === 0) {
        this.compressed(agent, task, null);
        this.compressions.nothing += 1;
        this.finish(agent, task, { kind: 'done', reply: 'compressed: nothing older to summarise' });
        continue;
      }
      task.waiting = true;
    }
    return progressed;
  }

  /** docs/spec.md §10.5: the latch, after a child's Prepare. */
  private afterPrepare(agent: ModelAgent): void {
    const total = agent.context.reduce((n, e) => n + eventTokens(e), 0);
    if (total < FULL_RATIO * agent.window) {
      agent.latchArmed = true;
      return;
    }
    if (!agent.latchArmed) return;
    agent.latchArmed = false;
    agent.signals += 1;
    agent.state = 'contextfull';
    const text = `kernel event: child ${agent.id} context full (${total} of ${agent.window} tokens)`;
    this.raiseOnParent(agent, 4, text);
  }

  /**
   * docs/spec.md §10.3, §5: a notify (L3) or a kernel event (L4) on the parent, from `child/<id>`. The root
   * answers a context-full signal as docs/spec.md §10.5 suggests, by compressing the child.
   */
  private raiseOnParent(child: ModelAgent, level: Level, text: string): void {
    if (child.parent === null) return;
    const parent = this.agent(child.parent);
    const channel = `child/${child.id}`;
    // docs/spec.md §5: on a child, only its parent raises L4; every other interrupt is clamped to L3.
    const clamped: Level = parent.kind !== 'root' && level === 4 ? 3 : level;
    const answers = (id: string): Answer[] =>
      level === 4 && parent.kind === 'root'
        ? [
            { kind: 'tool', name: 'resident_agents', args: JSON.stringify({ action: 'compress', id: child.id }) },
            { kind: 'text', text: `compressed ${child.id} for ${id}` },
          ]
        : scriptAnswers('plain', id);
    this.kernelTask(parent, { cls: 'interrupt', level: clamped, source: channel, channel, text }, answers);
  }

  /**
   * The harness answers the open model call of `agent`'s running task with its next scripted answer.
   * `tool` runs a tool the task asked for and returns its result (the control plane, for the root).
   */
  answer(
    agent: ModelAgent,
    runTool: (task: string, name: string, args: string) => { ok: boolean } | null,
  ): { task: string; answer: Answer } {
    const task = this.waitingTask(agent);
    if (task === null) throw new Error(`model: ${agent.id} has no open model call`);
    const answer = task.answers[Math.min(task.calls, task.answers.length - 1)] as Answer;
    task.calls += 1;
    task.waiting = false;
    if (task.compress) {
      const plan = this.compressed(agent, task, answer.kind === 'text' ? answer.text : null);
      if (answer.kind === 'text') this.compressions.summarised += 1;
      else this.compressions.failed += 1;
      const reply =
        answer.kind === 'text'
          ? `compressed: ${plan.older} events summarised, ${plan.kept} kept`
          : `compressed: ${plan.older} events dropped (summary failed), ${plan.kept} kept`;
      this.finish(agent, task, { kind: 'done', reply });
      return { task: task.id, answer };
    }
    switch (answer.kind) {
      case 'text':
        this.finish(agent, task, { kind: 'done', reply: answer.text });
        break;
      case 'fail':
        this.finish(agent, task, { kind: 'failed', reply: `processing error: model call failed: ${answer.error}` });
        break;
      case 'tool':
        this.runTool(agent, task, answer, runTool);
        break;
    }
    return { task: task.id, answer };
  }

  private runTool(
    agent: ModelAgent,
    task: ModelTask,
    call: { name: string; args: string },
    runTool: (task: string, name: string, args: string) => { ok: boolean } | null,
  ): void {
    const child = agent.kind !== 'root';
    if (call.name === 'notify_parent' && child) {
      const text = (JSON.parse(call.args) as { text: string }).text;
      // The parent's model reads only the text: it names the child that spoke.
      this.raiseOnParent(agent, 3, `[child ${agent.id}] ${text}`);
    } else if (call.name === 'inputch_note' && child) {
      agent.notes.set(task.id, (JSON.parse(call.args) as { text: string }).text);
    } else {
      runTool(task.id, call.name, call.args);
    }
  }

  /** docs/spec.md §10.5: the older events become one summary event, or are dropped; the table is cleared. */
  private compressed(agent: ModelAgent, task: ModelTask, summary: string | null): { older: number; kept: number } {
    const plan = compressPlan(agent);
    const kept = agent.context.splice(plan.older);
    agent.context.length = 0;
    if (summary !== null && plan.older > 0)
      agent.context.push({ kind: 'summary', task: task.id, source: 'kernel', input: '', response: summary });
    agent.context.push(...kept);
    if (summary === null) agent.droppedByCompress += plan.older;
    agent.table.length = 0;
    agent.notes.clear();
    const total = agent.context.reduce((n, e) => n + eventTokens(e), 0);
    agent.state = total < FULL_RATIO * agent.window ? 'running' : 'contextfull';
    // Still full: the latch re-arms at once, so the next Prepare signals again.
    if (agent.state === 'contextfull') agent.latchArmed = true;
    return plan;
  }

  /** The running task ends: a child's round record, the context commit, the terminal (docs/spec.md §10.4, §3.4). */
  private finish(agent: ModelAgent, task: ModelTask, terminal: Terminal): void {
    if (agent.kind !== 'root' && !task.compress) {
      const note = agent.notes.get(task.id);
      agent.notes.delete(task.id);
      if (terminal.kind === 'done') {
        const output = terminal.reply ?? '';
        const auto = `round done: input=${task.text.slice(0, AUTO_INPUT_MAX)}`;
        agent.table.push({
          inputch: task.channel,
          atMs: this.nowMs,
          proactive: note !== undefined,
          text: note ?? (output === '' ? auto : `${auto}, output=${output.slice(0, AUTO_OUTPUT_MAX)}`),
        });
      }
    }
    if (!task.compress && (terminal.kind === 'done' || terminal.kind === 'failed')) {
      const kind = task.cls === 'interrupt' ? 'interrupt' : terminal.kind === 'failed' ? 'failed' : 'turn';
      agent.context.push({
        kind,
        task: task.id,
        source: task.source,
        input: task.text,
        response: terminal.reply ?? '',
      });
    }
    agent.sched.nowMs = this.nowMs;
    agent.sched.finishRunning(terminal);
    this.takeTerminals(agent);
  }

  // ---------------------------------------------------------------- terminals

  private takeTerminals(agent: ModelAgent): void {
    const list = agent.sched.terminals;
    for (; agent.terminalsTaken < list.length; agent.terminalsTaken += 1) {
      const t = list[agent.terminalsTaken] as {
        task: string;
        kind: TerminalKind;
        reason: TerminalReason | null;
        reply: string | null;
      };
      this.record(t.task, { kind: t.kind, reason: t.reason, reply: t.reply ?? '' });
    }
  }

  private end(taskId: string, terminal: Terminal): void {
    this.record(taskId, { kind: terminal.kind, reason: terminal.reason ?? null, reply: terminal.reply ?? '' });
  }

  private record(taskId: string, terminal: ModelTerminalOf): void {
    if (this.terminals.has(taskId)) throw new Error(`model: a second terminal for ${taskId}`);
    this.terminals.set(taskId, terminal);
    const t = this.tasks.get(taskId);
    if (t !== undefined) t.waiting = false;
    this.tasks.delete(taskId);
    this.owner.delete(taskId);
  }
}

/** How many tasks an agent holds: running, in the immediate slot, the level queues, the FIFO, the stack. */
function pendingCount(agent: ModelAgent): number {
  const s = agent.sched;
  const levels = [1, 2, 3, 4] as const;
  return (
    (s.running === null ? 0 : 1) +
    (s.immediate === null ? 0 : 1) +
    levels.reduce((n, l) => n + s.levelQueues[l].length, 0) +
    s.queue.length +
    s.stack.length
  );
}

/** docs/spec.md §10.5: keep the newest events within 0.5 × window (never more than 20); the rest are older. */
function compressPlan(agent: ModelAgent): { older: number; kept: number } {
  const budget = KEEP_RATIO * agent.window;
  let kept = 0;
  let sum = 0;
  for (let i = agent.context.length - 1; i >= 0 && kept < KEEP_MAX; i -= 1) {
    const cost = eventTokens(agent.context[i] as ContextEvent);
    if (sum + cost > budget) break;
    sum += cost;
    kept += 1;
  }
  return { older: agent.context.length - kept, kept };
}
