/**
 * The external agenda of a run (docs/spec.md §12.2.1 "Virtual time"): everything the scenario puts in from
 * outside the kernel, and when.
 *
 * Theory of operation. At t = 0 the scenario's channels are registered and its `afterTerminal` inputs
 * handed to the kernel's door. After that, an instant's agenda is, in this order: the runtime `events`
 * due (file order), the inputs with an `at` due (file order), the generated inputs due, then the root
 * stop when `stopAt` is that instant. The run loop asks `nextAt()` when the agenda next has something
 * and runs `runDue()` when that instant comes; clock timers (and tie-shuffling) never reorder it.
 *
 * A victim-aware generated interrupt (`generate.victimAware`) waits until a task it can preempt is in
 * its Model step, or until `victimTimeoutMs` has passed; either way it is injected by a clock timer, so
 * it enters the kernel between two drains like any other timer firing. Without `stopAt`, the root is
 * stopped at the first instant at which nothing is pending and nothing is still to come
 * (`defaultStopDue`).
 *
 * The agenda also remembers which inputs were handed to the kernel, for the report's never-submitted
 * tasks.
 *
 * In a run that can crash (crash/process.ts) a `crash` event kills the simulated process after the
 * event's other actions, and its restart comes first at its instant, before any event or input. While
 * the process is down every event due is dropped, every input due is refused and reported `lost`, and a
 * `stopAt` that falls then waits for the restart.
 *
 * Under `--swarm`, each input the agenda submits is a chance for the sites queue-flood (FLOOD_SIZE
 * queued inputs at once), interrupt-burst (one interrupt of each level at once) and user-stop (the
 * stop button, with a text), submitted right
 * after it in the same instant, and for the site crash: the process dies a drawn while later
 * (CRASH_DELAY_MS) and restarts a drawn while after that (CRASH_RESTART_AFTER_MS), at most CRASHES_MAX
 * times a run and never while a crash is already coming. Their ids contain '_', which scenario ids cannot, so they never collide;
 * each has a text of its own, so the kernel's duplicate check (same source and text) does not skip
 * them and they reach the queue and the interrupt levels.
 */
import type { VirtualClock } from '../../clock/index.ts';
import {
  assert,
  canPreempt,
  resolveLevel,
  type Kernel,
  type Level,
  type RegisterInput,
  type Submission,
} from '../../kernel/index.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { InputMeta } from '../report/index.ts';
import type { Scenario, ScenarioEvent, ScenarioInput } from '../scenario/index.ts';
import type { SimProcess } from '../crash/process.ts';
import { Rng } from '../rng.ts';
import {
  CHILD_FLOOD_SIZE,
  CHILD_FLOOD_TEXT_POINTS,
  CRASH_DELAY_MS,
  CRASH_RESTART_AFTER_MS,
  CRASHES_MAX,
  FLOOD_SIZE,
  type Swarm,
} from '../swarm.ts';
import { Generator, type GeneratedInput } from './generator.ts';
import type { TriggerEngine } from './triggers.ts';

/** What the agenda acts on; all of it belongs to the same run. */
export interface AgendaPorts {
  readonly clock: VirtualClock;
  readonly kernel: Kernel;
  readonly runtime: Runtime;
  readonly triggers: TriggerEngine;
  /** The run's fault swarm (`--swarm`), else null. */
  readonly swarm: Swarm | null;
  /** The simulated process of a run that can crash, else null. */
  readonly process: SimProcess | null;
}

export class Agenda {
  /** Runtime events sorted by (at, file order). */
  private readonly events: ScenarioEvent[];
  private eventIndex = 0;
  /** Inputs with an `at` time, sorted by (at, file order). */
  private readonly inputs: ScenarioInput[];
  private inputIndex = 0;
  private readonly generator: Generator | null;
  private readonly submitted = new Set<string>();
  /** The inputs the kernel submitted itself (`afterTerminal`), a part of `submitted`. */
  private readonly kernelSubmitted = new Set<string>();
  private stopRequested = false;
  private victimTimer: number | null = null;
  private victimInjectScheduled = false;
  /** Inputs added by swarm sites, in submission order. */
  private readonly swarmInputs: InputMeta[] = [];
  /** A crash the swarm site scheduled and that has not happened yet. */
  private swarmCrash: { readonly atMs: number; readonly restartAfterMs: number } | null = null;
  private swarmCrashes = 0;

  constructor(
    private readonly scenario: Scenario,
    seed: number,
    private readonly ports: AgendaPorts,
  ) {
    this.generator = scenario.generate === undefined ? null : new Generator(scenario.generate, seed);
    this.events = scenario.events
      .map((event, order) => ({ event, order }))
      .sort((a, b) => a.event.at - b.event.at || a.order - b.order)
      .map((x) => x.event);
    this.inputs = scenario.inputs
      .filter((i) => i.timing.kind === 'at')
      .map((input, order) => ({ input, order }))
      .sort((a, b) => atOf(a.input) - atOf(b.input) || a.order - b.order)
      .map((x) => x.input);
  }

  /**
   * docs/spec.md §12.2.1: at t = 0, before anything else, the scenario's channels are registered; then the
   * `afterTerminal` inputs are handed to the kernel, which submits each when its task ends.
   */
  setUpAtZero(): void {
    for (const c of this.scenario.channels) {
      this.registerChannel({
        name: c.name,
        ...(c.plugin !== undefined ? { plugin: c.plugin } : {}),
        ...(c.owner !== undefined ? { owner: c.owner } : {}),
        ...(c.output !== undefined ? { output: c.output } : {}),
      });
    }
    for (const r of this.scenario.residents) {
      const spec = {
        id: r.id,
        ...(r.kind !== undefined ? { kind: r.kind } : {}),
        ...(r.inputChs !== undefined ? { inputChs: r.inputChs } : {}),
        ...(r.allowedOutputs !== undefined ? { allowedOutputs: r.allowedOutputs } : {}),
        ...(r.tools !== undefined ? { tools: r.tools } : {}),
        ...(r.taskPrompt !== undefined ? { taskPrompt: r.taskPrompt } : {}),
        ...(r.contextWindowTokens !== undefined ? { contextWindowTokens: r.contextWindowTokens } : {}),
      };
      const created = this.ports.runtime.feed({ type: 'child.create', spec });
      // The scenario checks admit only residents the tree accepts: a refusal here is a simulator bug.
      assert(
        created.kind === 'created',
        `SIM: resident ${r.id} refused: ${created.kind === 'refused' ? created.error : ''}`,
      );
    }
    for (const { task, input } of this.ports.triggers.afterTerminalInputs()) {
      this.ports.runtime.feed({ type: 'submit.after', task, submission: submissionOf(input) });
    }
  }

  /** The next instant at which the agenda has something to do, or null when nothing is to come. */
  nextAt(): number | null {
    let at: number | null = null;
    const event = this.events[this.eventIndex];
    if (event !== undefined) at = event.at;
    const input = this.inputs[this.inputIndex];
    if (input !== undefined) at = minOf(at, atOf(input));
    const gen = this.generator?.next() ?? null;
    if (gen !== null && !(this.generator as Generator).waitsForVictim(gen.input)) at = minOf(at, gen.dueAtMs);
    if (gen !== null && this.victimTimer === null && this.generator?.waitsForVictim(gen.input) === true) {
      at = minOf(at, gen.dueAtMs);
    }
    const restartAt = this.ports.process?.restartAtMs ?? null;
    if (restartAt !== null) at = minOf(at, restartAt);
    if (this.swarmCrash !== null) at = minOf(at, this.swarmCrash.atMs);
    const stopAt = this.scenario.stopAt;
    // A stop due while the process is down waits for its restart.
    if (stopAt !== undefined && !this.stopRequested) at = minOf(at, Math.max(stopAt, restartAt ?? stopAt));
    return at;
  }

  /**
   * The default root stop (docs/spec.md §12.2 `stopAt`): at the first instant at which no task of any agent is
   * pending and no input is still to come, once that instant's timers have run. Timers that remain
   * then guard no pending work (a provider's late chunks after a cancel): they still fire, after the
   * stop, and the run ends when none is left.
   */
  defaultStopDue(agendaAt: number | null, timerAt: number | null): boolean {
    if (this.scenario.stopAt !== undefined || this.stopRequested || agendaAt !== null) return false;
    if (timerAt !== null && timerAt <= this.ports.clock.now()) return false;
    if (this.generator !== null && this.generator.next() !== null) return false;
    const kernel = this.ports.kernel;
    return !kernel.hasPendingWork() && !this.ports.triggers.hasScheduled() && !kernel.isStopped();
  }

  /** Stops the root through the door; the agenda asks for it once (`stopAt` or the default stop). */
  stopRoot(): void {
    this.stopRequested = true;
    this.ports.runtime.stop();
  }

  /** Everything external due now: runtime events, file inputs, generated inputs, then the root stop. */
  runDue(): void {
    const now = this.ports.clock.now();
    const process = this.ports.process;
    // A restart, then a crash the swarm scheduled, come before anything else at their instant.
    if (process !== null && process.restartAtMs !== null && process.restartAtMs <= now) process.restart();
    const crash = this.swarmCrash;
    if (process !== null && crash !== null && crash.atMs <= now) {
      this.swarmCrash = null;
      if (!process.isDown) process.crash(now, crash.restartAfterMs);
    }
    for (let event = this.events[this.eventIndex]; event !== undefined && event.at <= now;) {
      this.eventIndex += 1;
      // A down process takes no operator action either; a crash then (only the swarm's can overlap) is moot.
      if (process === null || !process.isDown) this.runEvent(event);
      event = this.events[this.eventIndex];
    }
    for (let input = this.inputs[this.inputIndex]; input !== undefined && atOf(input) <= now;) {
      this.inputIndex += 1;
      this.injectInput(input);
      input = this.inputs[this.inputIndex];
    }
    this.runGenerator(now);
    const down = process?.isDown ?? false;
    if (this.scenario.stopAt !== undefined && !this.stopRequested && this.scenario.stopAt <= now && !down)
      this.stopRoot();
  }

  /** After each drain: a waiting interrupt whose victim is now in its Model step is injected by a timer. */
  checkVictim(): void {
    const generator = this.generator;
    if (generator === null || this.victimTimer === null || this.victimInjectScheduled) return;
    if (this.ports.process?.isDown === true) return;
    const gen = generator.next();
    if (gen === null) return;
    const { clock, kernel } = this.ports;
    const running = kernel.running(clock.now());
    if (running === null || running.step !== 'Model' || running.waiting !== 'model') return;
    if (running.inCooldown || running.critical) return;
    const level = resolveLevel(gen.input.level ?? 1, gen.input.source, this.scenario.builtinPlugins);
    if (!canPreempt({ cls: 'interrupt', level, preemptCount: 0 }, victimRank(running.effectiveLevel))) return;
    this.victimInjectScheduled = true;
    clock.setTimer(0, () => this.injectGenerated());
  }

  /** Submits one scenario input now (an `at` input, or a `when` trigger's timer). */
  injectInput(input: ScenarioInput): void {
    this.submit(submissionOf(input));
  }

  /** The kernel submitted an input itself (an `afterTerminal` one, in the reaction that ended its task). */
  markSubmitted(id: string): void {
    this.submitted.add(id);
    this.kernelSubmitted.add(id);
  }

  /**
   * A crash cut the trace back to `kept` (the ids of its `task.submitted` events): an input the kernel
   * submitted in a reaction that did not survive was never submitted, as far as the recovered run knows.
   */
  crashKept(kept: ReadonlySet<string>): void {
    const dropped: string[] = [];
    for (const id of this.kernelSubmitted) {
      if (kept.has(id)) continue;
      this.kernelSubmitted.delete(id);
      this.submitted.delete(id);
      dropped.push(id);
    }
    // The recovered kernel submits them again when their task ends again: the triggers wait anew.
    this.ports.triggers.rearm(dropped);
  }

  /**
   * At the end of a run that crashed: an `afterTerminal` input never submitted because the input it
   * waits for was lost is lost with it (it would have been submitted in a reaction that never happened).
   */
  loseDependents(process: { isLost(id: string): boolean; lostWith(id: string, cause: string): void }): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const input of this.scenario.inputs) {
        if (input.timing.kind !== 'afterTerminal' || this.submitted.has(input.id) || process.isLost(input.id)) continue;
        if (!process.isLost(input.timing.task)) continue;
        process.lostWith(input.id, input.timing.task);
        changed = true;
      }
    }
  }

  /** Every input of the run, scenario inputs first, then generated ones, with whether it was submitted. */
  inputsMeta(): InputMeta[] {
    const meta: InputMeta[] = this.scenario.inputs.map((input) => ({
      id: input.id,
      declaredClass: input.class,
      declaredLevel: input.level,
      // A stop without text is listed under `stops` only.
      submitted: this.submitted.has(input.id),
    }));
    for (const gen of this.generator?.all() ?? []) {
      meta.push({
        id: gen.id,
        declaredClass: gen.cls,
        declaredLevel: gen.level,
        submitted: this.submitted.has(gen.id),
      });
    }
    meta.push(...this.swarmInputs);
    const process = this.ports.process;
    // A lost submission was never acknowledged: the report lists it under `lost`, as never submitted.
    return process === null ? meta : meta.map((m) => (process.isLost(m.id) ? { ...m, submitted: false } : m));
  }

  // ---------------------------------------------------------------- internals

  /** The schema admits only channels the registry accepts: a refusal here is a simulator bug. */
  private registerChannel(channel: RegisterInput): void {
    const result = this.ports.runtime.feed({ type: 'channel.register', channel });
    assert(
      result.kind === 'registered',
      `SIM: channel ${channel.name} refused: ${result.kind === 'refused' ? result.error : ''}`,
    );
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
    if (event.unregisterChannel !== undefined)
      this.ports.runtime.feed({ type: 'channel.unregister', name: event.unregisterChannel });
    // A destroy or stop of a child that has already stopped (its parent went first) changes nothing.
    const destroy = event.destroy;
    if (destroy !== undefined) {
      const disposal = {
        ...(destroy.residual !== undefined ? { residual: destroy.residual } : {}),
        ...(destroy.channels !== undefined ? { channels: destroy.channels } : {}),
      };
      this.ports.runtime.feed({ type: 'child.destroy', id: destroy.id, disposal });
    }
    if (event.stopAgent !== undefined) this.ports.runtime.feed({ type: 'agent.stop', agent: event.stopAgent });
    if (event.crash !== undefined)
      (this.ports.process as SimProcess).crash(this.ports.clock.now(), event.crash.restartAfterMs);
  }

  private runGenerator(now: number): void {
    const generator = this.generator;
    if (generator === null) return;
    for (let gen = generator.next(); gen !== null && gen.dueAtMs <= now; gen = generator.next()) {
      if (generator.waitsForVictim(gen.input)) {
        if (this.victimTimer === null) {
          // The victim timeout: inject anyway when no victim showed up in time.
          this.victimTimer = this.ports.clock.setTimer(gen.dueAtMs + generator.cfg.victimTimeoutMs - now, () =>
            this.injectGenerated(),
          );
        }
        return;
      }
      this.submit(generatedSubmission(gen.input));
      generator.injected(now);
    }
  }

  private injectGenerated(): void {
    const generator = this.generator as Generator;
    const clock = this.ports.clock;
    const gen = generator.next();
    if (this.victimTimer !== null) clock.clearTimer(this.victimTimer);
    this.victimTimer = null;
    this.victimInjectScheduled = false;
    if (gen === null) return;
    this.submit(generatedSubmission(gen.input));
    generator.injected(clock.now());
    this.runGenerator(clock.now());
  }

  private submit(sub: Submission): void {
    const process = this.ports.process;
    if (process !== null && process.isDown) {
      process.refused(sub.id, this.ports.clock.now());
      return;
    }
    this.submitted.add(sub.id);
    this.ports.runtime.submit(sub);
    const swarm = this.ports.swarm;
    if (swarm === null) return;
    if (process !== null && this.swarmCrash === null && this.swarmCrashes < CRASHES_MAX && swarm.fires('crash', sub.id))
      this.scheduleSwarmCrash(swarm, sub.id);
    if (swarm.fires('queue-flood', sub.id)) {
      for (let k = 1; k <= FLOOD_SIZE; k += 1) {
        this.submitSwarm(
          {
            id: `sw_flood_${sub.id}_${k}`,
            cls: 'queued',
            source: 'swarm',
            channel: 'swarm',
            text: `flood ${sub.id} ${k}`,
          },
          null,
        );
      }
    }
    if (swarm.fires('interrupt-burst', sub.id)) {
      for (const level of [1, 2, 3, 4] as const) {
        this.submitSwarm(
          {
            id: `sw_burst_${sub.id}_L${level}`,
            cls: 'interrupt',
            level,
            source: 'swarm',
            channel: 'swarm',
            text: `burst ${sub.id} L${level}`,
          },
          level,
        );
      }
    }
    if (swarm.fires('user-stop', sub.id)) {
      this.submitSwarm(
        {
          id: `sw_stop_${sub.id}`,
          cls: 'interrupt',
          level: 1,
          source: 'swarm',
          channel: 'swarm',
          text: `stop ${sub.id}`,
          stop: true,
        },
        1,
      );
    }
    const residents = this.scenario.residents;
    if (residents.length > 0 && swarm.fires('child-context-flood', sub.id)) {
      const child = residents[this.submitted.size % residents.length]?.id ?? 'root';
      const filler = 'x'.repeat(CHILD_FLOOD_TEXT_POINTS);
      for (let k = 1; k <= CHILD_FLOOD_SIZE; k += 1) {
        this.submitSwarm(
          {
            id: `sw_cflood_${sub.id}_${k}`,
            cls: 'queued',
            source: 'swarm',
            channel: 'swarm',
            agent: child,
            text: `flood ${sub.id} ${k} ${filler}`,
          },
          null,
        );
      }
    }
  }

  /** The crash site fired on `id`: the process dies a drawn while from now (never now: a crash opens its instant). */
  private scheduleSwarmCrash(swarm: Swarm, id: string): void {
    const rng = Rng.derive(swarm.seed, 'swarm', 'crash', 'plan', id);
    const delayMs = rng.range(CRASH_DELAY_MS);
    const restartAfterMs = rng.range(CRASH_RESTART_AFTER_MS);
    this.swarmCrashes += 1;
    this.swarmCrash = { atMs: this.ports.clock.now() + delayMs, restartAfterMs };
  }

  private submitSwarm(sub: Submission, level: number | null): void {
    this.swarmInputs.push({ id: sub.id, declaredClass: sub.cls, declaredLevel: level, submitted: true });
    this.ports.runtime.submit(sub);
  }
}

/** A stop input goes through the kernel even without text: the stop actions still happen. */
function submissionOf(input: ScenarioInput): Submission {
  const base = {
    id: input.id,
    cls: input.class,
    source: input.source,
    channel: input.channel,
    agent: input.agent,
    ...(input.dedup === undefined ? {} : { dedup: input.dedup }),
  } as const;
  if (input.stop) return { ...base, level: input.level, text: input.text ?? '', stop: true };
  return input.level === null ? { ...base, text: input.text } : { ...base, level: input.level, text: input.text };
}

function generatedSubmission(gen: GeneratedInput): Submission {
  const base = { id: gen.id, cls: gen.cls, source: gen.source, channel: gen.source, text: gen.text } as const;
  return gen.level === null ? base : { ...base, level: gen.level };
}

function victimRank(eff: number): { cls: 'queued' | 'interrupt'; level: Level | null; preemptCount: number } {
  // An effective level is enough to rank the victim: 0 is a queued task, 1..4 an interrupt.
  return eff === 0
    ? { cls: 'queued', level: null, preemptCount: 0 }
    : { cls: 'interrupt', level: eff as Level, preemptCount: 0 };
}

function atOf(input: ScenarioInput): number {
  return input.timing.kind === 'at' ? input.timing.at : 0;
}

function minOf(a: number | null, b: number): number {
  return a === null ? b : Math.min(a, b);
}
