/**
 * Streamed text per task, observed without touching the kernel: the trace says which task each model
 * call belongs to (`model.start`) and when the call stops being live (`model.end`, `model.cancel`);
 * the door says which text chunks arrive for it (`model.chunk` inputs). A chunk for a call that is no
 * longer live — the kernel discards it — is not a delta of anyone, so a provider that keeps talking
 * after a cancel never reaches a client.
 *
 * Streamed text is the answer (docs/spec.md §13.1a): when the text streamed so far for a task stops
 * being its answer, the tap says so with a reset — `preempted` or `cancelled` when a call that had
 * streamed text is cancelled, `new-turn` when a task whose earlier call streamed text starts another
 * (after tool calls, or after an overflow sent it back to Prepare). A task that streamed nothing since
 * its last reset gets none.
 *
 * The door is tapped before the kernel handles the input, and the trace after, so a chunk's delta is
 * published just before the kernel's reaction to it; the kernel never ends a task while handling a
 * text chunk, so a task's deltas always come before its terminal event.
 */
import type { KernelInput, TraceEvent, TraceSink } from '../kernel/index.ts';

export type ResetReason = 'preempted' | 'cancelled' | 'restart' | 'new-turn';

export interface DeltaListener {
  delta(task: string, text: string): void;
  reset(task: string, reason: ResetReason): void;
}

export interface DeltaTapSnapshot {
  readonly live: readonly (readonly [string, string])[];
  readonly streamed: readonly string[];
}

export class DeltaTap implements TraceSink {
  /** Live call → its task. */
  private readonly live = new Map<string, string>();
  /** Tasks that streamed text since their last reset (forgotten at their terminal). */
  private readonly streamed = new Set<string>();

  constructor(private readonly listener: DeltaListener) {}

  emit(e: TraceEvent): void {
    switch (e.type) {
      case 'model.start':
        this.live.set(e.callId, e.task);
        this.reset(e.task, 'new-turn');
        break;
      case 'model.cancel':
        this.live.delete(e.callId);
        this.reset(e.task, e.reason === 'preempt' ? 'preempted' : e.reason === 'restart' ? 'restart' : 'cancelled');
        break;
      case 'model.end':
        this.live.delete(e.callId);
        break;
      case 'task.terminal':
        this.streamed.delete(e.task);
        break;
      default:
        break;
    }
  }

  /** Which call is whose, and which tasks streamed since their reset (a durable server's snapshot). */
  snapshot(): DeltaTapSnapshot {
    return { live: [...this.live], streamed: [...this.streamed] };
  }

  restore(snapshot: DeltaTapSnapshot): void {
    for (const [call, task] of snapshot.live) this.live.set(call, task);
    for (const task of snapshot.streamed) this.streamed.add(task);
  }

  /** Every input at the door (RuntimeHooks.onInput). */
  input(input: KernelInput): void {
    if (input.type !== 'model.chunk' || input.chunk.type !== 'text' || input.chunk.text === '') return;
    const task = this.live.get(input.callId);
    if (task === undefined) return;
    this.streamed.add(task);
    this.listener.delta(task, input.chunk.text);
  }

  private reset(task: string, reason: ResetReason): void {
    if (this.streamed.delete(task)) this.listener.reset(task, reason);
  }
}
