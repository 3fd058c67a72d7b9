/**
 * The run report (docs/spec.md §12.3, a public contract) and its readable summary: the public entry point.
 *
 * The parts live in report/: the types (types.ts), the trace scan that accumulates per-task data
 * (scan.ts), the assembly of the report's body from the scan and the kernel dump (build.ts), the
 * expectations (expect.ts), the verdict that completes the report (finalize.ts, the one owner of `ok`,
 * `expectations`, `outputs` and `channels`), the interesting states a run reached (reached.ts), the
 * readable summary (summary.ts) and the leaf text
 * helpers (text.ts). Importers use this file only.
 */
export { buildReport } from './build.ts';
export { exitCodeOf, finalizeReport, unexpectedViolations, type CommandChecks, type RunRecord } from './finalize.ts';
export { TOOL_RESULT_CODE_POINTS_MAX } from './scan.ts';
export { REACHED_STATES, reachedStates, type ReachedState } from './reached.ts';
export { formatSummary } from './summary.ts';
export { firstCodePoints, sortedJson } from './text.ts';
export type {
  InputMeta,
  LevelKey,
  Report,
  ReportAgent,
  ReportBody,
  ReportChannel,
  ReportCounters,
  ReportCrash,
  ReportDeferrals,
  ReportDrop,
  ReportExpectation,
  ReportInput,
  ReportLost,
  ReportModelCall,
  ReportOutput,
  ReportStop,
  ReportSuspension,
  ReportSwarm,
  ReportTask,
  ReportToolCall,
  ReportViolation,
  TriggerOutcome,
  UncheckedReport,
} from './types.ts';
