/**
 * The trigger engine (docs/spec.md §12.2.1). `when` triggers fire once, at the first `step.begin` of their
 * task and step, plus `afterMs`: the submission is scheduled as a clock timer, so nothing re-enters
 * the kernel from the trace sink. `afterTerminal` inputs are handed to the kernel in advance, as
 * `submit.after` inputs of its door, and the kernel submits each in the reaction that ends its task,
 * before the next pick; the engine only watches that terminal event to report the trigger fired.
 */
import type { Clock } from '../../clock/index.ts';
import type { TraceEvent } from '../../kernel/index.ts';
import type { ScenarioInput } from '../scenario/index.ts';

export interface TriggerState {
  readonly input: string;
  fired: boolean;
  t: number | null;
}

export class TriggerEngine {
  /** `when` triggers by `${task}\u0000${step}`, in file order. */
  private readonly whenByKey = new Map<string, ScenarioInput[]>();
  /** `afterTerminal` inputs by the task they wait for, in file order. */
  private readonly afterByTask = new Map<string, ScenarioInput[]>();
  /** Every `afterTerminal` input by id (a crash may arm one again). */
  private readonly afterInputs = new Map<string, ScenarioInput>();
  readonly states: TriggerState[] = [];
  private readonly stateOf = new Map<string, TriggerState>();
  /** `when` submissions fired but still waiting for their timer. */
  private scheduled = 0;

  constructor(
    inputs: readonly ScenarioInput[],
    private readonly clock: Clock,
    /** Submits one input now (outside any kernel reaction). */
    private readonly inject: (input: ScenarioInput) => void,
    /** An `afterTerminal` input was just submitted by the kernel. */
    private readonly afterFired: (input: ScenarioInput) => void,
  ) {
    for (const input of inputs) {
      const timing = input.timing;
      if (timing.kind === 'at') continue;
      const state: TriggerState = { input: input.id, fired: false, t: null };
      this.states.push(state);
      this.stateOf.set(input.id, state);
      if (timing.kind === 'when') push(this.whenByKey, `${timing.task}\u0000${timing.step}`, input);
      else {
        push(this.afterByTask, timing.task, input);
        this.afterInputs.set(input.id, input);
      }
    }
  }

  /** The `afterTerminal` inputs, in file order, with the task each waits for. */
  afterTerminalInputs(): { readonly task: string; readonly input: ScenarioInput }[] {
    const out: { task: string; input: ScenarioInput }[] = [];
    for (const [task, inputs] of this.afterByTask) for (const input of inputs) out.push({ task, input });
    return out;
  }

  /** Watches the trace for `step.begin` events that arm `when` triggers and for releasing terminals. */
  observe(e: TraceEvent): void {
    if (e.type === 'task.terminal') {
      if (this.afterByTask.size > 0) this.onTerminal(e.task, e.t);
      return;
    }
    if (e.type !== 'step.begin' || this.whenByKey.size === 0) return;
    const key = `${e.task}\u0000${e.step}`;
    const due = this.whenByKey.get(key);
    if (due === undefined) return;
    this.whenByKey.delete(key);
    for (const input of due) {
      const afterMs = input.timing.kind === 'when' ? input.timing.afterMs : 0;
      const state = this.stateOf.get(input.id) as TriggerState;
      state.fired = true;
      state.t = e.t + afterMs;
      this.scheduled += 1;
      this.clock.setTimer(afterMs, () => {
        this.scheduled -= 1;
        this.inject(input);
      });
    }
  }

  /** The kernel submits the inputs waiting for this task in this reaction: they fired. */
  private onTerminal(task: string, nowMs: number): void {
    const due = this.afterByTask.get(task);
    if (due === undefined) return;
    this.afterByTask.delete(task);
    for (const input of due) {
      const state = this.stateOf.get(input.id) as TriggerState;
      state.fired = true;
      state.t = nowMs;
      this.afterFired(input);
    }
  }

  /**
   * `afterTerminal` inputs whose submission a crash lost (docs/spec.md §12.2 `crash`): the recovered
   * kernel still holds them and submits them when their task ends again, so they wait to fire again.
   */
  rearm(ids: readonly string[]): void {
    for (const id of ids) {
      const input = this.afterInputs.get(id);
      const state = this.stateOf.get(id);
      if (input === undefined || state === undefined || input.timing.kind !== 'afterTerminal') continue;
      state.fired = false;
      state.t = null;
      push(this.afterByTask, input.timing.task, input);
    }
  }

  /** True while a fired `when` trigger's submission waits for its timer: work is still to come. */
  hasScheduled(): boolean {
    return this.scheduled > 0;
  }

  unfired(): string[] {
    return this.states.filter((s) => !s.fired).map((s) => s.input);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
