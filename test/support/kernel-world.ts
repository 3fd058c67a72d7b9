/**
 * The one kernel test driver: a small synchronous world around a whole Kernel, for example-based tests
 * and for the properties that drive a kernel without the Runtime (STYLE rule 13).
 *
 * The world plays the Runtime's part by hand: it feeds every input through the kernel's one door
 * (`kernel.feed`) at the world's clock, takes the commands of every reaction, keeps the set of calls
 * and timers still open, and answers them with facts (model chunks and completions, tool results,
 * panics, timer firings). Tests observe the kernel only through those commands, `dump()` and the
 * recorded trace; nothing reaches a private field.
 *
 * Time is explicit: `at(ms)` moves the world's clock forward (never back) and every action happens
 * "now". Whole-state verification is on, as always in tests. What a test needs beyond that comes in
 * as options: the root's graph memory, an extra trace sink (monitors, a hasher, a runaway guard), a
 * listener told of every command (a driver that schedules the answers itself), and a bare kernel
 * configuration without the test defaults below.
 */
import { expect } from 'vitest';
import type { KernelConfigInput } from '../../src/kernel/config.ts';
import type { AgentDump, RunningView } from '../../src/kernel/agent/dump-types.ts';
import { Kernel, type KernelPorts } from '../../src/kernel/kernel.ts';
import type { Message, ModelChunk, ModelRequest, ToolSpec } from '../../src/kernel/ports/provider.ts';
import type { RegisterInput } from '../../src/kernel/channels/registry.ts';
import type { MemoryPorts } from '../../src/kernel/ports/graph-memory.ts';
import type {
  Command,
  Fact,
  FeedResult,
  KernelInput,
  ModelFailure,
  Submission,
  SubmitResult,
} from '../../src/kernel/protocol.ts';
import type { SchedulerDump } from '../../src/kernel/scheduler/core.ts';
import { TraceRecorder, type TraceEvent, type TraceSink, type TraceType } from '../../src/kernel/trace/vocabulary.ts';
import type { Terminal } from '../../src/kernel/task/terminal.ts';

export type EventOf<T extends TraceType> = Extract<TraceEvent, { type: T }>;
export type CommandOf<T extends Command['type']> = Extract<Command, { type: T }>;

const OBJECT_SCHEMA = { type: 'object' } as const;

/** The tools every world's kernel offers by default: two parallel-safe, one that runs alone. */
export const TEST_TOOLS: readonly ToolSpec[] = [
  { name: 'search', description: 'look something up', parameters: OBJECT_SCHEMA, parallelSafe: true },
  { name: 'fetch', description: 'fetch a page', parameters: OBJECT_SCHEMA, parallelSafe: true },
  { name: 'write', description: 'write a file', parameters: OBJECT_SCHEMA, parallelSafe: false },
];

/** The output device every world's kernel declares by default: `output_send__chat` is a built-in tool. */
export const TEST_OUTPUTS = [{ name: 'chat', caps: ['text'] }] as const;

export const SYSTEM_PROMPT = 'You are the test agent.';

/** A tool call as the test's model answers it; `args` defaults to "{}", `id` to the kernel's choice. */
export interface CallSpec {
  readonly name: string;
  readonly args?: string;
  readonly id?: string;
}

export interface KernelWorldOptions {
  /** False: the kernel gets `config` as given, without TEST_TOOLS, TEST_OUTPUTS and SYSTEM_PROMPT. */
  readonly defaults?: boolean;
  /** The root's main graph memory; without it the memory tools are not offered. */
  readonly memory?: MemoryPorts;
  /** Sees every trace event, after the recorder. */
  readonly sink?: TraceSink;
  /** Told of every command taken from the kernel, in order, once the world has recorded it. */
  readonly onCommand?: (command: Command) => void;
  /** The children's memory factory and child kinds the kernel is made with (docs/spec.md §10.1). */
  readonly children?: Pick<KernelPorts, 'childMemory' | 'childKinds'>;
}

export class KernelWorld {
  readonly kernel: Kernel;
  readonly rec = new TraceRecorder();
  /** Every command taken from the kernel, in order. */
  readonly log: Command[] = [];
  /** The commands of the latest reaction (submit, fact, stop). */
  last: Command[] = [];
  private nowMs = 0;
  /** Model calls and tool runs started and not yet ended, by call id. */
  private readonly openCalls = new Map<string, CommandOf<'model.start'> | CommandOf<'tool.run'>>();
  /** Timers set and neither cleared nor fired, by id. */
  private readonly openTimers = new Map<string, number>();

  private readonly onCommand: ((command: Command) => void) | null;

  constructor(config: KernelConfigInput = {}, options: KernelWorldOptions = {}) {
    const base: KernelConfigInput =
      options.defaults === false
        ? { verify: true }
        : { verify: true, tools: TEST_TOOLS, outputs: TEST_OUTPUTS, systemPrompt: SYSTEM_PROMPT };
    const extra = options.sink;
    const sink: TraceSink =
      extra === undefined
        ? this.rec
        : {
            emit: (e) => {
              this.rec.emit(e);
              extra.emit(e);
            },
          };
    const ports: KernelPorts = {
      ...(options.memory === undefined ? {} : { memory: options.memory }),
      ...options.children,
    };
    this.kernel = new Kernel({ ...base, ...config }, sink, ports);
    this.onCommand = options.onCommand ?? null;
  }

  // ---------------------------------------------------------------- time and inputs

  get now(): number {
    return this.nowMs;
  }

  /** Moves the world's clock to `ms` (never backwards). */
  at(ms: number): this {
    // Checked before asserting: a driver moves the clock once per event, and an `expect` per move
    // would cost more than the kernel reaction it precedes.
    if (ms < this.nowMs)
      expect(ms, `world time goes backwards: ${ms} < ${this.nowMs}`).toBeGreaterThanOrEqual(this.nowMs);
    this.nowMs = ms;
    return this;
  }

  /** Feeds one input through the kernel's door at the world's time. */
  feed<I extends KernelInput>(input: I): FeedResult<I['type']> {
    const result = this.kernel.feed(input, this.nowMs);
    this.collect();
    return result;
  }

  submit(sub: Submission): SubmitResult {
    return this.feed({ type: 'submit', submission: sub });
  }

  /** A plugin registers (or reloads) an inputch (docs/spec.md §8.1). */
  registerChannel(channel: RegisterInput): FeedResult<'channel.register'> {
    return this.feed({ type: 'channel.register', channel });
  }

  unregisterChannel(name: string): boolean {
    return this.feed({ type: 'channel.unregister', name }).removed;
  }

  queued(id: string, text: string, extra: Partial<Submission> = {}): SubmitResult {
    return this.submit({ id, cls: 'queued', text, source: 'user', ...extra });
  }

  interrupt(id: string, level: string | number, text: string, extra: Partial<Submission> = {}): SubmitResult {
    return this.submit({ id, cls: 'interrupt', level, text, source: 'user', ...extra });
  }

  /** The user stop button (docs/spec.md §2.9), optionally carrying text. */
  stopButton(id: string, text = '', extra: Partial<Submission> = {}): SubmitResult {
    return this.submit({ id, cls: 'interrupt', text, source: 'user', stop: true, ...extra });
  }

  /** Stops the whole agent (docs/spec.md §10.2a). */
  stopAgent(): void {
    this.feed({ type: 'stop' });
  }

  /** Feeds one fact as it is; the world does not check that its call is open. */
  handle(fact: Fact): void {
    switch (fact.type) {
      case 'model.done':
      case 'model.failed':
      case 'tool.done':
      case 'tool.failed':
        this.openCalls.delete(fact.callId);
        break;
      case 'timer.fired':
        this.openTimers.delete(fact.id);
        break;
      case 'model.chunk':
        break;
    }
    this.feed(fact);
  }

  // ---------------------------------------------------------------- answering model calls

  /** Whether a call (model or tool, by call id) was started and has neither ended nor been cancelled. */
  isOpen(callId: string): boolean {
    return this.openCalls.has(callId);
  }

  /** The single open model call of a task. */
  modelCall(task: string): CommandOf<'model.start'> {
    const open = [...this.openCalls.values()].filter(
      (c): c is CommandOf<'model.start'> => c.type === 'model.start' && c.task === task,
    );
    expect(open, `open model calls of ${task}`).toHaveLength(1);
    return open[0] as CommandOf<'model.start'>;
  }

  /** Streams chunks for a call (by call id) without ending it. */
  chunks(callId: string, chunks: readonly ModelChunk[]): void {
    for (const chunk of chunks) this.handle({ type: 'model.chunk', callId, chunk });
  }

  /** Answers the task's open model call with text and optional tool calls, then ends the stream. */
  answer(task: string, text: string, calls: readonly CallSpec[] = []): void {
    this.answerCall(this.modelCall(task).callId, text, calls);
  }

  answerCall(callId: string, text: string, calls: readonly CallSpec[] = []): void {
    if (text.length > 0) this.chunks(callId, [{ type: 'text', text }]);
    this.chunks(
      callId,
      calls.map((c, index) => toolCallChunk(index, c)),
    );
    this.handle({ type: 'model.done', callId, usage: { inputTokens: 10, outputTokens: 5 } });
  }

  /** Fails the task's open model call. */
  failModel(task: string, error: string, failure: ModelFailure = 'error'): void {
    this.handle({ type: 'model.failed', callId: this.modelCall(task).callId, failure, error });
  }

  // ---------------------------------------------------------------- answering tool calls

  /** The open tool runs of a task, in the order they were issued. */
  openTools(task: string): CommandOf<'tool.run'>[] {
    return [...this.openCalls.values()].filter(
      (c): c is CommandOf<'tool.run'> => c.type === 'tool.run' && c.task === task,
    );
  }

  /** The single open tool run of a task. */
  toolRun(task: string): CommandOf<'tool.run'> {
    const open = this.openTools(task);
    expect(open, `open tool runs of ${task}`).toHaveLength(1);
    return open[0] as CommandOf<'tool.run'>;
  }

  /** Answers a tool run (by runtime call id). */
  toolDone(callId: string, output: string, ok = true): void {
    this.handle({ type: 'tool.done', callId, result: { ok, output } });
  }

  /** Answers the task's single open tool run. */
  toolResult(task: string, output: string, ok = true): void {
    this.toolDone(this.toolRun(task).callId, output, ok);
  }

  /** The task's single open tool run throws: a panic (docs/spec.md §3.8). */
  toolPanic(task: string, error: string): void {
    this.handle({ type: 'tool.failed', callId: this.toolRun(task).callId, error });
  }

  // ---------------------------------------------------------------- timers

  /** Timers set and neither cleared nor fired, by id → due time. */
  timers(): ReadonlyMap<string, number> {
    return new Map(this.openTimers);
  }

  /** Fires an open timer (fails the test if the kernel never set it or cleared it). Moves time to it. */
  fireTimer(id: string): void {
    const atMs = this.openTimers.get(id);
    expect(atMs, `timer ${id} is not set`).toBeDefined();
    if (atMs !== undefined && atMs > this.nowMs) this.at(atMs);
    this.handle({ type: 'timer.fired', id });
  }

  // ---------------------------------------------------------------- observation

  /** Commands still waiting for an answer: open model calls, tool runs, and timers. */
  pending(): { model: string[]; tools: string[]; timers: string[] } {
    const calls = [...this.openCalls.values()];
    return {
      model: calls.filter((c) => c.type === 'model.start').map((c) => c.callId),
      tools: calls.filter((c) => c.type === 'tool.run').map((c) => c.callId),
      timers: [...this.openTimers.keys()],
    };
  }

  /** Every command of one type taken so far (or in `from`). */
  commands<T extends Command['type']>(type: T, from: readonly Command[] = this.log): CommandOf<T>[] {
    return from.filter((c): c is CommandOf<T> => c.type === type);
  }

  /** Every model request of a task, in the order they were sent. */
  requests(task: string): ModelRequest[] {
    return this.commands('model.start')
      .filter((c) => c.task === task)
      .map((c) => c.request);
  }

  /** Every tool run issued for a task (open or not). */
  toolRuns(task: string): CommandOf<'tool.run'>[] {
    return this.commands('tool.run').filter((c) => c.task === task);
  }

  /** The reply commands, in order. */
  replies(): CommandOf<'reply'>[] {
    return this.commands('reply');
  }

  /** The single reply command of a task (fails when there is not exactly one). */
  replyOf(task: string): Terminal {
    const found = this.replies().filter((r) => r.task === task);
    expect(found, `reply commands of ${task}`).toHaveLength(1);
    return (found[0] as CommandOf<'reply'>).terminal;
  }

  hasReply(task: string): boolean {
    return this.replies().some((r) => r.task === task);
  }

  events<T extends TraceType>(type: T): EventOf<T>[] {
    return this.rec.events.filter((e): e is EventOf<T> => e.type === type);
  }

  /** The single terminal trace event of a task. */
  terminalOf(task: string): EventOf<'task.terminal'> {
    const found = this.events('task.terminal').filter((e) => e.task === task);
    expect(found, `terminal events of ${task}`).toHaveLength(1);
    return found[0] as EventOf<'task.terminal'>;
  }

  /** The step names a task began, in order. */
  stepsOf(task: string): string[] {
    return this.events('step.begin')
      .filter((e) => e.task === task)
      .map((e) => e.step);
  }

  /** The root's running task as the kernel's O(1) view (fails the test when idle). */
  running(): RunningView {
    const view = this.kernel.running(this.nowMs);
    expect(view, 'a running task').not.toBeNull();
    return view as RunningView;
  }

  /** The root agent's dump. */
  dump(): AgentDump {
    const root = this.kernel.dump().agents[0];
    expect(root).toBeDefined();
    return root as AgentDump;
  }

  /** The root scheduler's dump. */
  sched(): SchedulerDump {
    return this.dump().scheduler;
  }

  // ---------------------------------------------------------------- internals

  private collect(): void {
    const taken = this.kernel.takeCommands();
    this.last = taken;
    for (const c of taken) {
      this.log.push(c);
      switch (c.type) {
        case 'model.start':
        case 'tool.run':
          this.openCalls.set(c.callId, c);
          break;
        case 'model.cancel':
        case 'tool.cancel':
          this.openCalls.delete(c.callId);
          break;
        case 'timer.set':
          this.openTimers.set(c.id, c.atMs);
          break;
        case 'timer.clear':
          this.openTimers.delete(c.id);
          break;
        case 'reply':
        case 'output.send':
          break;
      }
      this.onCommand?.(c);
    }
  }
}

function toolCallChunk(index: number, c: CallSpec): ModelChunk {
  return c.id === undefined
    ? { type: 'tool_call', index, name: c.name, argsDelta: c.args ?? '{}' }
    : { type: 'tool_call', index, id: c.id, name: c.name, argsDelta: c.args ?? '{}' };
}

/** The messages after a task's own input message: its own progress (the part kept by a rebase). */
export function tailAfterInput(messages: readonly Message[], input: Message): Message[] {
  const at = messages.findIndex((m) => m.role === input.role && m.content === input.content);
  expect(at, `input ${JSON.stringify(input)} in the request`).toBeGreaterThanOrEqual(0);
  return messages.slice(at + 1);
}

/** A request without its call id: what must be identical when a cancelled request is re-sent. */
export function requestBody(r: ModelRequest): Omit<ModelRequest, 'callId'> {
  const { callId: _callId, ...body } = r;
  return body;
}

export function userMsg(content: string): Message {
  return { role: 'user', content };
}

export function systemMsg(content: string): Message {
  return { role: 'system', content };
}

export function assistantMsg(content: string): Message {
  return { role: 'assistant', content };
}
