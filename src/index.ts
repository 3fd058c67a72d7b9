/**
 * The homeagent library, `import … from 'homeagent'` (docs/library.md): the simulator as functions,
 * the kernel and the Runtime with their ports and clocks, and the model adapters. The test kit is a
 * second entry, `homeagent/testing` (src/testing/index.ts).
 *
 * This file is the package's public surface: what it exports is a contract, typed by the declarations
 * the build emits beside it. Besides the commands (src/cli), the library (this file and src/library/)
 * is the only code outside src/sim that reaches into the simulator.
 */

// ---------------------------------------------------------------- the simulator

export {
  loadScenarioFile,
  parseScenario,
  runScenario,
  ScenarioError,
  type RunScenarioOptions,
} from './library/scenarios.ts';
export { JournalError, replayJournal, type ReplayJournalOptions } from './library/replay.ts';
export type { ReplayResult } from './sim/replay/replay.ts';
export type {
  AgentExpect,
  ChannelDef,
  CounterExpect,
  CounterExpects,
  Expect,
  Faults,
  GenerateConfig,
  InterruptInput,
  KernelOverrides,
  Limits,
  ModelConfig,
  OutputDef,
  OutputExpect,
  Problem,
  QueuedInput,
  Range,
  Reply,
  ReplyToolCall,
  ResidentDef,
  Scenario,
  ScenarioEvent,
  ScenarioInput,
  ScenarioJson,
  StopInput,
  TaskFieldExpect,
  Timing,
  ToolDef,
} from './sim/scenario/index.ts';
export type {
  Report,
  ReportAgent,
  ReportChannel,
  ReportCounters,
  ReportDeferrals,
  ReportDrop,
  ReportExpectation,
  ReportModelCall,
  ReportOutput,
  ReportStop,
  ReportSuspension,
  ReportSwarm,
  ReportTask,
  ReportToolCall,
  ReportViolation,
  TriggerOutcome,
} from './sim/report/index.ts';
export type { ResponseBoundReport } from './sim/response/report.ts';

// ---------------------------------------------------------------- the kernel, the Runtime, the clocks

export {
  AssertionError,
  ContextFullError,
  DEFAULT_KERNEL_CONFIG,
  Kernel,
  MemoryError,
  resolveKernelConfig,
  SNAPSHOT_VERSION,
  SnapshotError,
  STACK_DEPTH_MAX,
  type AgentDump,
  type ChildMemory,
  type ChildMemoryFactory,
  type Command,
  type CommitResult,
  type ExportedTriple,
  type Fact,
  type FeedResult,
  type FinishReason,
  type GraphMemory,
  type KernelConfig,
  type KernelConfigInput,
  type KernelDump,
  type KernelInput,
  type KernelPorts,
  type KernelSnapshot,
  type Level,
  type MemoryParsers,
  type MemoryPorts,
  type Message,
  type ModelChunk,
  type ModelRequest,
  type OffloadConfig,
  type Provider,
  type Recall,
  type Role,
  type Submission,
  type SubmitResult,
  type TaskClass,
  type Terminal,
  type TerminalKind,
  type TerminalReason,
  type ToolCall,
  type ToolContext,
  type ToolResult,
  type ToolRunner,
  type ToolSpec,
  type TraceEvent,
  type TraceSink,
  type Triple,
  type Usage,
  type Violation,
} from './kernel/index.ts';
export {
  Runtime,
  type OutputPort,
  type RuntimeActivity,
  type RuntimeHooks,
  type RuntimePorts,
} from './runtime/runtime.ts';
export { SystemClock, VirtualClock, type Clock, type TimerId, type VirtualClockOptions } from './clock/index.ts';

// ---------------------------------------------------------------- the model adapters

export {
  ANTHROPIC_DEFAULT_BASE_URL,
  AnthropicMessagesProvider,
  createAdapter,
  createProvider,
  DEMO_MODEL_LABEL,
  DemoProvider,
  FallbackProvider,
  ModelCallError,
  OPENAI_DEFAULT_BASE_URL,
  OpenAIChatProvider,
  ProviderConfigError,
  UpstreamError,
  type AnthropicMessagesOptions,
  type CreateProviderOptions,
  type DemoOptions,
  type FallbackOptions,
  type NamedProvider,
  type OpenAIChatOptions,
  type ProviderConfig,
  type ProviderKind,
  type Sleep,
  type UpstreamFailure,
} from './models/index.ts';
