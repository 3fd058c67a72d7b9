/**
 * The Runtime: the only async code of the kernel (ARCHITECTURE "Simulator recipe"). It executes the
 * kernel's commands through the Clock, Provider and ToolRunner ports and feeds the results back as
 * facts. The simulator and production use this same class.
 *
 * - `deliver` is synchronous and non-reentrant: an inbox FIFO, so a fact raised while the kernel
 *   handles another waits its turn.
 * - Every port call starts synchronously inside `exec` (a fake reaches the clock before any await).
 * - Every promise ends in a handler that turns into a fact; nothing is left to reject unhandled.
 * - Cancellation is final when the kernel says so: the Runtime aborts the controller and keeps
 *   reading whatever a provider still sends, delivering it so the kernel can discard and count it.
 *   Failures are classified by `signal.aborted`, since SDKs wrap abort errors in their own classes.
 * - `abandon` is the process going away without a stop (a crash, docs/spec.md §13.2): every call in
 *   flight is aborted and forgotten and every timer cleared, and what the ports still send for them is
 *   dropped, not delivered: the kernel that asked for them is gone. Each call belongs to the life it
 *   was started in (`life`), so a call id that a recovered kernel issues again is never confused with
 *   the abandoned call of the same id.
 */
import type { Clock, TimerId } from '../clock/index.ts';
import {
  assert,
  assertNever,
  ContextFullError,
  type Command,
  type Fact,
  type FeedResult,
  type Kernel,
  type KernelInput,
  type ModelChunk,
  type Provider,
  type Submission,
  type SubmitResult,
  type Terminal,
  type ToolRunner,
  type Usage,
} from '../kernel/index.ts';

/** What the Runtime needs of a kernel: its one door and the commands each reaction leaves. */
export type KernelDoor = Pick<Kernel, 'feed' | 'takeCommands'>;

export interface RuntimePorts {
  readonly clock: Clock;
  readonly provider: Provider;
  readonly tools: ToolRunner;
  /** Output devices; absent where sends are only traced (the simulator reads them from the trace). */
  readonly outputs?: OutputPort;
  /**
   * Makes the cancellation of each model and tool call; absent: an AbortController, whose signal any
   * adapter (an SDK, `fetch`) accepts. The simulator's fakes take a lighter token.
   */
  readonly cancellation?: () => Cancellation;
}

/** What the Runtime needs of an AbortController: the signal it hands to a port, and `abort`. */
export interface Cancellation {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
}

const newAbortController = (): Cancellation => new AbortController();

export interface OutputPort {
  /** Delivers text on an output channel. Must not throw: a device failure is the device's to report. */
  send(channel: string, text: string, from: { readonly agent: string; readonly task: string }): void;
}

export interface RuntimeHooks {
  /**
   * Rewrites every input before anything else sees it, the journal and the kernel included: serve
   * redacts its secrets here (server/secrets.ts). Must be pure, and must not feed the Runtime.
   */
  screen?(input: KernelInput): KernelInput;
  /**
   * Every input just before it enters the kernel's door, with its time: a journal written here is a
   * complete record of the run (ARCHITECTURE "One door"). Must not feed the Runtime.
   */
  onInput?(input: KernelInput, nowMs: number): void;
  /**
   * Runs each kernel reaction: the simulator passes its determinism trip-wire here, so ambient time,
   * randomness or timers used from inside the kernel throw at the call site.
   */
  guardKernel?<T>(reaction: () => T): T;
  /** Every terminal event's reply, in order (the responder of the task). */
  onReply?(task: string, terminal: Terminal): void;
  /**
   * The kernel threw (an assertion: a bug, never an operating outcome). The Runtime stops feeding
   * it; the simulator fails the run, production logs and exits.
   */
  onFatal?(error: unknown): void;
}

export interface RuntimeActivity {
  readonly streams: number;
  readonly tools: number;
  readonly timers: number;
}

/**
 * The abort reason of every kernel cancellation. One shared, frozen error: `abort()` without a reason
 * builds a DOMException (with a stack) per call, which showed up in simulator profiles.
 */
const CANCELLED: Error = Object.freeze(Object.assign(new Error('cancelled by the kernel'), { name: 'AbortError' }));
/** The abort reason of the calls `abandon` drops: nothing is told of them any more. */
const ABANDONED: Error = Object.freeze(
  Object.assign(new Error('abandoned: the process went away'), { name: 'AbortError' }),
);

/** What waits in the inbox: facts from the ports, and a stop requested from inside a reaction. */
type InboxItem = Fact | { readonly type: 'stop' };

export class Runtime {
  private readonly inbox: InboxItem[] = [];
  private processing = false;
  private readonly streams = new Map<string, Cancellation>();
  private readonly toolCalls = new Map<string, Cancellation>();
  private readonly timers = new Map<string, { readonly handle: TimerId; readonly atMs: number }>();
  private readonly waiters = new Map<string, (terminal: Terminal) => void>();
  private streamsOpened = 0;
  private streamsClosed = 0;
  private fatalError: unknown = null;
  private halted = false;
  /** Counts `abandon` calls: a call started in an earlier life delivers nothing. */
  private life = 0;
  private readonly newCancellation: () => Cancellation;

  constructor(
    private readonly kernel: KernelDoor,
    private readonly ports: RuntimePorts,
    private readonly hooks: RuntimeHooks = {},
  ) {
    this.newCancellation = ports.cancellation ?? newAbortController;
  }

  /**
   * Submits an input now. Must not be called from inside a kernel reaction (a reply hook, say):
   * schedule it on the clock instead, so every submission has a well-defined instant.
   */
  submit(sub: Submission): SubmitResult {
    return this.feed({ type: 'submit', submission: sub });
  }

  /**
   * Feeds one input through the kernel's door now, synchronously, and answers what the kernel said:
   * a submission, a channel control, a `submit.after`. Must not be called from inside a kernel
   * reaction (schedule it on the clock instead), so every input has a well-defined instant.
   */
  feed<I extends KernelInput>(input: I): FeedResult<I['type']>;
  feed(input: KernelInput): FeedResult {
    assert(!this.processing, `RUNTIME: ${describe(input)} from inside a kernel reaction; schedule it instead`);
    assert(this.fatalError === null, `RUNTIME: ${describe(input)} after a fatal kernel error`);
    this.processing = true;
    let result: FeedResult;
    try {
      result = this.enter(input, this.ports.clock.now());
      this.execAll();
    } catch (err) {
      this.fail(err);
      throw err;
    } finally {
      this.processing = false;
    }
    this.drain();
    return result;
  }

  /**
   * Arms timers a recovered kernel set before the process died (docs/spec.md §13.2): id → due time. A
   * timer that fell due while the process was down fires at once, in due-time order.
   */
  armTimers(timers: ReadonlyMap<string, number>): void {
    for (const [id, atMs] of [...timers].sort((a, b) => a[1] - b[1])) this.setTimer(id, atMs);
  }

  /** The timers armed now, id → due time (what a snapshot taken between two reactions must arm again). */
  armedTimers(): Map<string, number> {
    return new Map([...this.timers].map(([id, { atMs }]) => [id, atMs]));
  }

  /** Submits and resolves with the task's terminal event (synchronous submitters: terminal, HTTP). */
  submitAndWait(sub: Submission): Promise<Terminal> {
    return new Promise((resolve) => {
      this.waiters.set(sub.id, resolve);
      const result = this.submit(sub);
      if (result.kind === 'stopped') {
        this.waiters.delete(sub.id);
        resolve({ kind: 'done', reply: 'stopped' });
      }
    });
  }

  deliver(fact: Fact): void {
    if (this.halted) return;
    this.inbox.push(fact);
    this.drain();
  }

  /**
   * The process goes away without a stop (docs/spec.md §13.2): every call in flight is aborted, every
   * timer cleared, and nothing they still send reaches the kernel. The Runtime can be fed again
   * afterwards (a recovered kernel behind its door), and then starts from no call and no timer.
   */
  abandon(): void {
    assert(!this.processing, 'RUNTIME: abandon from inside a kernel reaction');
    // Stryker disable next-line AssignmentOperator: a life only has to differ from every earlier one, which counting down does as well
    this.life += 1;
    this.inbox.length = 0;
    const calls = [...this.streams.values(), ...this.toolCalls.values()];
    // An abandoned stream is closed as far as this Runtime is concerned: nothing of it is read any more.
    this.streamsClosed += this.streams.size;
    this.streams.clear();
    this.toolCalls.clear();
    for (const { handle } of this.timers.values()) this.ports.clock.clearTimer(handle);
    this.timers.clear();
    for (const controller of calls) controller.abort(ABANDONED);
  }

  stop(): void {
    this.inbox.push(STOP);
    this.drain();
  }

  /**
   * A pause (a durable server's shutdown, docs/spec.md §13.1): the kernel is left exactly as it is, for
   * the next start to recover. Calls in flight are abandoned as a crash abandons them, timers are let
   * go, and nothing more reaches the kernel: facts still arriving are dropped, not journaled.
   */
  halt(): void {
    this.halted = true;
    this.inbox.length = 0;
    // Unlike `abandon`, the calls stay listed until they have closed, so a shutdown can wait for a tool
    // server to be told (MCP `notifications/cancelled`); whatever they still send is dropped.
    for (const controller of this.streams.values()) controller.abort(CANCELLED);
    for (const controller of this.toolCalls.values()) controller.abort(CANCELLED);
    for (const id of [...this.timers.keys()]) this.clearTimer(id);
  }

  activity(): RuntimeActivity {
    return { streams: this.streams.size, tools: this.toolCalls.size, timers: this.timers.size };
  }

  streamBalance(): { opened: number; closed: number } {
    return { opened: this.streamsOpened, closed: this.streamsClosed };
  }

  /** The kernel error that stopped this Runtime, or null. */
  fatal(): unknown {
    return this.fatalError;
  }

  private drain(): void {
    if (this.processing || this.fatalError !== null) return;
    this.processing = true;
    try {
      for (let item = this.inbox.shift(); item !== undefined; item = this.inbox.shift()) {
        this.enter(item, this.ports.clock.now());
        this.execAll();
      }
    } catch (err) {
      // Contained here so that a kernel bug never masquerades as a provider or tool failure.
      this.fail(err);
    } finally {
      this.processing = false;
    }
  }

  /** The one place where the Runtime feeds the kernel's door: the journal taps here. */
  private enter(raw: KernelInput, nowMs: number): FeedResult {
    const input = this.hooks.screen === undefined ? raw : this.hooks.screen(raw);
    this.hooks.onInput?.(input, nowMs);
    const guard = this.hooks.guardKernel;
    return guard === undefined ? this.kernel.feed(input, nowMs) : guard(() => this.kernel.feed(input, nowMs));
  }

  private fail(err: unknown): void {
    // Stryker disable next-line ConditionalExpression: a guard only; feed asserts no fatal error first and drain stops at the first
    if (this.fatalError !== null) return;
    this.fatalError = err;
    this.inbox.length = 0;
    this.hooks.onFatal?.(err);
  }

  private execAll(): void {
    for (const command of this.kernel.takeCommands()) this.exec(command);
  }

  private exec(command: Command): void {
    switch (command.type) {
      case 'model.start':
        this.startStream(command.callId, command.request);
        break;
      case 'model.cancel':
        this.streams.get(command.callId)?.abort(CANCELLED);
        break;
      case 'tool.run':
        this.startTool(command);
        break;
      case 'tool.cancel':
        this.toolCalls.get(command.callId)?.abort(CANCELLED);
        break;
      case 'reply':
        this.reply(command.task, command.terminal);
        break;
      case 'timer.set':
        this.setTimer(command.id, command.atMs);
        break;
      case 'timer.clear':
        this.clearTimer(command.id);
        break;
      case 'output.send':
        this.ports.outputs?.send(command.channel, command.text, { agent: command.agent, task: command.task });
        break;
      // Stryker disable next-line ConditionalExpression: unreachable for a well-typed command (assertNever)
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed command (assertNever)
        assertNever(command, 'command');
    }
  }

  private startStream(callId: string, request: Parameters<Provider['stream']>[0]): void {
    const controller = this.newCancellation();
    this.streams.set(callId, controller);
    this.streamsOpened += 1;
    let iterator: AsyncIterator<ModelChunk>;
    try {
      iterator = this.ports.provider.stream(request, controller.signal)[Symbol.asyncIterator]();
    } catch (err) {
      this.endStream(callId, controller);
      this.inbox.push(streamFailure(callId, err));
      return;
    }
    void this.consume(callId, iterator, controller, this.life);
  }

  /** Reads the stream to its end; the first `next()` runs synchronously, inside `exec`. */
  private async consume(
    callId: string,
    iterator: AsyncIterator<ModelChunk>,
    controller: Cancellation,
    life: number,
  ): Promise<void> {
    const signal = controller.signal;
    let usage: Usage | null = null;
    let final: Fact;
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done === true) break;
        const chunk = step.value;
        if (chunk.type === 'done') usage = chunk.usage;
        else this.deliverFrom(life, { type: 'model.chunk', callId, chunk });
      }
      final =
        usage !== null
          ? { type: 'model.done', callId, usage }
          : { type: 'model.failed', callId, failure: 'malformed', error: 'stream ended without a final chunk' };
    } catch (err) {
      final = signal.aborted
        ? { type: 'model.failed', callId, failure: 'error', error: 'cancelled' }
        : streamFailure(callId, err);
    }
    this.endStream(callId, controller);
    this.deliverFrom(life, final);
  }

  /** A fact of a call started in life `life`: dropped when the Runtime has abandoned that life since. */
  private deliverFrom(life: number, fact: Fact): void {
    if (life === this.life) this.deliver(fact);
  }

  /** Forgets the stream, unless it was abandoned (its id may since belong to a call of a recovered kernel). */
  private endStream(callId: string, controller: Cancellation): void {
    if (this.streams.get(callId) !== controller) return;
    this.streams.delete(callId);
    this.streamsClosed += 1;
  }

  private startTool(command: Extract<Command, { type: 'tool.run' }>): void {
    const controller = this.newCancellation();
    this.toolCalls.set(command.callId, controller);
    const ctx = { agent: command.agent, task: command.task, signal: controller.signal, deadlineMs: command.deadlineMs };
    let pending: Promise<Fact>;
    try {
      pending = this.ports.tools.run(command.call, ctx).then(
        (result): Fact => ({ type: 'tool.done', callId: command.callId, result }),
        (err: unknown): Fact => ({ type: 'tool.failed', callId: command.callId, error: errorText(err) }),
      );
    } catch (err) {
      pending = Promise.resolve({ type: 'tool.failed', callId: command.callId, error: errorText(err) });
    }
    const life = this.life;
    void pending.then((fact) => {
      if (this.toolCalls.get(command.callId) === controller) this.toolCalls.delete(command.callId);
      this.deliverFrom(life, fact);
    });
  }

  private reply(task: string, terminal: Terminal): void {
    this.hooks.onReply?.(task, terminal);
    const waiter = this.waiters.get(task);
    if (waiter !== undefined) {
      this.waiters.delete(task);
      waiter(terminal);
    }
  }

  private setTimer(id: string, atMs: number): void {
    this.clearTimer(id);
    const clock = this.ports.clock;
    const handle = clock.setTimer(Math.max(0, atMs - clock.now()), () => {
      this.timers.delete(id);
      this.deliver({ type: 'timer.fired', id });
    });
    this.timers.set(id, { handle, atMs });
  }

  private clearTimer(id: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    this.ports.clock.clearTimer(timer.handle);
    this.timers.delete(id);
  }
}

const STOP: InboxItem = Object.freeze({ type: 'stop' });

function describe(input: KernelInput): string {
  return input.type === 'submit' ? `submit of ${input.submission.id}` : input.type;
}

function streamFailure(callId: string, err: unknown): Fact {
  if (err instanceof ContextFullError)
    return { type: 'model.failed', callId, failure: 'context_full', error: err.message };
  return { type: 'model.failed', callId, failure: 'error', error: errorText(err) };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
