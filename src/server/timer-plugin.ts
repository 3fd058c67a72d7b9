/**
 * The timer plugin (docs/spec.md §13): configured reminders that reach the agent as L3 interrupts — "needs
 * timely handling", the level the reference gives clock and timer events — from the source
 * `timer/<name>` on the channel `timer`. A timer fires once, or every `everyMs`; a firing is an
 * ordinary submission, so the kernel's rules apply to it (clamping, de-duplication, backpressure).
 *
 * It runs on the system clock, outside the kernel: the kernel learns of a firing only as the
 * submission it makes, which the journal records like any other.
 */
import type { Clock, TimerId } from '../clock/index.ts';
import type { Submission } from '../kernel/index.ts';
import type { TimerConfig } from './config-schema.ts';
import type { Unavailable } from './http-io.ts';

export const TIMER_CHANNEL = 'timer';

export interface TimerPluginPorts {
  readonly clock: Clock;
  /** Submits one firing; the plugin does not wait for its terminal event. */
  submit(sub: Submission): void;
  nextId(): string;
  /** Why no new input is accepted now, or null: a firing then is skipped (the next one comes as usual). */
  unavailable?(): Unavailable | null;
  /** Told of each firing's outcome, for the log. */
  fired?(name: string, task: string): void;
  /** Told of a firing skipped because no input was accepted. */
  skipped?(name: string, why: Unavailable): void;
}

export class TimerPlugin {
  private readonly handles = new Map<string, TimerId>();
  private stopped = false;

  constructor(
    private readonly timers: readonly TimerConfig[],
    private readonly ports: TimerPluginPorts,
  ) {}

  start(): void {
    for (const timer of this.timers) this.arm(timer, timer.afterMs ?? timer.everyMs ?? 0);
  }

  stop(): void {
    this.stopped = true;
    for (const handle of this.handles.values()) this.ports.clock.clearTimer(handle);
    this.handles.clear();
  }

  private arm(timer: TimerConfig, delayMs: number): void {
    if (this.stopped) return;
    const handle = this.ports.clock.setTimer(delayMs, () => {
      this.handles.delete(timer.name);
      this.fire(timer);
      if (timer.everyMs !== undefined) this.arm(timer, timer.everyMs);
    });
    this.handles.set(timer.name, handle);
  }

  private fire(timer: TimerConfig): void {
    if (this.stopped) return;
    const down = this.ports.unavailable?.() ?? null;
    if (down !== null) {
      this.ports.skipped?.(timer.name, down);
      return;
    }
    const id = this.ports.nextId();
    this.ports.submit({
      id,
      cls: 'interrupt',
      level: 'L3',
      text: timer.text,
      source: `${TIMER_CHANNEL}/${timer.name}`,
      channel: TIMER_CHANNEL,
    });
    this.ports.fired?.(timer.name, id);
  }
}
