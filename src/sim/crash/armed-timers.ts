/**
 * The kernel timers a simulated process has armed (docs/spec.md §13.2): the simulator's account of what
 * the Runtime holds on the clock, kept from the commands each reaction leaves and the `timer.fired`
 * inputs, because a crash takes the Runtime's own table with it while the kernel state that asked for
 * the timers is recovered. At a restart the recovered table is armed again, and what fell due while the
 * process was down fires then, in (time, arming order) — the order the clock would have fired them in.
 */
import type { Command } from '../../kernel/index.ts';

export interface ArmedTimer {
  readonly id: string;
  readonly atMs: number;
  /** Arming order: the tie-break of timers due at the same instant, as on the clock. */
  readonly seq: number;
}

export class ArmedTimers {
  private readonly armed = new Map<string, ArmedTimer>();
  private seq = 0;

  constructor(from: readonly ArmedTimer[] = []) {
    for (const timer of from) {
      this.armed.set(timer.id, timer);
      this.seq = Math.max(this.seq, timer.seq);
    }
  }

  /** The timer commands of one reaction, in order (a set replaces the timer of the same id, as the Runtime does). */
  observe(commands: readonly Command[]): void {
    for (const command of commands) {
      if (command.type === 'timer.set') {
        this.armed.delete(command.id);
        this.seq += 1;
        this.armed.set(command.id, { id: command.id, atMs: command.atMs, seq: this.seq });
      } else if (command.type === 'timer.clear') {
        this.armed.delete(command.id);
      }
    }
  }

  /** The timer fired: the Runtime forgets it before it feeds the firing. */
  fired(id: string): void {
    this.armed.delete(id);
  }

  /** Every armed timer, in the order the clock fires them: by time, then arming order. */
  list(): ArmedTimer[] {
    return [...this.armed.values()].sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
  }
}
