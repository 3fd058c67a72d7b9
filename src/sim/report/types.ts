/**
 * The run report's types (docs/spec.md §12.3, a public contract) and what `buildReport` and `finalizeReport`
 * take as input.
 *
 * The interfaces list their fields in the order docs/spec.md §12.3 does. The order of keys in the JSON comes
 * from the object literals in build.ts (nested objects) and finalize.ts (the top level), not from these
 * types, so they must be kept in step.
 */
import type {
  AgentDump,
  KernelDump,
  SchedulerCounters,
  TerminalKind,
  TerminalReason,
  TraceEvent,
  Violation,
} from '../../kernel/index.ts';
import type { ResponseBoundReport } from '../response/report.ts';

export interface InputMeta {
  readonly id: string;
  readonly declaredClass: 'queued' | 'interrupt';
  readonly declaredLevel: number | null;
  /** False when the input was never handed to the kernel (e.g. a trigger that could not fire). */
  readonly submitted: boolean;
}

export interface TriggerOutcome {
  readonly input: string;
  readonly fired: boolean;
  readonly t: number | null;
}

export interface ReportInput {
  readonly scenario: string;
  readonly seed: number;
  readonly command: string;
  /** The effective configuration, after defaults; passed through. */
  readonly config: unknown;
  readonly events: readonly TraceEvent[];
  readonly dump: KernelDump;
  readonly traceHash: string;
  readonly wallMs: number;
  readonly violations: readonly Violation[];
  readonly inputsMeta: readonly InputMeta[];
  readonly triggers: readonly TriggerOutcome[];
}

export interface ReportViolation {
  readonly invariant: string;
  readonly t: number;
  readonly agent: string;
  readonly task?: string;
  readonly message: string;
  /**
   * formatTraceLine of the violating event, up to 5 lines before it and 2 after. For LIVENESS: the
   * last 6 events before the run was cut, the last event of each task pending then (at most 10) and
   * the root's `agent.stop` that ended them, in trace order.
   */
  readonly context: readonly string[];
}

export interface ReportExpectation {
  readonly name: string;
  readonly path: string;
  readonly ok: boolean;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface ReportSuspension {
  readonly t: number;
  readonly step: string;
  readonly by: string;
  readonly effBefore: number;
  readonly depthAfter: number;
}

export interface ReportModelCall {
  readonly start: number;
  /** Time of its model.end or model.cancel; null if neither was traced. */
  readonly end: number | null;
  readonly cancelled: boolean;
  readonly lateChunks: number;
  readonly replyIndex: number;
}

export interface ReportToolCall {
  readonly name: string;
  /** The parsed JSON arguments, or the raw text when they do not parse. */
  readonly args: unknown;
  /** False exactly for tool errors and for calls that never started; null if the call never ended. */
  readonly ok: boolean | null;
  /** The first 500 code points of the result; null if the call never ended or never started. */
  readonly result: string | null;
  /** Null for a call that never started (after a panic or a stop). */
  readonly start: number | null;
  readonly end: number | null;
}

export interface ReportTask {
  /** The agent that emitted its terminal (else where it was last submitted; null if never submitted). */
  readonly agent: string | null;
  readonly movedFrom: readonly string[];
  readonly source: string | null;
  readonly channel: string | null;
  readonly outputChannel: string | null;
  readonly class: 'queued' | 'interrupt';
  /** 1..4 after clamping; null for queued tasks; the declared level for a task never submitted. */
  readonly level: number | null;
  /** 0 for queued tasks; null for tasks never submitted. */
  readonly effectiveLevelMax: number | null;
  readonly terminal: TerminalKind | null;
  readonly reason: TerminalReason | null;
  readonly terminalCount: number;
  readonly preemptCount: number;
  readonly suspends: number;
  readonly resumes: number;
  readonly suspensions: readonly ReportSuspension[];
  readonly modelCalls: number;
  readonly modelCallsCancelled: number;
  readonly modelCallLog: readonly ReportModelCall[];
  readonly tools: readonly string[];
  readonly toolCalls: readonly ReportToolCall[];
  readonly submittedAt: number | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly reply: string | null;
}

export interface ReportOutput {
  readonly agent: string;
  readonly task: string;
  readonly text: string;
}

export interface ReportStop {
  readonly id: string;
  readonly t: number;
  /** Queued tasks it cancelled, then the running task it marked if that task ended cancelled/user_stop. */
  readonly cancelled: readonly string[];
}

export interface ReportDrop {
  readonly t: number;
  readonly victim: string;
  readonly for: string;
}

export interface ReportDeferrals {
  readonly critical: number;
  readonly cooldown: number;
  readonly level: number;
}

export type LevelKey = '1' | '2' | '3' | '4';
export type ReportCounters = Omit<SchedulerCounters, 'interruptsByLevel' | 'preemptsByLevel'> & {
  readonly interruptsByLevel: Readonly<Record<LevelKey, number>>;
  readonly preemptsByLevel: Readonly<Record<LevelKey, number>>;
};

/**
 * An agent as the report shows it: the kernel dump's fields, less its id (the record key), context,
 * current step, scheduler and consolidation count, plus a field of the report's own.
 * docs/spec.md §12.3 order: kind, state, parent, rounds, tableSize, table, inputChs, allowedOutputs, tools,
 * maxStackDepth, contextfullSignals, contextHash (set by the literal in build.ts).
 */
export type ReportAgent = Pick<
  AgentDump,
  | 'kind'
  | 'state'
  | 'parent'
  | 'rounds'
  | 'tableSize'
  | 'table'
  | 'inputChs'
  | 'allowedOutputs'
  | 'tools'
  | 'maxStackDepth'
  | 'contextfullSignals'
> & {
  /** SHA-256 hex of the sorted-key canonical JSON of the agent's context events. */
  readonly contextHash: string;
};

export interface ReportChannel {
  readonly name: string;
  readonly plugin: string;
  readonly owner: string;
}

/** docs/spec.md §12.3, fields in the listed order. `ok`, `expectations`, `outputs`, `channels` are set by finalize.ts only. */
export interface Report {
  readonly reportVersion: 1;
  readonly scenario: string;
  readonly seed: number;
  readonly ok: boolean;
  readonly traceHash: string;
  readonly events: number;
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly command: string;
  readonly config: unknown;
  readonly violations: readonly ReportViolation[];
  readonly expectations: readonly ReportExpectation[];
  readonly tasks: Readonly<Record<string, ReportTask>>;
  readonly outputs: Readonly<Record<string, readonly ReportOutput[]>>;
  readonly stops: readonly ReportStop[];
  readonly drops: readonly ReportDrop[];
  readonly deferrals: ReportDeferrals;
  readonly triggers: readonly TriggerOutcome[];
  readonly suspendOrder: readonly string[];
  readonly resumeOrder: readonly string[];
  readonly finishOrder: readonly string[];
  readonly terminalOrder: readonly string[];
  readonly maxStackDepth: number;
  readonly counters: Readonly<Record<string, ReportCounters>>;
  readonly agents: Readonly<Record<string, ReportAgent>>;
  readonly channels: readonly ReportChannel[];
  /** Present only on a `--swarm` run: its active fault sites (swarm.ts), so a failure names them. */
  readonly swarm?: ReportSwarm;
  /** The response bound of the run (sim/response/report.ts): applicable or why not, and what it checked. */
  readonly responseBound?: ResponseBoundReport;
  /** Present only on a run whose simulated process crashed (docs/spec.md §13.2): each crash and restart. */
  readonly crashes?: readonly ReportCrash[];
  /** Present with `crashes`: the submissions never acknowledged, refused while down or lost with the journal. */
  readonly lost?: readonly ReportLost[];
}

export interface ReportCrash {
  readonly at: number;
  readonly restartAt: number;
  /** Journaled inputs the crash kept (those its snapshot covers included) and lost. */
  readonly inputsKept: number;
  readonly inputsLost: number;
  /** Trace events it kept (the durable history) and cut from the trace. */
  readonly eventsKept: number;
  readonly eventsLost: number;
}

export interface ReportLost {
  readonly id: string;
  /** When it was submitted. */
  readonly t: number;
  /** `down`: refused while the process was down; `unsynced`: its journal record was not durable at a crash. */
  readonly reason: 'down' | 'unsynced';
}

export interface ReportSwarm {
  readonly sites: readonly string[];
}

/** What `buildReport` assembles from the trace scan and the dump: everything but the fields finalize.ts owns. */
export type ReportBody = Omit<
  Report,
  'ok' | 'expectations' | 'outputs' | 'channels' | 'swarm' | 'responseBound' | 'crashes' | 'lost'
>;

/** What a scenario's `expect` block is checked against: the report before its verdict. */
export type UncheckedReport = Omit<Report, 'ok' | 'expectations'>;
