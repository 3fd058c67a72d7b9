/**
 * The RESPONSE monitor: every L4 and L3 interrupt must start — reach its first `step.begin` — within
 * the response bound of its level (bound.ts), counted from its `task.submitted`.
 *
 * Theory of operation. Like the invariant monitors it reads the trace alone. It keeps the interrupts
 * of level 3 and 4 that wait to start, each with its submission time and its competitors: for an L4
 * the L4s already waiting when it was submitted, for an L3 the L3s and L4s waiting then plus every L4
 * submitted while it waits (those may legitimately start first). A task's deadline is its submission
 * plus R_level(competitors); the first event past a deadline, or a start after it, is a violation,
 * one per task, revealed by that event. A task that ends without starting (dropped, stopped) leaves
 * the watch without a verdict, unless its deadline had already passed.
 *
 * A task with more competitors than assumed (bound.ts) is outside the assumption: it is counted and
 * not checked. A run whose configuration is outside the assumptions checks nothing and says why. The
 * watch covers the root only; a second agent makes the run not applicable from then on.
 *
 * Cost: O(1) per event, plus O(waiting) when the waiting set or a competitor count changes.
 */
import type { TraceEvent, Violation } from '../../kernel/index.ts';
import {
  analyzeBound,
  competitorsMax,
  responseBoundMs,
  type BoundAnalysis,
  type BoundLevel,
  type BoundParameters,
} from './bound.ts';

export const RESPONSE = 'RESPONSE';
const ROOT = 'root';

interface Waiting {
  readonly task: string;
  readonly level: BoundLevel;
  readonly submittedAtMs: number;
  competitors: number;
  late: boolean;
}

/** Per level: the tasks checked, the tasks outside the assumed competitor count, the longest wait seen. */
export interface LevelTally {
  checked: number;
  outside: number;
  worstMs: number | null;
}

export class ResponseMonitor {
  private readonly found: Violation[] = [];
  private readonly waiting = new Map<string, Waiting>();
  private readonly started = new Set<string>();
  private readonly tally: Record<BoundLevel, LevelTally> = { 3: emptyTally(), 4: emptyTally() };
  private notApplicable: string | null;
  private readonly parameters: BoundParameters | null;
  /** The earliest deadline among the checked waiting tasks; recomputed when they change. */
  private nextDeadlineMs = Infinity;
  private lastSeq = 0;

  constructor(analysis: BoundAnalysis) {
    this.parameters = analysis.applicable ? analysis.parameters : null;
    this.notApplicable = analysis.applicable ? null : analysis.reason;
  }

  static forRun(...args: Parameters<typeof analyzeBound>): ResponseMonitor {
    return new ResponseMonitor(analyzeBound(...args));
  }

  get violations(): readonly Violation[] {
    return this.found;
  }

  /** Why the bound does not apply to this run, or null when it does. */
  get reason(): string | null {
    return this.notApplicable;
  }

  get boundParameters(): BoundParameters | null {
    return this.parameters;
  }

  levelTally(level: BoundLevel): Readonly<LevelTally> {
    return this.tally[level];
  }

  observe(e: TraceEvent): void {
    if (this.notApplicable !== null || e.type === 'invariant.violation') return;
    this.lastSeq = e.seq;
    if (e.agent !== ROOT) {
      this.notApplicable = `agent ${e.agent} appeared at t=${e.t}ms; the bound is derived for one agent`;
      this.waiting.clear();
      return;
    }
    if (e.type === 'step.begin') this.onStepBegin(e.task, e);
    if (e.t > this.nextDeadlineMs) this.revealLate(e.t, e.seq);
    if (e.type === 'task.submitted') this.onSubmitted(e);
    else if (e.type === 'task.terminal') this.onTerminal(e.task);
  }

  /** The end of the run: a task still waiting past its deadline is late. */
  finish(nowMs: number): void {
    if (this.notApplicable !== null) return;
    if (nowMs > this.nextDeadlineMs) this.revealLate(nowMs, this.lastSeq);
  }

  private onSubmitted(e: Extract<TraceEvent, { type: 'task.submitted' }>): void {
    if (e.class !== 'interrupt' || e.level === null) return;
    if (e.level === 4) {
      // A new L4 may start before every L3 that waits now.
      for (const w of this.waiting.values()) if (w.level === 3) w.competitors += 1;
    }
    if (e.level < 3 || this.waiting.has(e.task) || this.started.has(e.task)) {
      if (e.level === 4) this.refreshDeadline();
      return;
    }
    const level: BoundLevel = e.level === 4 ? 4 : 3;
    let competitors = 0;
    for (const w of this.waiting.values()) if (w.level >= level) competitors += 1;
    this.waiting.set(e.task, { task: e.task, level, submittedAtMs: e.t, competitors, late: false });
    this.refreshDeadline();
  }

  private onStepBegin(task: string, e: TraceEvent): void {
    const w = this.waiting.get(task);
    if (w === undefined) return;
    this.waiting.delete(task);
    this.started.add(task);
    const tally = this.tally[w.level];
    const waitedMs = e.t - w.submittedAtMs;
    if (w.competitors > competitorsMax(w.level)) {
      tally.outside += 1;
    } else {
      tally.checked += 1;
      tally.worstMs = Math.max(tally.worstMs ?? 0, waitedMs);
      const bound = this.boundOf(w);
      if (!w.late && waitedMs > bound) {
        this.violate(
          w,
          e.t,
          e.seq,
          `started ${waitedMs}ms after its submission at t=${w.submittedAtMs}ms, ${this.explain(w, bound)}`,
        );
      }
    }
    this.refreshDeadline();
  }

  private onTerminal(task: string): void {
    if (!this.waiting.delete(task)) return;
    this.refreshDeadline();
  }

  private revealLate(t: number, seq: number): void {
    for (const w of this.waiting.values()) {
      if (w.late || w.competitors > competitorsMax(w.level)) continue;
      const bound = this.boundOf(w);
      if (t <= w.submittedAtMs + bound) continue;
      this.violate(
        w,
        t,
        seq,
        `has not started at t=${t}ms, ${t - w.submittedAtMs}ms after its submission at t=${w.submittedAtMs}ms, ${this.explain(w, bound)}`,
      );
    }
    this.refreshDeadline();
  }

  private violate(w: Waiting, t: number, seq: number, what: string): void {
    w.late = true;
    this.found.push({
      invariant: RESPONSE,
      t,
      seq,
      agent: ROOT,
      task: w.task,
      message: `L${w.level} task ${w.task} ${what}`,
    });
  }

  private explain(w: Waiting, bound: number): string {
    const p = this.parameters as BoundParameters;
    return (
      `past its response bound of ${bound}ms (${w.competitors} competitor(s); one task's work W=${p.taskMs}ms, ` +
      `model call M=${p.modelCallMs}ms, tool D=${p.toolMs}ms, cooldown C=${p.cooldownMs}ms; see docs/response-bound.md)`
    );
  }

  private boundOf(w: Waiting): number {
    return responseBoundMs(this.parameters as BoundParameters, w.level, w.competitors);
  }

  private refreshDeadline(): void {
    let next = Infinity;
    for (const w of this.waiting.values()) {
      if (w.late || w.competitors > competitorsMax(w.level)) continue;
      next = Math.min(next, w.submittedAtMs + this.boundOf(w));
    }
    this.nextDeadlineMs = next;
  }
}

function emptyTally(): LevelTally {
  return { checked: 0, outside: 0, worstMs: null };
}
