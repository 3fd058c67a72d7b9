/**
 * The attribute names of the span model (docs/telemetry.md). Model and tool calls follow the
 * OpenTelemetry GenAI semantic conventions; everything the conventions do not name is under `homeagent.`.
 */
export const ATTR = {
  agent: 'homeagent.agent',
  taskId: 'homeagent.task.id',
  taskClass: 'homeagent.task.class',
  taskLevel: 'homeagent.task.level',
  taskKernel: 'homeagent.task.kernel',
  source: 'homeagent.source',
  channel: 'homeagent.channel',
  terminal: 'homeagent.terminal',
  terminalReason: 'homeagent.terminal.reason',
  /** The trace `seq` of the event a span or span event was made from (its start, for a span). */
  seq: 'homeagent.trace.seq',
  /** The trace `seq` of the event that ended a span. */
  endSeq: 'homeagent.trace.end_seq',
  /** A span still open when the run ended or serve shut down (its task goes on after a restart). */
  unfinished: 'homeagent.unfinished',
  /** A task first seen after a restart: what came before is in the previous run's spans. */
  restored: 'homeagent.task.restored',
  /** The task that interrupts, preempts, drops, or was waited for (span events). */
  interruptTask: 'homeagent.interrupt.task',
  interruptLevel: 'homeagent.interrupt.level',
  reason: 'homeagent.reason',
  step: 'homeagent.step',
  stackDepth: 'homeagent.stack.depth',
  callId: 'homeagent.call.id',
  turn: 'homeagent.turn',
  outcome: 'homeagent.outcome',
  toolOk: 'homeagent.tool.ok',
  genAiOperation: 'gen_ai.operation.name',
  genAiProvider: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiInputTokens: 'gen_ai.usage.input_tokens',
  genAiOutputTokens: 'gen_ai.usage.output_tokens',
  genAiToolName: 'gen_ai.tool.name',
  genAiToolCallId: 'gen_ai.tool.call.id',
  errorType: 'error.type',
} as const;
