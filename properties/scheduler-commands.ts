/**
 * fast-check commands for the model-based scheduler property. Theory of operation:
 *
 * Each command applies one fact to the naive model (scheduler-model.ts) and to the real `Scheduler`
 * with the same `nowMs`, compares what both answered, then compares the whole state (`checkAgreement`):
 * the full dump, the timer effects, the terminal events of the trace, and NO SILENT LOSS (every
 * submitted task is running, in exactly one container, or has exactly one terminal event). The real
 * scheduler runs with `verify: true`, so its own invariant assertions throw on any violation.
 *
 * Generators live in scheduler-arbitraries.ts. Every command prints as the call that builds it
 * (`interrupt(3)`, `advance(2000)`, ...), so a shrunk counterexample printed by fast-check can be
 * pasted into `replay(config, [...])` as a regression test.
 */
import type { Command } from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import { Scheduler } from '../src/kernel/scheduler/core.ts';
import type { SchedulerDump } from '../src/kernel/scheduler/core.ts';
import { Tracer, TraceRecorder } from '../src/kernel/trace/vocabulary.ts';
import { SchedulerModel } from './scheduler-model.ts';
import type { ModelConfig, ModelTerminal } from './scheduler-model.ts';
import type { Terminal } from '../src/kernel/task/terminal.ts';

export const AGENT = 'a0';

export interface RealSystem {
  readonly sched: Scheduler;
  readonly recorder: TraceRecorder;
}

export type SchedCommand = Command<SchedulerModel, RealSystem>;

/** Global tallies of what the generated runs reached; the property test asserts floors on them. */
export const reached = {
  suspended: 0,
  depth4: 0,
  overflowDrops: 0,
  backpressure: 0,
  selfLoopFull: 0,
  timerArms: 0,
  resumedFromStack: 0,
  evictions: 0,
  stopAll: 0,
};

export function setup(config: ModelConfig): () => { model: SchedulerModel; real: RealSystem } {
  return () => {
    const recorder = new TraceRecorder();
    const sched = new Scheduler(AGENT, { ...config, verify: true }, new Tracer(recorder));
    return { model: new SchedulerModel(AGENT, config), real: { sched, recorder } };
  };
}

// ---------------------------------------------------------------- agreement

/** A disagreement names what differs and prints both sides, so a shrunk counterexample reads alone. */
export class ModelDisagreement extends Error {
  override readonly name = 'ModelDisagreement';
}

function same(what: string, real: unknown, model: unknown): void {
  if (isDeepStrictEqual(real, model)) return;
  throw new ModelDisagreement(`${what}:\n  real:  ${JSON.stringify(real)}\n  model: ${JSON.stringify(model)}`);
}

function realTerminals(r: RealSystem): ModelTerminal[] {
  const out: ModelTerminal[] = [];
  for (const e of r.recorder.events) {
    if (e.type === 'task.terminal') out.push({ task: e.task, kind: e.kind, reason: e.reason, reply: e.reply });
  }
  return out;
}

function placesIn(d: SchedulerDump): string[] {
  const ids: string[] = [];
  if (d.running !== null) ids.push(d.running.id);
  if (d.immediate !== null) ids.push(d.immediate.id);
  for (const level of [1, 2, 3, 4] as const) for (const t of d.levelQueues[level]) ids.push(t.id);
  for (const t of d.queue) ids.push(t.id);
  for (const e of d.stack) ids.push(e.task.id);
  return ids;
}

/** After every command: the model and the real scheduler agree, and nothing was lost silently. */
export function checkAgreement(m: SchedulerModel, r: RealSystem, after: string): void {
  const real = r.sched.dump();
  const model = m.dump();
  for (const key of Object.keys(model) as (keyof SchedulerDump)[]) {
    same(`dump.${key} after ${after}`, real[key], model[key]);
  }
  same(`dump keys after ${after}`, Object.keys(real).sort(), Object.keys(model).sort());
  same(`timer effects after ${after}`, r.sched.takeEffects(), m.takeEffects());
  const terminals = realTerminals(r);
  same(`terminal events after ${after}`, terminals, m.terminals);

  // NO SILENT LOSS, judged on the real system alone (its dump and its trace).
  const submitted = r.recorder.events.flatMap((e) => (e.type === 'task.submitted' ? [e.task] : []));
  same(`submissions traced after ${after}`, submitted, m.submitted);
  const where = new Map<string, number>();
  for (const id of placesIn(real)) where.set(id, (where.get(id) ?? 0) + 1);
  for (const t of terminals) where.set(t.task, (where.get(t.task) ?? 0) + 1);
  for (const id of submitted) {
    same(`NO SILENT LOSS: places + terminal events of ${id} after ${after}`, where.get(id) ?? 0, 1);
    where.delete(id);
  }
  same(`tasks that were never submitted after ${after}`, [...where.keys()], []);

  if (real.stack.length === 4) reached.depth4 += 1;
}

// ---------------------------------------------------------------- commands

class SubmitQueued implements SchedCommand {
  constructor(readonly kernel: boolean) {}
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const id = `${this.kernel ? 'k' : 'q'}${m.submitted.length + 1}`;
    const real = r.sched.submitQueued(id, m.nowMs, { kernel: this.kernel });
    const expected = m.submitQueued(id, { kernel: this.kernel });
    same(`outcome of ${this.toString()} (${id})`, real, expected);
    if (real.kind === 'ended') {
      if (real.terminal.reason === 'queue_full') reached.backpressure += 1;
      else reached.selfLoopFull += 1;
    }
    checkAgreement(m, r, `${this.toString()} (${id})`);
  }
  toString(): string {
    return this.kernel ? 'queued({ kernel: true })' : 'queued()';
  }
}

class SubmitInterrupt implements SchedCommand {
  constructor(readonly level: Level) {}
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const id = `i${m.submitted.length + 1}L${this.level}`;
    const dropsBefore = r.sched.dump().counters.dropped;
    const occupantBefore = r.sched.dump().immediate?.id ?? null;
    const real = r.sched.submitInterrupt(id, this.level, m.nowMs);
    const expected = m.submitInterrupt(id, this.level);
    same(`outcome of ${this.toString()} (${id})`, real, expected);
    if (r.sched.dump().counters.dropped > dropsBefore) reached.overflowDrops += 1;
    if (real.kind === 'admitted' && real.armed && occupantBefore !== null) reached.evictions += 1;
    checkAgreement(m, r, `${this.toString()} (${id})`);
  }
  toString(): string {
    return `interrupt(${this.level})`;
  }
}

/**
 * An interrupt one level above the running task's effective level (when idle: above the stack top's,
 * or L1): the submission that preempts, unless a critical section or the cooldown defers it. Not
 * applicable above L4, where it would only pile up waiting L4s and stall the sequence. Its level
 * depends on the state, which replays identically, so printed sequences stay exact.
 */
class InterruptAbove implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return this.below(m) < 4;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    new SubmitInterrupt((this.below(m) + 1) as Level).run(m, r);
  }
  toString(): string {
    return 'interruptAbove()';
  }
  private below(m: Readonly<SchedulerModel>): number {
    const d = m.dump();
    return d.running?.effectiveLevel ?? d.stack[d.stack.length - 1]?.task.effectiveLevel ?? 0;
  }
}

class Pick implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return m.running === null;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const pick = r.sched.pick(m.nowMs);
    const real = pick === null ? null : { id: pick.id, from: r.sched.lastPickSource() };
    same('outcome of pick()', real, m.pick());
    if (real?.from === 'stack') reached.resumedFromStack += 1;
    checkAgreement(m, r, 'pick()');
  }
  toString(): string {
    return 'pick()';
  }
}

class SafePoint implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return m.running !== null;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const real = r.sched.safePoint(m.nowMs, 'Model');
    same('outcome of safePoint()', real, m.safePoint());
    if (real === 'suspended') reached.suspended += 1;
    checkAgreement(m, r, 'safePoint()');
  }
  toString(): string {
    return 'safePoint()';
  }
}

class Finish implements SchedCommand {
  constructor(readonly kind: 'done' | 'failed') {}
  check(m: Readonly<SchedulerModel>): boolean {
    return m.running !== null;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const terminal: Terminal = { kind: this.kind, reply: this.kind === 'done' ? 'ok' : 'processing error: boom' };
    const real = r.sched.finishRunning(terminal, m.nowMs);
    const expectedId = m.running?.id;
    m.finishRunning(terminal);
    same(`task ended by ${this.toString()}`, real.id, expectedId);
    checkAgreement(m, r, this.toString());
  }
  toString(): string {
    return `finish('${this.kind}')`;
  }
}

class EnterCritical implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return m.running !== null && !m.critical;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    r.sched.enterCritical(m.nowMs);
    m.enterCritical();
    checkAgreement(m, r, 'enterCritical()');
  }
  toString(): string {
    return 'enterCritical()';
  }
}

class LeaveCritical implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return m.running !== null && m.critical;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    r.sched.leaveCritical(m.nowMs);
    m.leaveCritical();
    checkAgreement(m, r, 'leaveCritical()');
  }
  toString(): string {
    return 'leaveCritical()';
  }
}

/** Time only moves forward; nothing happens in either system until the next fact. */
class Advance implements SchedCommand {
  constructor(readonly deltaMs: number) {}
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    m.nowMs += this.deltaMs;
    checkAgreement(m, r, this.toString());
  }
  toString(): string {
    return `advance(${this.deltaMs})`;
  }
}

/**
 * The agent loop's next move: pick when idle, reach a safe point when a task runs. Not a new fact,
 * only a shorthand that is never skipped, so generated sequences get deeper.
 */
class Step implements SchedCommand {
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    if (m.running === null) new Pick().run(m, r);
    else new SafePoint().run(m, r);
  }
  toString(): string {
    return 'step()';
  }
}

/** The driver fires the pending cooldown timer: at its time, or later if time already passed it. */
class FireTimer implements SchedCommand {
  check(m: Readonly<SchedulerModel>): boolean {
    return m.cooldownTimerAtMs !== null;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    m.nowMs = Math.max(m.nowMs, m.cooldownTimerAtMs ?? m.nowMs);
    const real = r.sched.cooldownTimerFired(m.nowMs);
    same('outcome of fireTimer()', real, m.cooldownTimerFired());
    if (real) reached.timerArms += 1;
    checkAgreement(m, r, 'fireTimer()');
  }
  toString(): string {
    return 'fireTimer()';
  }
}

/** A submission refused by the intake checks before the containers (docs/spec.md §2.8, §3.1). */
class Refuse implements SchedCommand {
  constructor(
    readonly level: Level | null,
    readonly reason: 'invalid' | 'empty_input' | 'duplicate',
  ) {}
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const id = `x${m.submitted.length + 1}`;
    const cls = this.level === null ? 'queued' : 'interrupt';
    const real = r.sched.refuse(id, cls, this.level, this.reason, m.nowMs);
    same(`outcome of ${this.toString()} (${id})`, real, m.refuse(id, cls, this.level, this.reason));
    checkAgreement(m, r, `${this.toString()} (${id})`);
  }
  toString(): string {
    return `refuse(${String(this.level)}, '${this.reason}')`;
  }
}

/** The user stop's scheduler part (docs/spec.md §2.9 step 1; nothing stays armed). */
class StopQueued implements SchedCommand {
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const terminal: Terminal = { kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' };
    const real = r.sched.stopQueued(terminal, m.nowMs);
    same('tasks cancelled by stopQueued()', real, m.stopQueued(terminal));
    checkAgreement(m, r, 'stopQueued()');
  }
  toString(): string {
    return 'stopQueued()';
  }
}

/** Stopping the agent (docs/spec.md §10.2a): everything pending, running or suspended ends. */
class StopAll implements SchedCommand {
  check(): boolean {
    return true;
  }
  run(m: SchedulerModel, r: RealSystem): void {
    const terminal: Terminal = { kind: 'skipped', reason: 'agent_stopped', reply: '' };
    const real = r.sched.stopAll(terminal, m.nowMs);
    same('tasks ended by stopAll()', real, m.stopAll(terminal));
    if (real.length > 0) reached.stopAll += 1;
    checkAgreement(m, r, 'stopAll()');
  }
  toString(): string {
    return 'stopAll()';
  }
}

// ---------------------------------------------------------------- builders (the printed vocabulary)

export const queued = (options: { readonly kernel?: boolean } = {}): SchedCommand =>
  new SubmitQueued(options.kernel === true);
export const interrupt = (level: Level): SchedCommand => new SubmitInterrupt(level);
export const interruptAbove = (): SchedCommand => new InterruptAbove();
export const pick = (): SchedCommand => new Pick();
export const step = (): SchedCommand => new Step();
export const safePoint = (): SchedCommand => new SafePoint();
export const finish = (kind: 'done' | 'failed' = 'done'): SchedCommand => new Finish(kind);
export const enterCritical = (): SchedCommand => new EnterCritical();
export const leaveCritical = (): SchedCommand => new LeaveCritical();
export const advance = (deltaMs: number): SchedCommand => new Advance(deltaMs);
export const fireTimer = (): SchedCommand => new FireTimer();
export const refuse = (level: Level | null, reason: 'invalid' | 'empty_input' | 'duplicate'): SchedCommand =>
  new Refuse(level, reason);
export const stopQueued = (): SchedCommand => new StopQueued();
export const stopAll = (): SchedCommand => new StopAll();

/**
 * Replays an exact command sequence (a shrunk counterexample, or a pinned scenario) through the same
 * checks as the property, and returns both systems for further assertions. Unlike `fc.modelRun`, a
 * command that does not apply is an error: a pinned sequence must mean exactly what it says.
 */
export function replay(
  config: ModelConfig,
  commands: readonly SchedCommand[],
): { model: SchedulerModel; real: RealSystem } {
  const systems = setup(config)();
  for (const command of commands) {
    if (!command.check(systems.model)) throw new Error(`replay: ${command.toString()} does not apply at this point`);
    command.run(systems.model, systems.real);
  }
  return systems;
}
