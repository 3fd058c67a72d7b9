/**
 * The simulator's fake tools (docs/spec.md §12.2 `tools` and `faults`).
 *
 * Theory of operation
 * -------------------
 * Timer-first (ARCHITECTURE "Simulator recipe" rule 3): `run()` draws its duration and fault coins
 * from an RNG derived for this very call, `seed|tool|agent|task|name|n` with n counting the calls of
 * that tool by that task, and sets its one clock timer synchronously, inside the promise executor.
 * The timer settles the promise: a result, a tool error (`ok: false`, data), or a rejection (a panic
 * of the calling task, docs/spec.md §3.8).
 *
 * Documented choices:
 * - Draw order: duration, the panic coin, the fail coin (both coins always drawn). A panic (the
 *   tool's `panics` or the injected one) wins over a failure.
 * - An unknown tool (not an own key of `tools`) answers `unknown tool <name>` through a 0 ms timer
 *   and draws nothing.
 * - Under `--swarm` (swarm.ts) the sites tool-panic and tool-fail add to the injected coins and
 *   tool-hang stretches the duration; their coins come from swarm streams, after the call's own.
 * - `ctx.deadlineMs` is not enforced here: the kernel's Runtime aborts the call through `ctx.signal`.
 * - On abort the timer is cleared and the promise rejects with an AbortError; the abort listener is
 *   removed whenever the call settles, so a long-lived signal never accumulates listeners.
 */
import type { Clock, TimerId } from '../../clock/index.ts';
import type { ToolCall, ToolContext, ToolResult, ToolRunner, ToolSpec } from '../../kernel/index.ts';
import { Rng, type Range } from '../rng.ts';
import { settleAfter, type FakeOutcome } from './settle-after.ts';
import { HANG_FACTOR, HANG_MIN_MS, type FaultSite, type Swarm } from '../swarm.ts';

export interface FakeToolDef {
  readonly durationMs: Range;
  readonly result: string;
  readonly fails: boolean;
  readonly panics: boolean;
  readonly parallelSafe: boolean;
}

export interface FakeToolFaults {
  readonly toolPanicRate: number;
  readonly toolFailRate: number;
}

export interface FakeToolRunnerOptions {
  readonly clock: Clock;
  readonly seed: number;
  readonly tools: Readonly<Record<string, FakeToolDef>>;
  readonly faults: FakeToolFaults;
  /** The run's fault swarm (`--swarm`), else null. */
  readonly swarm?: Swarm | null;
}

export class FakeToolRunner implements ToolRunner {
  private readonly calls = new Map<string, number>();
  private readonly timers = new Set<TimerId>();

  constructor(private readonly opts: FakeToolRunnerOptions) {}

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const { delayMs, outcome } = this.plan(call, ctx);
    const { clock } = this.opts;
    return settleAfter(clock, delayMs, ctx.signal, outcome, this.timers);
  }

  /** Clock timers of calls still running. */
  liveTimers(): number {
    return this.timers.size;
  }

  private plan(call: ToolCall, ctx: ToolContext): { delayMs: number; outcome: FakeOutcome } {
    const { tools, faults, seed } = this.opts;
    const def = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
    if (def === undefined) {
      return { delayMs: 0, outcome: { kind: 'result', result: { ok: false, output: `unknown tool ${call.name}` } } };
    }
    const key = `${ctx.agent}\u0000${ctx.task}\u0000${call.name}`;
    const n = this.calls.get(key) ?? 0;
    this.calls.set(key, n + 1);
    const rng = Rng.derive(seed, 'tool', ctx.agent, ctx.task, call.name, n);
    const drawnMs = rng.range(def.durationMs);
    const ownPanic = rng.chance(faults.toolPanicRate);
    const ownFail = rng.chance(faults.toolFailRate);
    const swarm = this.opts.swarm ?? null;
    const fires = (site: FaultSite): boolean => swarm !== null && swarm.fires(site, ctx.agent, ctx.task, call.name, n);
    const delayMs = fires('tool-hang') ? Math.max(HANG_MIN_MS, drawnMs * HANG_FACTOR) : drawnMs;
    const injectedPanic = ownPanic || fires('tool-panic');
    const injectedFail = ownFail || fires('tool-fail');
    if (def.panics || injectedPanic) {
      return { delayMs, outcome: { kind: 'panic', error: new Error(`${call.name} panicked`) } };
    }
    if (def.fails || injectedFail) {
      return { delayMs, outcome: { kind: 'result', result: { ok: false, output: `${call.name} failed` } } };
    }
    return { delayMs, outcome: { kind: 'result', result: { ok: true, output: def.result } } };
  }
}

/** What the model is told about the scenario's tools, sorted by name so the order is deterministic. */
export function toolSpecs(tools: Readonly<Record<string, FakeToolDef>>): ToolSpec[] {
  const names = Object.keys(tools).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const specs: ToolSpec[] = [];
  for (const name of names) {
    const def = tools[name];
    if (def === undefined) continue;
    specs.push({
      name,
      description: `scenario tool ${name}`,
      parameters: { type: 'object' },
      parallelSafe: def.parallelSafe,
    });
  }
  return specs;
}
