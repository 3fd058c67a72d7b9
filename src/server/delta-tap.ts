/**
 * Streamed text per task, observed without touching the kernel: the trace says which task each model
 * call belongs to (`model.start`) and when the call stops being live (`model.end`, `model.cancel`);
 * the door says which text chunks arrive for it (`model.chunk` inputs). A chunk for a call that is no
 * longer live — the kernel discards it — is not a delta of anyone, so a provider that keeps talking
 * after a cancel never reaches a client.
 *
 * The door is tapped before the kernel handles the input, and the trace after, so a chunk's delta is
 * published just before the kernel's reaction to it; the kernel never ends a task while handling a
 * text chunk, so a task's deltas always come before its terminal event.
 */
import type { KernelInput, TraceEvent, TraceSink } from '../kernel/index.ts';

export type DeltaListener = (task: string, text: string) => void;

export class DeltaTap implements TraceSink {
  private readonly live = new Map<string, string>();

  constructor(private readonly onDelta: DeltaListener) {}

  emit(e: TraceEvent): void {
    if (e.type === 'model.start') this.live.set(e.callId, e.task);
    else if (e.type === 'model.end' || e.type === 'model.cancel') this.live.delete(e.callId);
  }

  /** Every input at the door (RuntimeHooks.onInput). */
  input(input: KernelInput): void {
    if (input.type !== 'model.chunk' || input.chunk.type !== 'text') return;
    const task = this.live.get(input.callId);
    if (task !== undefined) this.onDelta(task, input.chunk.text);
  }
}
