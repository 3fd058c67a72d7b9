/**
 * The run loop of the discrete-event simulator (ARCHITECTURE "Simulator recipe"). Theory of operation:
 *
 * The loop alternates one step and one drain. A step is either the external agenda of an instant —
 * runtime events, inputs due (file order), generated inputs, then the root stop — or exactly one clock
 * timer, agenda first when both are due at the same instant (docs/spec.md §12.2.1). A drain awaits one
 * macrotask, after which Node has run every pending promise reaction: the Runtime and the kernel are
 * quiescent before time moves. The run ends when the root has stopped and no timer remains, when the
 * kernel fails (FATAL) or a promise rejection goes unhandled, or at once when a `limits` bound is
 * reached (LIMIT). Under `--swarm`, one T_task after the agenda's last injection the faults heal and
 * the liveness watch (liveness.ts) gives every task a deadline; pending work past it ends the run at
 * once with the verdict LIVENESS.
 *
 * Before the trace closes, the end-of-run checks add what only the end can show (timers, stream
 * consumers and tool calls left running, provider streams left open, a drain that left work behind);
 * then the run hands its record to report/finalize.ts. Wall time is measured for the report only.
 */
import type { TraceEvent, Violation } from '../kernel/index.ts';
import { Drain } from './drain.ts';
import { LivenessWatch } from './liveness.ts';
import { durableViolations } from './crash/durable.ts';
import type { RunRecord } from './report/index.ts';
import { SimWorld, type SimOptions } from './world.ts';
import type { Scenario } from './scenario/index.ts';

/** Runs one scenario to its end in a world of its own and returns what the report is made of. */
export async function runToEnd(scenario: Scenario, opts: SimOptions): Promise<RunRecord> {
  return new SimulationRun(new SimWorld(scenario, opts), opts).execute();
}

class SimulationRun {
  private readonly extraViolations: Violation[] = [];
  private unhandled: unknown = null;
  /** The run was ended by one of its `limits`: what it left running is not a RUNTIME finding. */
  private limited = false;
  private readonly liveness: LivenessWatch | null;
  /** When the faults of a `--swarm` run heal; null until the agenda has nothing more to inject. */
  private healDueAtMs: number | null = null;

  constructor(
    private readonly world: SimWorld,
    private readonly opts: SimOptions,
  ) {
    this.liveness = world.swarm === null ? null : new LivenessWatch(world.scenario, world.config);
  }

  async execute(): Promise<RunRecord> {
    // The kernel is read from the world at each use: a snapshot cut replaces it mid-run.
    const { clock, runtime, agenda } = this.world;
    const wallStart = performance.now();
    const onUnhandled = (reason: unknown): void => {
      if (this.unhandled === null) this.unhandled = reason;
    };
    process.on('unhandledRejection', onUnhandled);
    const drain = new Drain();
    try {
      agenda.setUpAtZero();
      this.world.process?.started();
      await drain.run(this.opts.checkDrain === true, () => this.progress());
      for (;;) {
        if (runtime.fatal() !== null || this.unhandled !== null) break;
        agenda.checkVictim();
        const agendaAt = agenda.nextAt();
        const timerAt = clock.nextAtMs();
        const limit = this.limitReached(agendaAt, timerAt);
        if (limit !== null) {
          await this.endAtLimit(limit, drain);
          break;
        }
        const late = this.livenessBroken(agendaAt, timerAt);
        if (late !== null) {
          await this.endAtLimit(late, drain, 'LIVENESS');
          break;
        }
        if (agenda.defaultStopDue(agendaAt, timerAt)) {
          agenda.stopRoot();
        } else if (agendaAt === null && timerAt === null) {
          if (this.world.kernel.isStopped()) break;
          if (this.world.kernel.hasPendingWork()) {
            // Nothing is scheduled and nothing can wake the pending tasks: the kernel is stuck (a lost
            // fact, a timer never asked for). Stopping the root would end them quietly as
            // agent_stopped and exempt the agent from DRAIN, so the stall is its own verdict.
            await this.endAtLimit('a stall (nothing scheduled while tasks are pending)', drain, 'LIVENESS');
            break;
          }
          runtime.stop();
        } else if (agendaAt !== null && (timerAt === null || agendaAt <= timerAt)) {
          clock.advanceTo(Math.max(agendaAt, clock.now()));
          agenda.runDue();
        } else {
          clock.runNext();
        }
        await drain.run(this.opts.checkDrain === true, () => this.progress());
      }
      // Before the trace closes: the end-of-run violations are traced too.
      this.endOfRunChecks(drain);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      drain.close();
      this.world.close();
    }
    return this.record(performance.now() - wallStart);
  }

  /**
   * docs/spec.md §12.2 `limits`: the run may emit `maxEvents` trace events and reach `maxVirtualMs`; a
   * runaway scenario (an endless tool loop, say) must end in seconds, not run for minutes.
   */
  private limitReached(agendaAt: number | null, timerAt: number | null): string | null {
    const limits = this.world.scenario.limits;
    if (this.world.events.length > limits.maxEvents) return `limits.maxEvents ${limits.maxEvents}`;
    const next = agendaAt === null ? timerAt : timerAt === null ? agendaAt : Math.min(agendaAt, timerAt);
    if (next !== null && next > limits.maxVirtualMs) return `limits.maxVirtualMs ${limits.maxVirtualMs}`;
    return null;
  }

  /**
   * Under `--swarm`: heals the faults one T_task after the agenda's last injection (liveness.ts), then
   * says when the next step would pass the liveness deadline while work is still pending.
   */
  private livenessBroken(agendaAt: number | null, timerAt: number | null): string | null {
    const watch = this.liveness;
    const { swarm, clock, kernel, events } = this.world;
    if (watch === null || swarm === null) return null;
    if (agendaAt === null && this.healDueAtMs === null) this.healDueAtMs = watch.healDueAtMs(clock.now());
    const next = agendaAt === null ? timerAt : timerAt === null ? agendaAt : Math.min(agendaAt, timerAt);
    if (!watch.healed && this.healDueAtMs !== null && (next === null || next >= this.healDueAtMs)) {
      swarm.heal();
      watch.heal(Math.max(clock.now(), Math.min(next ?? clock.now(), this.healDueAtMs)), events);
    }
    const deadline = watch.deadlineMs(events);
    if (deadline === null || next === null || next <= deadline || !kernel.hasPendingWork()) return null;
    return `the liveness bound: the faults healed and every task had to end by t=${deadline}ms (see src/sim/liveness.ts)`;
  }

  /**
   * Ends the run at once: the root is stopped (every pending task ends skipped/agent_stopped, so the
   * `agent.stop` event names them) and the timers still due are never run. A LIVENESS violation points
   * at the last event before the stop, so its trace window (report/build.ts) shows the run as it was
   * when it was cut.
   */
  private async endAtLimit(limit: string, drain: Drain, invariant: 'LIMIT' | 'LIVENESS' = 'LIMIT'): Promise<void> {
    const { clock, kernel, runtime, events, process } = this.world;
    this.limited = true;
    const t = clock.now();
    const cutSeq = events[events.length - 1]?.seq ?? 0;
    // A process that is down has nothing running to stop.
    if (!kernel.isStopped() && process?.isDown !== true) {
      runtime.stop();
      await drain.run(false, () => this.progress());
    }
    let pending: readonly string[] = [];
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const e = events[i] as TraceEvent;
      if (e.type === 'agent.stop' && e.agent === 'root') {
        pending = e.ended;
        break;
      }
    }
    const named =
      pending.length > 10 ? `${pending.slice(0, 10).join(', ')} and ${pending.length - 10} more` : pending.join(', ');
    this.extraViolations.push({
      invariant,
      t,
      seq: invariant === 'LIVENESS' ? cutSeq : events.length,
      agent: 'root',
      message:
        `the run reached ${limit} at t=${t}ms after ${events.length} events and was ended; ` +
        `${pending.length} task(s) still pending${pending.length > 0 ? `: ${named}` : ''}`,
    });
  }

  /** What a drain's check round compares: any new trace event or clock timer counts as movement. */
  private progress(): number {
    return this.world.events.length * 1_000_003 + this.world.clock.pendingCount();
  }

  private endOfRunChecks(drain: Drain): void {
    const { clock, runtime, provider, monitor, events } = this.world;
    const t = clock.now();
    const add = (invariant: string, message: string): void => {
      this.extraViolations.push({ invariant, t, seq: events.length, agent: 'root', message });
    };
    const fatal = runtime.fatal();
    if (fatal !== null) add('FATAL', `kernel error at t=${t}ms: ${errorText(fatal)}`);
    if (this.unhandled !== null) add('UNHANDLED', `unhandled rejection at t=${t}ms: ${errorText(this.unhandled)}`);
    if (drain.moved > 0) add('DRAINCHECK', `${drain.moved} drain(s) left work behind for a second macrotask round`);
    if (fatal === null && !this.limited) {
      const activity = runtime.activity();
      if (clock.pendingCount() > 0) add('RUNTIME', `${clock.pendingCount()} timer(s) still pending`);
      if (activity.streams > 0 || activity.tools > 0) {
        add('RUNTIME', `${activity.streams} stream consumer(s) and ${activity.tools} tool call(s) still active`);
      }
      const stats = provider.stats();
      if (stats.opened !== stats.closed)
        add('RUNTIME', `provider streams opened ${stats.opened} != closed ${stats.closed}`);
    }
    const stores = this.world.childStoresLeft();
    if (fatal === null && stores.length > 0)
      add('CHILD', `temp memory of ${stores.join(', ')} still exists after the run: temp memory goes with its child`);
    monitor.finish({ drained: fatal === null && this.unhandled === null, stoppedAgents: [] }, t);
    const process = this.world.process;
    if (process !== null) {
      this.extraViolations.push(...this.world.lostViolations);
      const drained = fatal === null && this.unhandled === null && !this.limited;
      this.extraViolations.push(...durableViolations(events, process.crashes, drained));
    }
  }

  private record(wallMs: number): RunRecord {
    const { scenario, seed, events, kernel, hasher, monitor, triggers, agenda, swarm, process } = this.world;
    if (process !== null) agenda.loseDependents(process);
    return {
      scenario: scenario.name,
      seed,
      command: this.opts.command ?? `npx homeagent sim run <scenario> --seed ${seed}`,
      config: this.effectiveConfig(),
      events,
      dump: kernel.dump(),
      traceHash: hasher.digest(),
      wallMs: Math.round(wallMs * 1000) / 1000,
      violations: [...monitor.violations, ...this.extraViolations],
      inputsMeta: agenda.inputsMeta(),
      triggers: triggers.states.map((s) => ({ input: s.input, fired: s.fired, t: s.t })),
      expect: scenario.expect,
      // A lost input was never acknowledged (docs/spec.md §12.2 `crash`): its trigger is owed nothing either.
      unfiredTriggers: triggers.unfired().filter((id) => process?.isLost(id) !== true),
      swarm: swarm === null ? null : { sites: [...swarm.active] },
      responseBound: monitor.responseBound(),
      crash:
        process === null || process.crashes.length === 0
          ? null
          : { crashes: [...process.crashes], lost: [...process.lost] },
    };
  }

  /** The report's `config`: the effective settings of the run, after defaults (the tools are listed once, under `tools`). */
  private effectiveConfig(): unknown {
    const { scenario, seed, config, process } = this.world;
    const { tools: _tools, ...kernel } = config;
    return {
      seed,
      kernel,
      builtinPlugins: scenario.builtinPlugins,
      model: scenario.model,
      tools: scenario.tools,
      faults: scenario.faults,
      generate: scenario.generate ?? null,
      stopAt: scenario.stopAt ?? null,
      ...(process === null ? {} : { journal: scenario.journal }),
      shuffleTies: this.opts.shuffleTies === true,
    };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
