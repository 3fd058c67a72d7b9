/**
 * The kernel's public surface: code outside src/kernel imports the kernel from here, never from its
 * internal files, so the kernel's folders can change without touching its users (tests may reach in).
 */
// The agent tree behind one door, its configuration and its inputs and commands (docs/spec.md §11).
export { Kernel, type KernelPorts } from './kernel.ts';
export {
  DEFAULT_KERNEL_CONFIG,
  resolveKernelConfig,
  type KernelConfig,
  type KernelConfigInput,
  type OffloadConfig,
} from './config.ts';
export type {
  Command,
  Fact,
  FeedResult,
  FeedResults,
  KernelInput,
  KernelInputType,
  ModelFailure,
  Submission,
  SubmitResult,
} from './protocol.ts';
export type { InputChannel, RegisterInput } from './channels/registry.ts';
export type {
  AgentDump,
  AgentKind,
  AgentState,
  ContextEvent,
  CurrentStep,
  KernelDump,
  RunningView,
} from './agent/dump-types.ts';
export { resolveLevel } from './agent/admission.ts';
/** How an interrupt's input is marked in a model request (docs/spec.md §3.4). */
export { INTERRUPT_MARK } from './agent/context.ts';
// The kernel snapshot (docs/spec.md §13.2): `Kernel.snapshot()` writes it, `Kernel.restore()` reads it.
export {
  SNAPSHOT_VERSION,
  SnapshotError,
  type KernelSnapshot,
  type OffloadSnapshot,
  type RegistrySnapshot,
} from './snapshot/format.ts';
export type {
  AgentSnapshot,
  ChildConfigSnapshot,
  ContextSnapshot,
  DedupSnapshot,
  ModelStreamSnapshot,
  PartialCallSnapshot,
  SeatSnapshot,
  WaitingSnapshot,
} from './snapshot/agent.ts';
export type { SchedTaskSnapshot, SchedulerSnapshot, StackEntrySnapshot } from './snapshot/scheduler.ts';
export { CHILD_ID_PATTERN } from './children/spec.ts';

// Ports: the model and tool ports (held by the Runtime) and the graph memory port (held by the kernel).
export * from './ports/index.ts';
export { EMPTY_RECALL, mergeRecall, RECALL_DEPTH_MAX, validTriple } from './memory/rules.ts';

// Levels and counters, as the simulator's generator and the reports read them.
export { canPreempt, effectiveLevel, STACK_DEPTH_MAX, type Level, type TaskClass } from './scheduler/levels.ts';
export { newCounters, type SchedulerCounters } from './scheduler/counters.ts';

// The trace vocabulary, the invariant monitors and the sink that writes their violations.
export type {
  RequestedToolCall,
  StepName,
  Terminal,
  TerminalKind,
  TerminalReason,
  TraceBody,
  TraceEvent,
  TraceSink,
  TraceStamp,
  TraceType,
} from './trace/vocabulary.ts';
export { TraceRecorder } from './trace/vocabulary.ts';
export {
  InvariantMonitor,
  type InvariantName,
  type MonitorFinal,
  type MonitorOptions,
  type MonitorSnapshot,
  type Violation,
} from './trace/monitors.ts';
export { MonitoredSink, type MonitoredSinkSnapshot } from './trace/monitor-sink.ts';
export { CheckedMonitor, type CheckedMonitorOptions, type CheckedMonitorSnapshot } from './trace/cooldown-monitor.ts';

export { assert, AssertionError, assertNever } from './assert.ts';
