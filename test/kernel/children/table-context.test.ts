/**
 * A child's processing table, its context-full signal, the parent's compress and inspect (docs/spec.md §10.4,
 * §10.5, §10.3): driven step by step with a small window so every threshold is crossed on purpose.
 */
import { describe, expect, it } from 'vitest';
import { TreeWorld } from './tree-world.ts';

/** 30 + 20 ASCII code points: every round commits 50 tokens. */
const INPUT = (n: number): string => `${String(n).padStart(2, '0')}${'a'.repeat(28)}`;
const REPLY = (n: number): string => `${String(n).padStart(2, '0')}${'b'.repeat(18)}`;

/** A child c1 with a 100-token window (full at 90) on qq/a, after `rounds` rounds of 50 tokens each. */
function childWithRounds(rounds: number): TreeWorld {
  const w = new TreeWorld();
  w.registerChannel({ name: 'qq/a', plugin: 'qq' });
  w.child({ id: 'c1', inputChs: ['qq/a'], contextWindowTokens: 100 });
  for (let n = 1; n <= rounds; n += 1) round(w, n);
  return w;
}

function round(w: TreeWorld, n: number): void {
  w.queued(`r${n}`, INPUT(n), { source: 'qq', channel: 'qq/a' });
  w.answer(`r${n}`, REPLY(n));
}

describe('processing table (docs/spec.md §10.4)', () => {
  it("S8: a round that writes no note still gets a record: the automatic one, on the task's inputch", () => {
    const w = childWithRounds(0);
    w.queued('q', 'where is my parcel', { source: 'qq', channel: 'qq/a' });
    w.answer('q', '', [{ name: 'search' }]);
    w.toolResult('q', 'tracking found');
    w.answer('q', 'on its way');
    expect(w.agent('c1').table).toEqual([
      { inputch: 'qq/a', atMs: 0, proactive: false, text: 'round done: input=where is my parcel, output=on its way' },
    ]);
    expect(w.on('c1', 'child.record')).toEqual([
      expect.objectContaining({ task: 'q', inputch: 'qq/a', proactive: false }),
    ]);
    expect(w.agent('c1').tableSize).toBe(1);
    // The root keeps no table.
    w.queued('rootq', 'hello');
    w.answer('rootq', 'hi');
    expect(w.agent('root').table).toEqual([]);
    expect(w.on('root', 'child.record')).toEqual([]);
  });

  it('S8: failed and skipped rounds write nothing', () => {
    const w = childWithRounds(0);
    w.queued('bad', 'fails', { source: 'qq', channel: 'qq/a' });
    w.failModel('bad', 'provider down');
    expect(w.replyOf('bad').kind).toBe('failed');
    w.queued('stopped', 'is stopped', { source: 'qq', channel: 'qq/a' });
    w.stopButton('stop-c1', '', { agent: 'c1' });
    expect(w.replyOf('stopped').kind).toBe('cancelled');
    expect(w.agent('c1').table).toEqual([]);
    expect(w.on('c1', 'child.record')).toEqual([]);
  });

  it('S9: inputch_note wins over the automatic record: the round has only the note (the last one)', () => {
    const w = childWithRounds(0);
    w.queued('q', 'where is my parcel', { source: 'qq', channel: 'qq/a' });
    w.answer('q', '', [
      { name: 'inputch_note', args: '{"text":"draft"}' },
      { name: 'inputch_note', args: '{"text":"parcel question answered"}' },
    ]);
    w.answer('q', 'on its way');
    expect(w.agent('c1').table).toEqual([
      { inputch: 'qq/a', atMs: 0, proactive: true, text: 'parcel question answered' },
    ]);
    expect(w.on('c1', 'child.record')).toEqual([expect.objectContaining({ task: 'q', proactive: true })]);
    // A blank note is a tool error and changes nothing.
    w.queued('q2', 'next', { source: 'qq', channel: 'qq/a' });
    w.answer('q2', '', [{ name: 'inputch_note', args: '{"text":""}' }]);
    expect(w.lastToolEnd('q2').ok).toBe(false);
    w.answer('q2', 'fine');
    expect(w.agent('c1').table.at(-1)).toMatchObject({ proactive: false, text: 'round done: input=next, output=fine' });
  });
});

describe('context-full (docs/spec.md §10.5)', () => {
  it('S5: at the Prepare after the context reaches 0.9 × window the parent gets one L4 from child/<id> with only the signal', () => {
    const w = childWithRounds(1);
    w.queued('r2', INPUT(2), { source: 'qq', channel: 'qq/a' });
    // 50 tokens before r2's Prepare (its own input is not counted): quiet.
    expect(w.on('c1', 'child.contextfull')).toEqual([]);
    w.answer('r2', REPLY(2));
    w.queued('r3', INPUT(3), { source: 'qq', channel: 'qq/a' });
    expect(w.on('c1', 'child.contextfull')).toEqual([
      expect.objectContaining({ parent: 'root', tokens: 100, window: 100 }),
    ]);
    expect(w.agent('c1').state).toBe('contextfull');
    expect(w.agent('c1').contextfullSignals).toBe(1);
    expect(w.submitted('root:1')).toMatchObject({
      agent: 'root',
      class: 'interrupt',
      level: 4,
      kernel: true,
      source: 'child/c1',
    });
    expect(w.on('root', 'child.event')).toEqual([
      expect.objectContaining({ task: 'root:1', child: 'c1', reason: 'child_contextfull', level: 4 }),
    ]);
    const signal = w.modelCall('root:1').request.messages.at(-1)?.content ?? '';
    expect(signal).toContain('child c1 context full (100 of 100 tokens)');
    expect(signal).not.toContain('aaaa');
    expect(signal).not.toContain('bbbb');

    // A full child keeps processing; while it stays full no second signal comes.
    w.answer('r3', REPLY(3));
    expect(w.replyOf('r3').kind).toBe('done');
    round(w, 4);
    expect(w.agent('c1').contextfullSignals).toBe(1);
    expect(w.on('root', 'task.submitted').map((e) => e.task)).toEqual(['root:1']);
    expect(w.monitor.violations).toEqual([]);
  });

  it("S5: the signal preempts the parent's running work (an L4 kernel event)", () => {
    const w = childWithRounds(2);
    w.queued('boss', 'root work');
    const call = w.modelCall('boss').callId;
    w.queued('r3', INPUT(3), { source: 'qq', channel: 'qq/a' });
    expect(w.isOpen(call)).toBe(false);
    expect(w.on('root', 'task.suspend')).toEqual([expect.objectContaining({ task: 'boss', by: 'root:1' })]);
  });
});

describe("the token measure of a child's context (docs/spec.md §10.5)", () => {
  it("S5: tokens count code points (not UTF-16 units) and an interrupt's raw input (not its interrupt mark)", () => {
    const w = childWithRounds(0);
    w.interrupt('emoji', 'L1', '😀'.repeat(10), { source: 'qq', channel: 'qq/a' });
    w.answer('emoji', 'é'.repeat(5));
    // 10 code points of 4 bytes → 20 tokens; 5 of 2 bytes → 10 tokens.
    w.queued('boss', 'measure c1');
    const inspected = JSON.parse(w.control('boss', { action: 'inspect', id: 'c1' }).result) as {
      contextTokens: number;
    };
    expect(inspected.contextTokens).toBe(30);
    expect(w.agent('c1').context).toEqual([
      { kind: 'interrupt', task: 'emoji', source: 'qq', input: '😀'.repeat(10), response: 'é'.repeat(5) },
    ]);
  });
});

describe('compress (docs/spec.md §10.5)', () => {
  it("S10: the compress task's own Prepare raises no context-full signal, even with the latch armed over the threshold", () => {
    // Round 2 prepared at 50 tokens (the latch stays armed) and committed to 100, over 0.9 × 100.
    const w = childWithRounds(2);
    expect(w.agent('c1').contextfullSignals).toBe(0);
    w.queued('boss', 'tidy c1 up');
    expect(w.control('boss', { action: 'compress', id: 'c1' })).toEqual({ ok: true, result: 'compress scheduled' });
    w.answer('c1:1', 'summary of round 1');
    expect(w.on('c1', 'child.contextfull')).toEqual([]);
    expect(w.agent('c1').contextfullSignals).toBe(0);
    expect(w.on('c1', 'child.compress')).toEqual([
      expect.objectContaining({ task: 'c1:1', older: 1, kept: 1, summarised: true }),
    ]);
    expect(w.agent('c1').state).toBe('running');
  });

  it('S10: compress keeps the child: an L4 critical kernel task on _compress_ summarises the older events, clears the table, and the child works on', () => {
    const w = childWithRounds(3);
    expect(w.agent('c1').state).toBe('contextfull');
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    expect(w.lastToolEnd('root:1')).toEqual({ ok: true, result: 'compress scheduled' });
    expect(w.submitted('c1:1')).toMatchObject({
      agent: 'c1',
      class: 'interrupt',
      level: 4,
      kernel: true,
      source: 'parent/root',
      channel: '_compress_',
    });
    expect(w.on('c1', 'critical.enter').map((e) => e.task)).toContain('c1:1');

    // The newest events within 0.5 × window (50 tokens: one round) are kept; the two older ones are summarised.
    const request = w.modelCall('c1:1').request;
    expect(request.tools).toEqual([]);
    // Only the instruction and the older events: not the child's own prompt, nor the kept round.
    expect(request.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request.messages[0]?.content).toMatch(
      /^Summarise the conversation below so the summary can replace it: .+; answer with the summary text only\.$/,
    );
    expect(request.messages[1]?.content).toBe(`turn: ${INPUT(1)} => ${REPLY(1)}\nturn: ${INPUT(2)} => ${REPLY(2)}`);
    w.answer('c1:1', 'the summary');
    expect(w.replyOf('c1:1')).toEqual({ kind: 'done', reply: 'compressed: 2 events summarised, 1 kept' });
    expect(w.on('c1', 'child.compress')).toEqual([
      expect.objectContaining({ task: 'c1:1', older: 2, kept: 1, summarised: true, dropped: 0 }),
    ]);

    const after = w.agent('c1');
    expect(after.context.map((e) => [e.kind, e.input, e.response])).toEqual([
      ['summary', '', 'the summary'],
      ['turn', INPUT(3), REPLY(3)],
    ]);
    expect(after.table).toEqual([]);
    expect(after.state).toBe('running');
    // The compress task commits no turn of its own and writes no record.
    expect(w.on('c1', 'child.record').map((e) => e.task)).toEqual(['r1', 'r2', 'r3']);

    round(w, 4);
    expect(w.replyOf('r4').kind).toBe('done');
    const next = w.requests('r4')[0]?.messages.map((m) => m.content) ?? [];
    expect(next.some((c) => c.includes('the summary'))).toBe(true);
    expect(next.some((c) => c === INPUT(1))).toBe(false);
    expect(w.agent('c1').tableSize).toBe(1);
    expect(w.violationsAtEnd().filter((v) => v.agent === 'c1')).toEqual([]);
  });

  it('S10: after a compress the latch re-arms below the threshold, so a second fill signals again', () => {
    const w = childWithRounds(3);
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    w.answer('c1:1', 'sum');
    round(w, 4);
    round(w, 5);
    w.queued('r6', INPUT(6), { source: 'qq', channel: 'qq/a' });
    expect(w.agent('c1').contextfullSignals).toBe(2);
    expect(w.on('root', 'child.event').map((e) => e.reason)).toEqual(['child_contextfull', 'child_contextfull']);
  });

  it('S10: a summary that leaves the context at or above 0.9 × window keeps the state contextfull', () => {
    const w = childWithRounds(3);
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    w.answer('c1:1', 's'.repeat(40));
    // 40 tokens of summary + 50 kept = 90: still full.
    expect(w.agent('c1')).toMatchObject({ state: 'contextfull', tableSize: 0 });
    expect(w.agent('c1').context.map((e) => e.kind)).toEqual(['summary', 'turn']);
  });

  it('S10: a compress that leaves the context at or above 0.9 × window re-arms the latch: the next Prepare signals again, once', () => {
    const w = childWithRounds(3);
    expect(w.agent('c1').contextfullSignals).toBe(1);
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    w.answer('c1:1', 's'.repeat(40));
    // 40 + 50 = 90 tokens: still full, and the latch is armed again at once.
    expect(w.agent('c1').state).toBe('contextfull');
    w.queued('r4', INPUT(4), { source: 'qq', channel: 'qq/a' });
    expect(w.agent('c1').contextfullSignals).toBe(2);
    expect(w.on('c1', 'child.contextfull').map((e) => e.tokens)).toEqual([100, 90]);
    expect(w.on('root', 'child.event').map((e) => [e.task, e.reason])).toEqual([
      ['root:1', 'child_contextfull'],
      ['root:2', 'child_contextfull'],
    ]);
    // At most one signal per compress: later Prepares, still full, stay quiet.
    w.answer('r4', REPLY(4));
    round(w, 5);
    expect(w.agent('c1').contextfullSignals).toBe(2);
    expect(w.monitor.violations).toEqual([]);
  });

  it('S10: a compress that brings the context below 0.9 × window leaves the latch to the next Prepare (hysteresis)', () => {
    const w = childWithRounds(3);
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    w.answer('c1:1', 'sum');
    expect(w.agent('c1').state).toBe('running');
    // 53 tokens now: the next Prepare re-arms, the one after the next full round signals.
    round(w, 4);
    expect(w.agent('c1').contextfullSignals).toBe(1);
    w.queued('r5', INPUT(5), { source: 'qq', channel: 'qq/a' });
    expect(w.agent('c1').contextfullSignals).toBe(2);
  });

  it('S9 docs/spec.md §10.4: a compress clears a pending note: the round it preempted ends with the automatic record', () => {
    const w = childWithRounds(3);
    w.queued('job', 'long job', { source: 'qq', channel: 'qq/a' });
    w.answer('job', '', [{ name: 'inputch_note', args: '{"text":"written before the compress"}' }]);
    w.modelCall('job');
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'c1:1' })]);
    w.answer('c1:1', 'sum');
    w.answer('job', 'long done');
    expect(w.agent('c1').table).toEqual([
      { inputch: 'qq/a', atMs: 0, proactive: false, text: 'round done: input=long job, output=long done' },
    ]);
  });

  it('S10: when the summary call fails the older events are dropped, counted, and a later inspect shows the count', () => {
    const w = childWithRounds(3);
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    w.failModel('c1:1', 'provider down');
    expect(w.replyOf('c1:1')).toEqual({ kind: 'done', reply: 'compressed: 2 events dropped (summary failed), 1 kept' });
    expect(w.on('c1', 'child.compress')).toEqual([
      expect.objectContaining({ older: 2, kept: 1, summarised: false, dropped: 2 }),
    ]);
    expect(w.agent('c1')).toMatchObject({ droppedByCompress: 2, state: 'running', tableSize: 0 });
    expect(w.agent('c1').context.map((e) => e.task)).toEqual(['r3']);
    const inspected = JSON.parse(w.control('root:1', { action: 'inspect', id: 'c1' }).result) as Record<
      string,
      unknown
    >;
    expect(inspected).toMatchObject({
      droppedByCompress: 2,
      contextEvents: 1,
      contextTokens: 50,
      window: 100,
      state: 'running',
    });
  });

  it('S10: with nothing older than the kept events, compress changes nothing, calls no model and succeeds', () => {
    const w = childWithRounds(1);
    w.queued('boss', 'tidy up');
    w.control('boss', { action: 'compress', id: 'c1' });
    expect(w.replyOf('c1:1')).toEqual({ kind: 'done', reply: 'compressed: nothing older to summarise' });
    expect(w.requests('c1:1')).toEqual([]);
    expect(w.agent('c1').context.map((e) => e.task)).toEqual(['r1']);
    expect(w.agent('c1').table).toEqual([]);
  });

  it('S10: the compress task is critical as a whole: a parent message waits for it, then runs; the task it preempted resumes', () => {
    const w = childWithRounds(3);
    w.queued('job', 'long job', { source: 'qq', channel: 'qq/a' });
    w.modelCall('job');
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"c1"}' }]);
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'c1:1' })]);
    w.control('root:1', { action: 'send', id: 'c1', text: 'hurry' });
    expect(w.on('c1', 'preempt.deferred')).toEqual([
      expect.objectContaining({ task: 'c1:2', victim: 'c1:1', reason: 'critical' }),
    ]);
    w.answer('c1:1', 'sum');
    expect(
      w
        .on('c1', 'task.start')
        .map((e) => e.task)
        .slice(-2),
    ).toEqual(['c1:1', 'c1:2']);
    w.answer('c1:2', 'hurried');
    w.answer('job', 'long done');
    expect(w.replyOf('job').kind).toBe('done');
    expect(w.monitor.violations).toEqual([]);
  });
});

describe('inspect (docs/spec.md §10.3)', () => {
  it("S7: inspect while the child streams a long task: a snapshot, and the child's trace and dump are the same before and after", () => {
    const w = childWithRounds(1);
    w.queued('base', 'suspended below', { source: 'qq', channel: 'qq/a' });
    w.interrupt('job', 'L2', 'long job', { source: 'qq', channel: 'qq/a' });
    const call = w.modelCall('job').callId;
    w.chunks(call, [{ type: 'text', text: 'partial' }]);
    w.interrupt('later', 'L1', 'waiting', { source: 'qq', channel: 'qq/a' });
    w.queued('next', 'queued behind', { source: 'qq', channel: 'qq/a' });
    w.queued('boss', 'check on c1');
    const childEvents = w.rec.events.filter((e) => e.agent === 'c1').length;
    const before = w.agent('c1');
    const commandsBefore = w.log.length;

    const inspected = w.control('boss', { action: 'inspect', id: 'c1' });
    expect(inspected.ok).toBe(true);
    expect(JSON.parse(inspected.result)).toEqual({
      id: 'c1',
      kind: 'resident',
      state: 'running',
      table: [
        { inputch: 'qq/a', atMs: 0, proactive: false, text: `round done: input=${INPUT(1)}, output=${REPLY(1)}` },
      ],
      tempTriples: [],
      scheduler: { running: 'job', immediate: null, levelQueued: 1, queued: 1, stackDepth: 1 },
      contextEvents: 1,
      contextTokens: 50,
      window: 100,
      droppedByCompress: 0,
      offloadOwned: false,
    });

    expect(w.rec.events.filter((e) => e.agent === 'c1')).toHaveLength(childEvents);
    expect(w.agent('c1')).toEqual(before);
    expect(w.isOpen(call)).toBe(true);
    expect(w.log.slice(commandsBefore).filter((c) => 'agent' in c && c.agent === 'c1')).toEqual([]);
    w.answer('job', 'long done');
    expect(w.replyOf('job').kind).toBe('done');
  });
});
