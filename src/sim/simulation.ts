/**
 * The discrete-event simulator (ARCHITECTURE "Simulator recipe"). Theory of operation:
 *
 * One run owns a VirtualClock, the kernel, the Runtime, seeded fakes, the trace sinks (hash, monitor,
 * trigger engine, recorder) and nothing else: no state lives at module level, so an in-process sweep
 * equals separate processes.
 *
 * The loop alternates one step and one drain. A step is either the external agenda of an instant —
 * inputs due (file order), generated inputs, then the root stop — or exactly one clock timer, agenda
 * first when both are due at the same instant (SPEC §12.2.1). A drain awaits one macrotask, after
 * which Node has run every pending promise reaction: the Runtime and the kernel are quiescent before
 * time moves. The run ends when the root has stopped and no timer remains.
 */
import { MessageChannel } from 'node:worker_threads';
import { VirtualClock } from '../clock/index.ts';
import {
  assert,
  canPreempt,
  InvariantMonitor,
  Kernel,
  MonitoredSink,
  resolveKernelConfig,
  resolveLevel,
  type KernelConfig,
  type KernelInput,
  type Level,
  type RegisterInput,
  type Submission,
  type TraceEvent,
  type TraceSink,
  type Violation,
} from '../kernel/index.ts';
import { Runtime } from '../runtime/runtime.ts';
import { FakeProvider, type FakeReply } from './fakes/model.ts';
import { FakeToolRunner, toolSpecs, type FakeToolDef } from './fakes/tools.ts';
import { Generator, type GeneratedInput } from './inputs/generator.ts';
import { exitCodeOf, finalizeReport, type InputMeta, type Report, type RunRecord } from './report/index.ts';
import { Rng } from './rng.ts';
import type { Problem, Reply, Scenario, ScenarioEvent, ScenarioInput } from './scenario/index.ts';
import { LazyGraphStore } from '../memory/lazy-store.ts';
import { memoryPorts } from '../memory/ports.ts';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRunTempDir } from './run-temp-dir.ts';
import { TraceHasher } from './trace/writer.ts';
import { TriggerEngine } from './inputs/triggers.ts';

export { unexpectedViolations } from './report/index.ts';

export interface SimOptions {
  /** Overrides the scenario's seed. */
  readonly seed?: number;
  /** Permute timers due at the same instant with the seeded RNG (explores interleavings). */
  readonly shuffleTies?: boolean;
  /** After each drain, run one more macrotask round and fail if anything moved. */
  readonly checkDrain?: boolean;
  /** Write the canonical trace (with a header line) to this file. */
  readonly tracePath?: string;
  /** The command line that reproduces the run, for the report. */
  readonly command?: string;
  /** Told of every input the Runtime feeds through the kernel's door, with its time (a journal tap). */
  readonly onInput?: (input: KernelInput, nowMs: number) => void;
}

export type SimOutcome =
  | {
      readonly kind: 'report';
      /** The report with the scenario's own checks (no command-level ones). */
      readonly report: Report;
      readonly exitCode: 0 | 1;
      /** What the report was made from, for `finalizeReport` with command-level checks. */
      readonly record: RunRecord;
    }
  | { readonly kind: 'unusable'; readonly problems: Problem[] };

/** Features whose issues have not landed yet: a scenario using them is refused, never half-run. */
export function unsupportedFeatures(s: Scenario): Problem[] {
  const problems: Problem[] = [];
  const notYet = (path: string, what: string): void => {
    problems.push({ path, message: `not supported yet: ${what}` });
  };
  if (s.residents.length > 0) notYet('residents', 'resident child agents arrive with the child-agents issue');
  s.events.forEach((event, i) => {
    if (event.destroy !== undefined) notYet(`events[${i}].destroy`, 'destroying a child arrives with the child-agents issue');
    if (event.stopAgent !== undefined) notYet(`events[${i}].stopAgent`, 'stopping a child arrives with the child-agents issue');
  });
  if (s.kernel.offload?.enabled === true) notYet('kernel.offload.enabled', 'offload arrives with the child-agents issue');
  s.inputs.forEach((input, i) => {
    if (input.agent !== 'root') notYet(`inputs[${i}].agent`, 'inputs addressed to child agents');
  });
  return problems;
}

export async function runScenario(scenario: Scenario, opts: SimOptions = {}): Promise<SimOutcome> {
  const problems = unsupportedFeatures(scenario);
  if (problems.length > 0) return { kind: 'unusable', problems };
  const record = await new SimulationRun(scenario, opts).execute();
  const report = finalizeReport(record);
  return { kind: 'report', report, exitCode: exitCodeOf(report), record };
}

/** The effective kernel configuration of a scenario (after defaults). */
export function scenarioKernelConfig(s: Scenario): KernelConfig {
  const tools: Record<string, FakeToolDef> = {};
  for (const t of s.tools) tools[t.name] = t;
  const outputs = s.outputs.map((o) => ({ name: o.name, caps: o.caps ?? ['text'] }));
  return resolveKernelConfig({
    ...s.kernel,
    builtinPlugins: s.builtinPlugins,
    tools: toolSpecs(tools),
    outputs,
    verify: true,
  });
}

class SimulationRun {
  private readonly seed: number;
  private readonly clock: VirtualClock;
  private readonly events: TraceEvent[] = [];
  private readonly hasher: TraceHasher;
  private readonly monitor: MonitoredSink;
  private readonly triggers: TriggerEngine;
  private readonly kernel: Kernel;
  private readonly runtime: Runtime;
  private readonly provider: FakeProvider;
  private readonly toolRunner: FakeToolRunner;
  private readonly generator: Generator | null;
  private readonly config: KernelConfig;
  /** Inputs with an `at` time, sorted by (at, file order). */
  private readonly agenda: ScenarioInput[];
  private agendaIndex = 0;
  private readonly submitted = new Set<string>();
  private readonly repliesById = new Map<string, readonly FakeReply[]>();
  private stopRequested = false;
  private victimTimer: number | null = null;
  private victimInjectScheduled = false;
  private extraViolations: Violation[] = [];
  private memoryDir: string | null = null;
  private readonly mainMemory: LazyGraphStore;
  /** Runtime events sorted by (at, file order). */
  private readonly scheduledEvents: ScenarioEvent[];
  private eventIndex = 0;
  private unhandled: unknown = null;
  /** The run was ended by one of its `limits`: what it left running is not a RUNTIME finding. */
  private limited = false;

  constructor(
    private readonly scenario: Scenario,
    private readonly opts: SimOptions,
  ) {
    this.seed = opts.seed ?? scenario.seed;
    const ties = opts.shuffleTies === true ? Rng.derive(this.seed, 'ties') : null;
    this.clock = new VirtualClock(ties === null ? {} : { tieShuffle: () => ties.next() });
    this.config = scenarioKernelConfig(scenario);
    this.hasher = new TraceHasher(
      opts.tracePath === undefined
        ? {}
        : { path: opts.tracePath, header: { scenario: scenario.name, seed: this.seed, reportVersion: 1 } },
    );
    this.triggers = new TriggerEngine(scenario.inputs, this.clock, (input) => this.injectInput(input), (input) =>
      this.submitted.add(input.id),
    );
    const record: TraceSink = {
      emit: (e) => {
        this.events.push(e);
        this.hasher.emit(e);
        this.triggers.observe(e);
      },
    };
    // The monitors sit in front of the recorder, so their violations are traced and hashed too.
    this.monitor = new MonitoredSink(record, new InvariantMonitor({ builtinPlugins: scenario.builtinPlugins }));
    const sink: TraceSink = this.monitor;
    // The root's main graph memory: an empty SQLite file of this run, deleted when the run ends.
    this.mainMemory = new LazyGraphStore(
      () => {
        this.memoryDir = createRunTempDir();
        return join(this.memoryDir, 'main.sqlite');
      },
      { synchronous: 'normal' },
    );
    this.kernel = new Kernel(this.config, sink, { memory: memoryPorts(this.mainMemory) });
    for (const input of scenario.inputs) this.repliesById.set(input.id, input.replies.map(fakeReply));
    for (const [task, replies] of Object.entries(scenario.kernelReplies)) this.repliesById.set(task, replies.map(fakeReply));
    this.provider = new FakeProvider({
      clock: this.clock,
      seed: this.seed,
      model: scenario.model,
      faults: scenario.faults,
      replies: (_agent, task) => this.repliesById.get(task) ?? [{ text: `ok ${task}` }],
    });
    const toolDefs: Record<string, FakeToolDef> = {};
    for (const t of scenario.tools) toolDefs[t.name] = t;
    this.toolRunner = new FakeToolRunner({ clock: this.clock, seed: this.seed, tools: toolDefs, faults: scenario.faults });
    this.runtime = new Runtime(
      this.kernel,
      { clock: this.clock, provider: this.provider, tools: this.toolRunner },
      opts.onInput === undefined ? {} : { onInput: opts.onInput },
    );
    this.generator = scenario.generate === undefined ? null : new Generator(scenario.generate, this.seed);
    this.scheduledEvents = scenario.events
      .map((event, order) => ({ event, order }))
      .sort((a, b) => a.event.at - b.event.at || a.order - b.order)
      .map((x) => x.event);
    this.agenda = scenario.inputs
      .filter((i) => i.timing.kind === 'at')
      .map((input, order) => ({ input, order }))
      .sort((a, b) => atOf(a.input) - atOf(b.input) || a.order - b.order)
      .map((x) => x.input);
  }

  async execute(): Promise<RunRecord> {
    const wallStart = performance.now();
    const onUnhandled = (reason: unknown): void => {
      if (this.unhandled === null) this.unhandled = reason;
    };
    process.on('unhandledRejection', onUnhandled);
    const drain = new Drain();
    try {
      this.setUpAtZero();
      await drain.run(this.opts.checkDrain === true, () => this.progress());
      for (;;) {
        if (this.runtime.fatal() !== null || this.unhandled !== null) break;
        this.checkVictim();
        const agendaAt = this.nextAgendaAt();
        const timerAt = this.clock.nextAtMs();
        const limit = this.limitReached(agendaAt, timerAt);
        if (limit !== null) {
          await this.endAtLimit(limit, drain);
          break;
        }
        if (this.drainedNow(agendaAt, timerAt)) {
          this.stopRequested = true;
          this.runtime.stop();
        } else if (agendaAt === null && timerAt === null) {
          if (this.kernel.isStopped()) break;
          this.runtime.stop();
        } else if (agendaAt !== null && (timerAt === null || agendaAt <= timerAt)) {
          this.clock.advanceTo(Math.max(agendaAt, this.clock.now()));
          this.runAgenda();
        } else {
          this.clock.runNext();
        }
        await drain.run(this.opts.checkDrain === true, () => this.progress());
      }
      // Before the trace closes: the end-of-run violations are traced too.
      this.endOfRunChecks(drain);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      drain.close();
      this.hasher.close();
      this.mainMemory.close();
      if (this.memoryDir !== null) rmSync(this.memoryDir, { recursive: true, force: true });
    }
    return this.record(performance.now() - wallStart);
  }

  // ---------------------------------------------------------------- the agenda of an instant

  /**
   * SPEC §12.2.1: at t = 0, before anything else, the scenario's channels are registered; then the
   * `afterTerminal` inputs are handed to the kernel, which submits each when its task ends.
   */
  private setUpAtZero(): void {
    for (const c of this.scenario.channels) {
      this.registerChannel({
        name: c.name,
        ...(c.plugin !== undefined ? { plugin: c.plugin } : {}),
        ...(c.owner !== undefined ? { owner: c.owner } : {}),
        ...(c.output !== undefined ? { output: c.output } : {}),
      });
    }
    for (const { task, input } of this.triggers.afterTerminalInputs()) {
      this.runtime.feed({ type: 'submit.after', task, submission: this.submissionOf(input) });
    }
  }

  /** The schema admits only channels the registry accepts: a refusal here is a simulator bug. */
  private registerChannel(channel: RegisterInput): void {
    const result = this.runtime.feed({ type: 'channel.register', channel });
    assert(result.kind === 'registered', `SIM: channel ${channel.name} refused: ${result.kind === 'refused' ? result.error : ''}`);
  }

  private nextAgendaAt(): number | null {
    let at: number | null = null;
    const event = this.scheduledEvents[this.eventIndex];
    if (event !== undefined) at = event.at;
    const input = this.agenda[this.agendaIndex];
    if (input !== undefined) at = minOf(at, atOf(input));
    const gen = this.generator?.next() ?? null;
    if (gen !== null && !(this.generator as Generator).waitsForVictim(gen.input)) at = minOf(at, gen.dueAtMs);
    if (gen !== null && this.victimTimer === null && this.generator?.waitsForVictim(gen.input) === true) {
      at = minOf(at, gen.dueAtMs);
    }
    const stopAt = this.scenario.stopAt;
    if (stopAt !== undefined && !this.stopRequested) at = minOf(at, stopAt);
    return at;
  }

  /**
   * SPEC §12.2 `limits`: the run may emit `maxEvents` trace events and reach `maxVirtualMs`; a
   * runaway scenario (an endless tool loop, say) must end in seconds, not run for minutes.
   */
  private limitReached(agendaAt: number | null, timerAt: number | null): string | null {
    const limits = this.scenario.limits;
    if (this.events.length > limits.maxEvents) return `limits.maxEvents ${limits.maxEvents}`;
    const next = agendaAt === null ? timerAt : timerAt === null ? agendaAt : Math.min(agendaAt, timerAt);
    if (next !== null && next > limits.maxVirtualMs) return `limits.maxVirtualMs ${limits.maxVirtualMs}`;
    return null;
  }

  /**
   * Ends the run at once: the root is stopped (every pending task ends skipped/agent_stopped, so the
   * `agent.stop` event names them) and the timers still due are never run.
   */
  private async endAtLimit(limit: string, drain: Drain): Promise<void> {
    this.limited = true;
    const t = this.clock.now();
    if (!this.kernel.isStopped()) {
      this.runtime.stop();
      await drain.run(false, () => this.progress());
    }
    let pending: readonly string[] = [];
    for (let i = this.events.length - 1; i >= 0; i -= 1) {
      const e = this.events[i] as TraceEvent;
      if (e.type === 'agent.stop' && e.agent === 'root') {
        pending = e.ended;
        break;
      }
    }
    const named = pending.length > 10 ? `${pending.slice(0, 10).join(', ')} and ${pending.length - 10} more` : pending.join(', ');
    this.extraViolations.push({
      invariant: 'LIMIT',
      t,
      seq: this.events.length,
      agent: 'root',
      message:
        `the run reached ${limit} at t=${t}ms after ${this.events.length} events and was ended; ` +
        `${pending.length} task(s) still pending${pending.length > 0 ? `: ${named}` : ''}`,
    });
  }

  /**
   * The default root stop (SPEC §12.2 `stopAt`): at the first instant at which no task of any agent is
   * pending and no input is still to come, once that instant's timers have run. Timers that remain
   * then guard no pending work (a provider's late chunks after a cancel): they still fire, after the
   * stop, and the run ends when none is left.
   */
  private drainedNow(agendaAt: number | null, timerAt: number | null): boolean {
    if (this.scenario.stopAt !== undefined || this.stopRequested || agendaAt !== null) return false;
    if (timerAt !== null && timerAt <= this.clock.now()) return false;
    if (this.generator !== null && this.generator.next() !== null) return false;
    return !this.kernel.hasPendingWork() && !this.triggers.hasScheduled() && !this.kernel.isStopped();
  }

  /** Everything external due now: runtime events, file inputs, generated inputs, then the root stop. */
  private runAgenda(): void {
    const now = this.clock.now();
    for (let event = this.scheduledEvents[this.eventIndex]; event !== undefined && event.at <= now; ) {
      this.eventIndex += 1;
      this.runEvent(event);
      event = this.scheduledEvents[this.eventIndex];
    }
    for (let input = this.agenda[this.agendaIndex]; input !== undefined && atOf(input) <= now; ) {
      this.agendaIndex += 1;
      this.injectInput(input);
      input = this.agenda[this.agendaIndex];
    }
    this.runGenerator(now);
    if (this.scenario.stopAt !== undefined && !this.stopRequested && this.scenario.stopAt <= now) {
      this.stopRequested = true;
      this.runtime.stop();
    }
  }

  private runEvent(event: ScenarioEvent): void {
    const reg = event.registerChannel;
    if (reg !== undefined) {
      this.registerChannel({
        name: reg.name,
        ...(reg.plugin !== undefined ? { plugin: reg.plugin } : {}),
        ...(reg.owner !== undefined ? { owner: reg.owner } : {}),
      });
    }
    if (event.unregisterChannel !== undefined) this.runtime.feed({ type: 'channel.unregister', name: event.unregisterChannel });
  }

  private runGenerator(now: number): void {
    const generator = this.generator;
    if (generator === null) return;
    for (let gen = generator.next(); gen !== null && gen.dueAtMs <= now; gen = generator.next()) {
      if (generator.waitsForVictim(gen.input)) {
        if (this.victimTimer === null) {
          // The victim timeout: inject anyway when no victim showed up in time.
          this.victimTimer = this.clock.setTimer(gen.dueAtMs + generator.cfg.victimTimeoutMs - now, () =>
            this.injectGenerated(),
          );
        }
        return;
      }
      this.submit(generatedSubmission(gen.input));
      generator.injected(now);
    }
  }

  /** After each drain: a waiting interrupt whose victim is now in its Model step is injected by a timer. */
  private checkVictim(): void {
    const generator = this.generator;
    if (generator === null || this.victimTimer === null || this.victimInjectScheduled) return;
    const gen = generator.next();
    if (gen === null) return;
    const now = this.clock.now();
    const running = this.kernel.running(now);
    if (running === null || running.step !== 'Model' || running.waiting !== 'model') return;
    if (running.inCooldown || running.critical) return;
    const level = resolveLevel(gen.input.level ?? 1, gen.input.source, this.scenario.builtinPlugins);
    if (!canPreempt({ cls: 'interrupt', level, preemptCount: 0 }, victimRank(running.effectiveLevel))) return;
    this.victimInjectScheduled = true;
    this.clock.setTimer(0, () => this.injectGenerated());
  }

  private injectGenerated(): void {
    const generator = this.generator as Generator;
    const gen = generator.next();
    if (this.victimTimer !== null) this.clock.clearTimer(this.victimTimer);
    this.victimTimer = null;
    this.victimInjectScheduled = false;
    if (gen === null) return;
    this.submit(generatedSubmission(gen.input));
    generator.injected(this.clock.now());
    this.runGenerator(this.clock.now());
  }

  private injectInput(input: ScenarioInput): void {
    this.submit(this.submissionOf(input));
  }

  /** A stop input goes through the kernel even without text: the stop actions still happen. */
  private submissionOf(input: ScenarioInput): Submission {
    const base = {
      id: input.id,
      cls: input.class,
      source: input.source,
      channel: input.channel,
      agent: input.agent,
    } as const;
    if (input.stop) return { ...base, level: input.level, text: input.text ?? '', stop: true };
    return input.level === null ? { ...base, text: input.text } : { ...base, level: input.level, text: input.text };
  }

  private submit(sub: Submission): void {
    this.submitted.add(sub.id);
    this.runtime.submit(sub);
  }

  // ---------------------------------------------------------------- end of run

  private progress(): number {
    return this.events.length * 1_000_003 + this.clock.pendingCount();
  }

  private endOfRunChecks(drain: Drain): void {
    const t = this.clock.now();
    const add = (invariant: string, message: string): void => {
      this.extraViolations.push({ invariant, t, seq: this.events.length, agent: 'root', message });
    };
    const fatal = this.runtime.fatal();
    if (fatal !== null) add('FATAL', `kernel error at t=${t}ms: ${errorText(fatal)}`);
    if (this.unhandled !== null) add('UNHANDLED', `unhandled rejection at t=${t}ms: ${errorText(this.unhandled)}`);
    if (drain.moved > 0) add('DRAINCHECK', `${drain.moved} drain(s) left work behind for a second macrotask round`);
    if (fatal === null && !this.limited) {
      const activity = this.runtime.activity();
      if (this.clock.pendingCount() > 0) add('RUNTIME', `${this.clock.pendingCount()} timer(s) still pending`);
      if (activity.streams > 0 || activity.tools > 0) {
        add('RUNTIME', `${activity.streams} stream consumer(s) and ${activity.tools} tool call(s) still active`);
      }
      const stats = this.provider.stats();
      if (stats.opened !== stats.closed) add('RUNTIME', `provider streams opened ${stats.opened} != closed ${stats.closed}`);
    }
    this.monitor.finish({ drained: fatal === null && this.unhandled === null, stoppedAgents: [] }, t);
  }

  private record(wallMs: number): RunRecord {
    const inputsMeta: InputMeta[] = this.scenario.inputs.map((input) => ({
      id: input.id,
      declaredClass: input.class,
      declaredLevel: input.level,
      // A stop without text is listed under `stops` only.
      submitted: this.submitted.has(input.id),
    }));
    for (const gen of this.generator?.all() ?? []) {
      inputsMeta.push({ id: gen.id, declaredClass: gen.cls, declaredLevel: gen.level, submitted: this.submitted.has(gen.id) });
    }
    return {
      scenario: this.scenario.name,
      seed: this.seed,
      command: this.opts.command ?? `homeagent sim run <scenario> --seed ${this.seed}`,
      config: this.effectiveConfig(),
      events: this.events,
      dump: this.kernel.dump(),
      traceHash: this.hasher.digest(),
      wallMs: Math.round(wallMs * 1000) / 1000,
      violations: [...this.monitor.violations, ...this.extraViolations],
      inputsMeta,
      triggers: this.triggers.states.map((s) => ({ input: s.input, fired: s.fired, t: s.t })),
      expect: this.scenario.expect,
      unfiredTriggers: this.triggers.unfired(),
    };
  }

  private effectiveConfig(): unknown {
    const { tools: _tools, ...kernel } = this.config;
    return {
      seed: this.seed,
      kernel,
      builtinPlugins: this.scenario.builtinPlugins,
      model: this.scenario.model,
      tools: this.scenario.tools,
      faults: this.scenario.faults,
      generate: this.scenario.generate ?? null,
      stopAt: this.scenario.stopAt ?? null,
      shuffleTies: this.opts.shuffleTies === true,
    };
  }
}

/**
 * One macrotask round per drain: a reused MessageChannel ping (Node runs every nextTick and microtask
 * before the next macrotask). The check mode runs one extra `setImmediate` round and counts drains
 * after which anything still moved — which would mean the drain left work behind.
 */
class Drain {
  private readonly channel = new MessageChannel();
  private resolve: (() => void) | null = null;
  moved = 0;

  constructor() {
    this.channel.port1.on('message', () => {
      const resolve = this.resolve;
      this.resolve = null;
      resolve?.();
    });
  }

  async run(check: boolean, progress: () => number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.resolve = resolve;
      this.channel.port2.postMessage(null);
    });
    if (!check) return;
    const before = progress();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (progress() !== before) this.moved += 1;
  }

  close(): void {
    this.channel.port1.close();
    this.channel.port2.close();
  }
}

function atOf(input: ScenarioInput): number {
  return input.timing.kind === 'at' ? input.timing.at : 0;
}

function minOf(a: number | null, b: number): number {
  return a === null ? b : Math.min(a, b);
}

function victimRank(eff: number): { cls: 'queued' | 'interrupt'; level: Level | null; preemptCount: number } {
  // An effective level is enough to rank the victim: 0 is a queued task, 1..4 an interrupt.
  return eff === 0 ? { cls: 'queued', level: null, preemptCount: 0 } : { cls: 'interrupt', level: eff as Level, preemptCount: 0 };
}

function generatedSubmission(gen: GeneratedInput): Submission {
  const base = { id: gen.id, cls: gen.cls, source: gen.source, channel: gen.source, text: gen.text } as const;
  return gen.level === null ? base : { ...base, level: gen.level };
}

function fakeReply(r: Reply): FakeReply {
  return {
    text: r.text,
    ...(r.tools.length > 0 ? { tools: r.tools } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.firstChunkMs !== undefined ? { firstChunkMs: r.firstChunkMs } : {}),
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
