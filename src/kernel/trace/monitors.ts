/**
 * Invariant monitors over the trace (docs/spec.md §6). Theory of operation:
 *
 * The monitor is an independent observer: it reconstructs, from trace events alone, what each agent
 * is doing (the running task, the suspend stack, the open step, the critical section, the pending
 * tasks) and checks every event against the invariants. It never reads kernel objects, so a bug in
 * the scheduler's own bookkeeping cannot hide from it; for the same reason it restates the effective
 * level rule and the stack bound instead of importing them.
 *
 * It is used by the simulator, the properties and production, so it is synchronous, does no I/O and
 * never reads the clock: `t` comes from the events. Each event costs O(1) amortized (the stack is at
 * most a handful of entries deep); `finish` is O(agents + pending tasks).
 *
 * Violations are data, not exceptions: production logs and counts them, the simulator reports them.
 * Each (invariant, agent, task) is recorded once, so a broken state does not flood the report.
 *
 * Checked online: I1, I2, I4, I5, STACK, LIFO, STRICT, QUEUED, L4 (on a child: only its parent's
 * control plane raises L4), BALANCE (a task moved out of a stopping child is re-submitted on its
 * parent, once), CHILD (a parent stops only after its children; a stopped agent starts, resumes or
 * steps nothing and arms no preemption). At `finish`: I5 (every task has its terminal), DRAIN and
 * BALANCE (nothing pending on a drained agent that was not stopped). Temp files that outlive a child
 * are checked where the files are, by the simulator.
 */
import { assertNever } from '../assert.ts';
import type { Level, TaskClass } from '../scheduler/levels.ts';
import type { TerminalReason, TraceEvent } from './vocabulary.ts';

export type InvariantName =
  'I1' | 'I2' | 'I4' | 'I5' | 'STACK' | 'LIFO' | 'STRICT' | 'QUEUED' | 'L4' | 'DRAIN' | 'BALANCE' | 'CHILD';

export interface Violation {
  readonly invariant: string;
  readonly t: number;
  /** The event that revealed it (for `finish`: the last event observed, 0 if none). */
  readonly seq: number;
  readonly agent: string;
  readonly task?: string;
  readonly message: string;
}

export interface MonitorOptions {
  /** Plugin names whose sources are kernel-level (may raise L4) on the root (docs/spec.md §5). */
  readonly builtinPlugins: readonly string[];
  /** The root agent's id; every other agent is a child. Default "root". */
  readonly rootAgent?: string;
}

export interface MonitorFinal {
  /** The run ended because all work drained (not cut off). */
  readonly drained: boolean;
  /** Agents stopped during the run (docs/spec.md §10.2a); `agent.stop` events are added to these. */
  readonly stoppedAgents: readonly string[];
}

/**
 * The stack bound and the starvation boost cap, restated from docs/spec.md §2.6 and §2.7 rather than
 * imported: the monitor is an oracle and must not share a bug with the code it checks.
 */
const STACK_DEPTH_LIMIT = 4;
const BOOST_LIMIT = 2;
const TOP_LEVEL = 4;
/** Task ids named in one finish-time message; the rest are counted. */
const NAMED_IDS_MAX = 10;

/** What a stopped agent never emits again (CHILD): nothing of it runs, and no timer of it arms anything. */
const AFTER_STOP_FORBIDDEN: ReadonlySet<TraceEvent['type']> = new Set([
  'task.start',
  'task.resume',
  'step.begin',
  'model.start',
  'tool.start',
  'preempt.armed',
  'cooldown.timer',
] as const);

/** Terminal reasons that legitimately end a suspended task: its agent is going away. */
const STOP_REASONS: ReadonlySet<TerminalReason | null> = new Set([
  'agent_stopped',
  'residual_dropped_by_parent',
] as const);

interface TaskTrack {
  readonly agent: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  /** Number of `task.suspend` events of this task so far. */
  preemptCount: number;
  ended: boolean;
  /** Left a stopping child without a terminal (`task.moved`); its next submission is on `movedTo`. */
  movedTo?: string;
}

interface Frame {
  readonly task: string;
  /** Effective level at suspension, before the preempt count was incremented. */
  readonly eff: number;
}

interface AgentTrack {
  running: string | null;
  /** Bottom to top. */
  readonly stack: Frame[];
  /** The step between `step.begin` and `step.end`, if any. */
  openStep: { readonly task: string; readonly step: string } | null;
  critical: boolean;
  /** Submitted here, no terminal yet. */
  readonly pending: Set<string>;
  submitted: number;
  terminals: number;
  suspends: number;
  resumes: number;
  stopped: boolean;
}

export class InvariantMonitor {
  private readonly found: Violation[] = [];
  private readonly seen = new Set<string>();
  private readonly builtin: ReadonlySet<string>;
  private readonly rootAgent: string;
  private readonly tasks = new Map<string, TaskTrack>();
  private readonly agents = new Map<string, AgentTrack>();
  /** Each child's parent, from `child.create`. */
  private readonly parentOf = new Map<string, string>();
  /** Tasks moved off an agent (`task.moved`) and not yet submitted where they went, with their target. */
  private readonly inTransit = new Map<string, string>();
  private lastT = 0;
  private lastSeq = 0;

  constructor(opts: MonitorOptions) {
    this.builtin = new Set(opts.builtinPlugins);
    this.rootAgent = opts.rootAgent ?? 'root';
  }

  get violations(): readonly Violation[] {
    return this.found;
  }

  /** Everything the monitor has learned, as plain JSON data (a durable server's snapshot, docs/spec.md §13.2). */
  snapshot(): MonitorSnapshot {
    return structuredClone({
      found: this.found,
      seen: [...this.seen],
      tasks: [...this.tasks],
      agents: [...this.agents].map(([id, a]) => [id, { ...a, pending: [...a.pending] }] as const),
      parentOf: [...this.parentOf],
      inTransit: [...this.inTransit],
      lastT: this.lastT,
      lastSeq: this.lastSeq,
    });
  }

  /** Takes over a snapshot's state; this monitor was just made with the same options. */
  restore(snapshot: MonitorSnapshot): void {
    const s = structuredClone(snapshot);
    this.found.splice(0, this.found.length, ...s.found);
    fill(this.seen, s.seen);
    fillMap(this.tasks, s.tasks);
    fillMap(
      this.agents,
      s.agents.map(([id, a]) => [id, { ...a, stack: [...a.stack], pending: new Set(a.pending) }] as const),
    );
    fillMap(this.parentOf, s.parentOf);
    fillMap(this.inTransit, s.inTransit);
    this.lastT = s.lastT;
    this.lastSeq = s.lastSeq;
  }

  observe(e: TraceEvent): void {
    this.lastT = e.t;
    this.lastSeq = e.seq;
    if (AFTER_STOP_FORBIDDEN.has(e.type) && this.agents.get(e.agent)?.stopped === true) {
      this.violate(
        'CHILD',
        e,
        'task' in e ? String(e.task) : undefined,
        `${e.type} on ${e.agent} after it stopped: nothing of a stopped agent may run`,
      );
    }
    switch (e.type) {
      case 'task.submitted':
        this.onSubmitted(e);
        return;
      case 'interrupt.registered': {
        const task = this.tasks.get(e.task);
        if (task?.cls === 'queued')
          this.violate('QUEUED', e, e.task, `queued task ${e.task} was registered as an interrupt`);
        return;
      }
      case 'preempt.armed':
        this.onArmed(e);
        return;
      case 'task.start':
        this.onStart(e);
        return;
      case 'task.suspend':
        this.onSuspend(e);
        return;
      case 'task.resume':
        this.onResume(e);
        return;
      case 'critical.enter':
        this.agent(e.agent).critical = true;
        return;
      case 'critical.leave':
        this.agent(e.agent).critical = false;
        return;
      case 'task.terminal':
        this.onTerminal(e);
        return;
      case 'step.begin': {
        this.requireRunning(e, 'step.begin');
        this.agent(e.agent).openStep = { task: e.task, step: e.step };
        return;
      }
      case 'step.end': {
        this.requireRunning(e, 'step.end');
        const ag = this.agent(e.agent);
        if (ag.openStep?.task === e.task) ag.openStep = null;
        return;
      }
      case 'model.start':
      case 'tool.start':
        this.requireRunning(e, e.type);
        return;
      case 'agent.stop':
        // The event names the stopped agent in `agent`; `ended` lists task ids, never agents.
        this.onAgentStop(e);
        return;
      case 'child.create':
        this.parentOf.set(e.agent, e.parent);
        return;
      case 'task.moved':
        this.onMoved(e);
        return;
      case 'child.destroy':
      case 'child.reclaim':
      case 'child.send':
      case 'child.notify':
      case 'child.event':
      case 'child.contextfull':
      case 'child.compress':
      case 'child.record':
      case 'task.rejected':
      case 'backpressure':
      case 'preempt.deferred':
      case 'queue.drop':
      case 'cooldown.timer':
      case 'stop':
      case 'model.end':
      case 'model.cancel':
      case 'model.chunk.late':
      case 'tool.end':
      case 'tool.result.late':
      case 'fact.discarded':
      case 'route.fallback':
      case 'channel.register':
      case 'channel.unregister':
      case 'tools.set':
      case 'output.sent':
      case 'memory.commit':
      case 'memory.consolidate':
      case 'context.commit':
      case 'context.overflow':
      case 'kernel.event':
      case 'invariant.violation':
        return;
      // Stryker disable next-line ConditionalExpression: unreachable, the cases above cover every event type
      default:
        // Stryker disable next-line StringLiteral: unreachable, the cases above cover every event type
        assertNever(e, 'trace event');
    }
  }

  /**
   * End-of-run checks. I5 holds whatever the run's end: every submitted task has its terminal (a
   * stopped agent ends its tasks too). DRAIN and the final BALANCE apply only to a drained run, per
   * agent, unless that agent was stopped.
   */
  finish(final: MonitorFinal): void {
    // A task that left an agent and never arrived where it went has no terminal event anywhere.
    for (const [task, to] of this.inTransit) {
      this.violateAt(
        'I5',
        to,
        task,
        `task ${task} moved to ${to} but was never submitted there: it has no terminal event`,
      );
    }
    const stopped = new Set(final.stoppedAgents);
    for (const [id, ag] of this.agents) {
      if (ag.stopped) stopped.add(id);
    }
    for (const [id, ag] of this.agents) {
      if (ag.pending.size > 0) {
        const first = ag.pending.values().next().value;
        this.violateAt(
          'I5',
          id,
          first,
          `${ag.pending.size} task(s) on ${id} never got a terminal event: ${names(ag.pending)}`,
        );
      }
      if (!final.drained || stopped.has(id)) continue;
      const frames = ag.suspends - ag.resumes;
      if (frames !== 0 || ag.pending.size > 0 || ag.stack.length > 0) {
        this.violateAt(
          'DRAIN',
          id,
          undefined,
          `${id} drained with suspended ${ag.suspends} != resumed ${ag.resumes} or work pending ` +
            `(pending ${ag.pending.size}, stack [${ag.stack.map((f) => f.task).join(', ')}])`,
        );
      }
      if (ag.pending.size > 0) {
        this.violateAt(
          'BALANCE',
          id,
          undefined,
          `${id} drained with submitted ${ag.submitted} != terminals ${ag.terminals}: pending ${names(ag.pending)}`,
        );
      }
    }
  }

  // ---------------------------------------------------------------- handlers

  private onSubmitted(e: Extract<TraceEvent, { type: 'task.submitted' }>): void {
    const previous = this.tasks.get(e.task);
    const moved =
      previous !== undefined && previous.movedTo === e.agent && !previous.ended && this.inTransit.delete(e.task);
    if (previous !== undefined && !moved) {
      const state = previous.ended ? 'already ended' : `still pending on ${previous.agent}`;
      this.violate('I5', e, e.task, `task ${e.task} submitted again on ${e.agent} (${state}): one task, one terminal`);
    }
    const child = this.parentOf.has(e.agent);
    if (e.level === TOP_LEVEL && child && e.source?.startsWith('parent/') !== true) {
      this.violate(
        'L4',
        e,
        e.task,
        `task ${e.task} got L4 on child ${e.agent} from ${String(e.source)}: only its parent raises L4 on a child`,
      );
    } else if (e.level === TOP_LEVEL && !e.kernel && !this.isKernelLevelSource(e.agent, e.source)) {
      this.violate(
        'L4',
        e,
        e.task,
        `task ${e.task} got L4 on ${e.agent} from source ${String(e.source)}, which is neither the kernel, ` +
          `a built-in plugin on the root, nor the parent of a child`,
      );
    }
    this.tasks.set(e.task, { agent: e.agent, cls: e.class, level: e.level, preemptCount: 0, ended: false });
    const ag = this.agent(e.agent);
    ag.submitted += 1;
    ag.pending.add(e.task);
  }

  private onMoved(e: Extract<TraceEvent, { type: 'task.moved' }>): void {
    const task = this.tasks.get(e.task);
    const ag = this.agent(e.agent);
    if (task === undefined || task.ended || !ag.pending.delete(e.task)) {
      this.violate(
        'BALANCE',
        e,
        e.task,
        `${e.task} moved from ${e.agent} to ${e.to}, but it is not a pending task of ${e.agent}`,
      );
      return;
    }
    task.movedTo = e.to;
    this.inTransit.set(e.task, e.to);
  }

  /** CHILD: children stop first (docs/spec.md §10.2a); a parent that stops while a child still runs leaves an orphan. */
  private onAgentStop(e: Extract<TraceEvent, { type: 'agent.stop' }>): void {
    this.agent(e.agent).stopped = true;
    for (const [child, parent] of this.parentOf) {
      if (parent === e.agent && this.agents.get(child)?.stopped !== true) {
        this.violate(
          'CHILD',
          e,
          undefined,
          `${e.agent} stopped while its child ${child} was still running: no child outlives its parent`,
        );
      }
    }
  }

  private onArmed(e: Extract<TraceEvent, { type: 'preempt.armed' }>): void {
    const incoming = this.tasks.get(e.task);
    const victim = this.tasks.get(e.victim);
    if (incoming?.cls === 'queued') {
      this.violate('QUEUED', e, e.task, `queued task ${e.task} armed a preemption of ${e.victim}`);
      return;
    }
    this.checkStrict(e, 'armed against', e.task, incoming, e.victim, victim);
  }

  private onStart(e: Extract<TraceEvent, { type: 'task.start' }>): void {
    const ag = this.agent(e.agent);
    if (ag.running !== null) {
      this.violate('I1', e, e.task, `${e.task} started on ${e.agent} while ${ag.running} is running`);
    }
    if (!ag.pending.has(e.task)) {
      this.violate('BALANCE', e, e.task, `${e.task} started on ${e.agent} but is not a pending task of ${e.agent}`);
    }
    ag.running = e.task;
  }

  private onSuspend(e: Extract<TraceEvent, { type: 'task.suspend' }>): void {
    const ag = this.agent(e.agent);
    if (ag.running !== e.task) {
      this.violate(
        'I1',
        e,
        e.task,
        `${e.task} suspended on ${e.agent} but the running task is ${ag.running ?? 'none'}`,
      );
    }
    if (ag.openStep !== null) {
      this.violate(
        'I4',
        e,
        e.task,
        `${e.task} suspended inside step ${ag.openStep.step} of ${ag.openStep.task} (not at a step boundary)`,
      );
    }
    if (ag.critical) this.violate('I4', e, e.task, `${e.task} suspended inside a critical section`);

    const task = this.tasks.get(e.task);
    const by = this.tasks.get(e.by);
    if (by?.cls === 'queued') {
      this.violate('QUEUED', e, e.by, `queued task ${e.by} preempted ${e.task}`);
    } else {
      this.checkStrict(e, 'suspended', e.by, by, e.task, task);
    }

    const eff = task === undefined ? e.eff : effective(task);
    if (eff !== e.eff) {
      this.violate(
        'STACK',
        e,
        e.task,
        `${e.task} recorded effective level ${e.eff} at suspension; the trace implies ${eff}`,
      );
    }
    const below = ag.stack[ag.stack.length - 1];
    ag.stack.push({ task: e.task, eff });
    if (ag.stack.length > STACK_DEPTH_LIMIT) {
      this.violate(
        'STACK',
        e,
        e.task,
        `suspending ${e.task} makes the stack of ${e.agent} ${ag.stack.length} deep (bound ${STACK_DEPTH_LIMIT})`,
      );
    }
    if (below !== undefined && eff <= below.eff) {
      this.violate(
        'STACK',
        e,
        e.task,
        `${e.task} suspended at effective level ${eff} on top of ${below.task} at ${below.eff}: levels must strictly increase`,
      );
    }
    if (e.depthAfter !== ag.stack.length) {
      this.violate(
        'STACK',
        e,
        e.task,
        `suspend of ${e.task} says depth ${e.depthAfter}, the trace implies ${ag.stack.length}`,
      );
    }
    if (task !== undefined) task.preemptCount += 1;
    ag.suspends += 1;
    if (ag.running === e.task) ag.running = null;
  }

  private onResume(e: Extract<TraceEvent, { type: 'task.resume' }>): void {
    const ag = this.agent(e.agent);
    if (ag.running !== null) {
      this.violate('I1', e, e.task, `${e.task} resumed on ${e.agent} while ${ag.running} is running`);
    }
    const top = ag.stack[ag.stack.length - 1];
    if (top?.task === e.task) {
      ag.stack.pop();
      if (e.depthAfter !== ag.stack.length) {
        this.violate(
          'STACK',
          e,
          e.task,
          `resume of ${e.task} says depth ${e.depthAfter}, the trace implies ${ag.stack.length}`,
        );
      }
    } else {
      const where = removeFrame(ag.stack, e.task) ? 'below the top' : 'not on the stack';
      this.violate(
        'LIFO',
        e,
        e.task,
        `${e.task} resumed on ${e.agent} but it is ${where}; the top is ${top?.task ?? 'none'}`,
      );
    }
    ag.resumes += 1;
    ag.running = e.task;
  }

  private onTerminal(e: Extract<TraceEvent, { type: 'task.terminal' }>): void {
    const task = this.tasks.get(e.task);
    if (task === undefined) {
      this.violate('I5', e, e.task, `terminal event for ${e.task}, which was never submitted`);
      return;
    }
    if (task.ended) {
      this.violate('I5', e, e.task, `second terminal event for ${e.task} (${e.kind})`);
      return;
    }
    task.ended = true;
    const ag = this.agent(e.agent);
    ag.terminals += 1;
    if (!ag.pending.delete(e.task)) {
      this.violate(
        'BALANCE',
        e,
        e.task,
        `${e.agent} emitted the terminal of ${e.task}, which is pending on ${task.agent}`,
      );
      this.agent(task.agent).pending.delete(e.task);
    }
    if (ag.running === e.task) {
      ag.running = null;
      ag.critical = false;
      ag.openStep = null;
    } else if (removeFrame(ag.stack, e.task)) {
      if (!ag.stopped && !STOP_REASONS.has(e.reason)) {
        this.violate(
          'STACK',
          e,
          e.task,
          `${e.task} ended ${e.kind} while suspended on ${e.agent}, which is not stopping`,
        );
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private checkStrict(
    e: TraceEvent,
    verb: string,
    incomingId: string,
    incoming: TaskTrack | undefined,
    victimId: string,
    victim: TaskTrack | undefined,
  ): void {
    if (incoming === undefined || victim === undefined) {
      const unknown = incoming === undefined ? incomingId : victimId;
      this.violate('STRICT', e, incomingId, `${incomingId} ${verb} ${victimId}, but ${unknown} was never submitted`);
      return;
    }
    const effIn = effective(incoming);
    const effVictim = effective(victim);
    if (effIn <= effVictim) {
      this.violate(
        'STRICT',
        e,
        incomingId,
        `${incomingId} (eff ${effIn}) ${verb} ${victimId} (eff ${effVictim}): preemption needs a strictly higher effective level`,
      );
    }
  }

  /** I2: a step event must belong to the agent's running task. */
  private requireRunning(e: TraceEvent & { readonly task: string }, what: string): void {
    const running = this.agent(e.agent).running;
    if (running !== e.task) {
      this.violate(
        'I2',
        e,
        e.task,
        `${what} for ${e.task} on ${e.agent}, but the running task is ${running ?? 'none'}`,
      );
    }
  }

  /** docs/spec.md §5: L4 comes from the kernel, a built-in plugin on the root, or the parent on a child. */
  private isKernelLevelSource(agent: string, source: string | null): boolean {
    if (source === null) return false;
    if (agent === this.rootAgent) {
      const slash = source.indexOf('/');
      return this.builtin.has(slash === -1 ? source : source.slice(0, slash));
    }
    return source.startsWith('parent/');
  }

  private agent(id: string): AgentTrack {
    let ag = this.agents.get(id);
    if (ag === undefined) {
      ag = {
        running: null,
        stack: [],
        openStep: null,
        critical: false,
        pending: new Set(),
        submitted: 0,
        terminals: 0,
        suspends: 0,
        resumes: 0,
        stopped: false,
      };
      this.agents.set(id, ag);
    }
    return ag;
  }

  private violate(invariant: InvariantName, e: TraceEvent, task: string | undefined, message: string): void {
    this.record(invariant, e.t, e.seq, e.agent, task, message);
  }

  private violateAt(invariant: InvariantName, agent: string, task: string | undefined, message: string): void {
    this.record(invariant, this.lastT, this.lastSeq, agent, task, message);
  }

  private record(
    invariant: InvariantName,
    t: number,
    seq: number,
    agent: string,
    task: string | undefined,
    message: string,
  ): void {
    // JSON keeps "no task" (null) apart from every task id, the empty one too.
    const key = JSON.stringify([invariant, agent, task]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.found.push(
      task === undefined ? { invariant, t, seq, agent, message } : { invariant, t, seq, agent, task, message },
    );
  }
}

/** The monitor's state as plain data: see InvariantMonitor.snapshot. */
export interface MonitorSnapshot {
  readonly found: readonly Violation[];
  readonly seen: readonly string[];
  readonly tasks: readonly (readonly [string, TaskTrack])[];
  readonly agents: readonly (readonly [
    string,
    Omit<AgentTrack, 'pending'> & { readonly pending: readonly string[] },
  ])[];
  readonly parentOf: readonly (readonly [string, string])[];
  readonly inTransit: readonly (readonly [string, string])[];
  readonly lastT: number;
  readonly lastSeq: number;
}

function fill<T>(set: Set<T>, values: readonly T[]): void {
  set.clear();
  for (const v of values) set.add(v);
}

function fillMap<K, V>(map: Map<K, V>, entries: readonly (readonly [K, V])[]): void {
  map.clear();
  for (const [k, v] of entries) map.set(k, v);
}

/** docs/spec.md §1: queued → 0; interrupt → min(4, level + min(preemptCount, 2)). */
function effective(task: TaskTrack): number {
  if (task.cls === 'queued') return 0;
  return Math.min(TOP_LEVEL, (task.level ?? 1) + Math.min(task.preemptCount, BOOST_LIMIT));
}

/** Removes a task's frame wherever it is in the stack (at most 4 entries). */
function removeFrame(stack: Frame[], task: string): boolean {
  // Stryker disable next-line ArithmeticOperator: starting above the top only reads empty slots first
  for (let i = stack.length - 1; i >= 0; i -= 1) {
    if (stack[i]?.task === task) {
      stack.splice(i, 1);
      return true;
    }
  }
  return false;
}

function names(ids: ReadonlySet<string>): string {
  const shown: string[] = [];
  for (const id of ids) {
    if (shown.length === NAMED_IDS_MAX) break;
    shown.push(id);
  }
  const more = ids.size - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
