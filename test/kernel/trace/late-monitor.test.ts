/**
 * The LATE monitor (docs/spec.md §6): a model or tool result that arrives after its call was
 * abandoned (its model call cancelled, or its task ended) is discarded and counted, never applied — a
 * `model.end` or `tool.end` of such a call is a named violation.
 */
import { describe, expect, it } from 'vitest';
import { CheckedMonitor } from '../../../src/kernel/trace/cooldown-monitor.ts';
import type { TraceBody, TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';

function violationsOf(bodies: readonly (readonly [number, TraceBody])[]): CheckedMonitor['violations'] {
  const monitor = new CheckedMonitor({ builtinPlugins: [], cooldownMs: 2_000 });
  bodies.forEach(([t, body], i) => monitor.observe({ seq: i + 1, t, agent: 'root', ...body } as TraceEvent));
  return monitor.violations.filter((v) => v.invariant === 'LATE');
}

const SUBMIT: TraceBody = {
  type: 'task.submitted',
  task: 'q',
  class: 'queued',
  level: null,
  kernel: false,
  source: 'cli',
  channel: 'cli',
};
const START: TraceBody = { type: 'task.start', task: 'q', from: 'queue' };
const MODEL_START: TraceBody = { type: 'model.start', task: 'q', callId: 'm1', turn: 0, replyIndex: 0 };
const MODEL_END: TraceBody = {
  type: 'model.end',
  task: 'q',
  callId: 'm1',
  outcome: 'done',
  toolCalls: [],
  error: null,
};
const TOOL_START: TraceBody = { type: 'tool.start', task: 'q', callId: 'm1_0', name: 'search', args: '{}' };
const TOOL_END: TraceBody = {
  type: 'tool.end',
  task: 'q',
  callId: 'm1_0',
  name: 'search',
  ok: true,
  result: 'found',
  panicked: false,
};
const STOPPED: TraceBody = { type: 'task.terminal', task: 'q', kind: 'skipped', reason: 'agent_stopped', reply: '' };
const DONE: TraceBody = { type: 'task.terminal', task: 'q', kind: 'done', reason: null, reply: 'ok' };

describe('LATE: a result after its call was abandoned is never applied', () => {
  it('a model call and a tool call that end before their task ends are no violation', () => {
    expect(
      violationsOf([
        [0, SUBMIT],
        [0, START],
        [0, MODEL_START],
        [100, MODEL_END],
        [100, TOOL_START],
        [200, TOOL_END],
        [300, DONE],
      ]),
    ).toEqual([]);
  });

  it('a late result discarded as model.chunk.late or tool.result.late is no violation', () => {
    expect(
      violationsOf([
        [0, SUBMIT],
        [0, START],
        [0, MODEL_START],
        [100, MODEL_END],
        [100, TOOL_START],
        [150, STOPPED],
        [200, { type: 'tool.result.late', task: 'q', callId: 'm1_0' }],
      ]),
    ).toEqual([]);
  });

  it('a tool.end after the task ended (an agent stopped during the tool) is a LATE violation', () => {
    expect(
      violationsOf([
        [0, SUBMIT],
        [0, START],
        [0, MODEL_START],
        [100, MODEL_END],
        [100, TOOL_START],
        [150, STOPPED],
        [200, TOOL_END],
      ]),
    ).toMatchObject([{ invariant: 'LATE', task: 'q', t: 200 }]);
  });

  it('a model.end after its call was cancelled is a LATE violation', () => {
    expect(
      violationsOf([
        [0, SUBMIT],
        [0, START],
        [0, MODEL_START],
        [50, { type: 'model.cancel', task: 'q', callId: 'm1', reason: 'preempt' }],
        [100, MODEL_END],
      ]),
    ).toMatchObject([{ invariant: 'LATE', task: 'q', t: 100 }]);
  });

  it('a model call started again under the same id after a cancel may end', () => {
    expect(
      violationsOf([
        [0, SUBMIT],
        [0, START],
        [0, MODEL_START],
        [50, { type: 'model.cancel', task: 'q', callId: 'm1', reason: 'restart' }],
        [60, MODEL_START],
        [100, MODEL_END],
      ]),
    ).toEqual([]);
  });
});
