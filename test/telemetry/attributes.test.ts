/**
 * The attribute names of the span model are a public contract (docs/telemetry.md): the GenAI ones are the
 * OpenTelemetry semantic conventions' names, the rest are under `homeagent.`, and each is the one the
 * documentation gives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ATTR } from '../../src/telemetry/index.ts';

describe('ATTR', () => {
  it('names every attribute as docs/telemetry.md and the GenAI semantic conventions do', () => {
    expect(ATTR).toEqual({
      agent: 'homeagent.agent',
      taskId: 'homeagent.task.id',
      taskClass: 'homeagent.task.class',
      taskLevel: 'homeagent.task.level',
      taskKernel: 'homeagent.task.kernel',
      source: 'homeagent.source',
      channel: 'homeagent.channel',
      terminal: 'homeagent.terminal',
      terminalReason: 'homeagent.terminal.reason',
      seq: 'homeagent.trace.seq',
      endSeq: 'homeagent.trace.end_seq',
      unfinished: 'homeagent.unfinished',
      restored: 'homeagent.task.restored',
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
    });
  });

  it('every name is written, in backquotes (alone or with a value), in docs/telemetry.md', () => {
    const doc = readFileSync(new URL('../../docs/telemetry.md', import.meta.url), 'utf8');
    const missing = Object.values(ATTR).filter((name) => !doc.includes(`\`${name}\``) && !doc.includes(`\`${name}: `));
    expect(missing).toEqual([]);
  });
});
