/**
 * The offload triage helper's timing and choices (docs/spec.md §10.7, T1–T3), driven step by step: the root
 * is busy at an open model call, the test fires the kernel's `offload:root` timer and reads where the
 * queued inputs went (`task.moved`), which helpers exist, and what the root's model reads afterwards.
 */
import { describe, expect, it } from 'vitest';
import type { OffloadConfig } from '../../../src/kernel/config.ts';
import { MemoryError, type ChildMemory, type ChildMemoryFactory } from '../../../src/kernel/ports/graph-memory.ts';
import { EMPTY_RECALL } from '../../../src/kernel/memory/rules.ts';
import { KernelWorld, SYSTEM_PROMPT } from '../../support/kernel-world.ts';
import { TreeWorld } from './tree-world.ts';

const TIMER = 'offload:root';

function world(offload: Partial<OffloadConfig> = {}): TreeWorld {
  return new TreeWorld({ offload: { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2, ...offload } });
}

/** Queues `ids` on the root as plain inputs, 100 ms apart from now. */
function queue(w: TreeWorld, ids: readonly string[]): void {
  for (const id of ids) w.at(w.now + 100).queued(id, `input ${id}`);
}

/** Fires the offload timer until it is due after `untilMs`. */
function fireUntil(w: TreeWorld, untilMs: number): void {
  for (let due = w.timers().get(TIMER); due !== undefined && due <= untilMs; due = w.timers().get(TIMER))
    w.fireTimer(TIMER);
}

/** Where each moved task went, in the order of the moves. */
function movedTo(w: TreeWorld): Record<string, string> {
  return Object.fromEntries(w.events('task.moved').map((m) => [m.task, m.to]));
}

const helpers = (w: TreeWorld): string[] =>
  w.kernel
    .dump()
    .agents.filter((a) => a.parent === 'root')
    .map((a) => a.id);

describe('offload timing (docs/spec.md §10.7)', () => {
  it("T1: the check runs every max(1 000, busyAfterMs / 5) ms from the first start of the root's running task", () => {
    for (const [busyAfterMs, period] of [
      [10_000, 2_000],
      [2_500, 1_000],
    ] as const) {
      const w = world({ busyAfterMs });
      w.at(700).queued('busy', 'a long job');
      expect(w.timers().get(TIMER), `busyAfterMs ${busyAfterMs}`).toBe(700 + period);
      w.fireTimer(TIMER);
      expect(w.timers().get(TIMER), `busyAfterMs ${busyAfterMs}`).toBe(700 + 2 * period);
    }
  });

  it('T1: an idle root keeps no offload timer, even while a child works', () => {
    const w = world();
    w.child({ id: 'c1' });
    w.queued('job', 'child work', { agent: 'c1' });
    expect(w.modelCall('job').agent).toBe('c1');
    expect(w.timers().has(TIMER)).toBe(false);
    // Once the root's task ends, the next check finds it idle and sets no new timer.
    w.queued('busy', 'a short job');
    expect(w.timers().has(TIMER)).toBe(true);
    w.answer('busy', 'done');
    w.fireTimer(TIMER);
    expect(w.timers().has(TIMER)).toBe(false);
    expect(w.events('task.moved')).toEqual([]);
  });

  it('T1: busy means busyAfterMs since the running task first started, not since time 0', () => {
    const w = world();
    w.at(3_000).queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3']);
    fireUntil(w, 7_000);
    expect(w.events('task.moved')).toEqual([]);
    w.fireTimer(TIMER);
    expect(w.now).toBe(8_000);
    expect(movedTo(w)).toEqual({ q1: 'offload-1', q2: 'offload-1', q3: 'offload-1' });
    expect(w.events('task.moved').every((m) => m.t === 8_000)).toBe(true);
  });

  it("docs/spec.md §10.2a step 5: the root's stop clears the offload timer; a late firing moves nothing and sets none", () => {
    const w = world();
    w.queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3']);
    expect(w.timers().has(TIMER)).toBe(true);
    w.stopAgent();
    expect(w.commands('timer.clear').map((c) => c.id)).toContain(TIMER);
    expect(w.timers().has(TIMER)).toBe(false);
    w.at(10_000).handle({ type: 'timer.fired', id: TIMER });
    expect(w.last).toEqual([]);
    expect(w.events('task.moved')).toEqual([]);
    expect(helpers(w)).toEqual([]);
  });
});

describe('offload choices (docs/spec.md §10.7)', () => {
  it("T2: the root's model reads one notice naming how many inputs moved and to which helper", () => {
    const w = world();
    w.queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3', 'q4']);
    fireUntil(w, 5_000);
    w.answer('busy', 'finally done');
    expect(w.modelCall('root:1').request.messages.at(-1)).toEqual({
      role: 'user',
      content: '[kernel] offloaded 4 queued inputs to offload-1',
    });
  });

  it('T3: a helper that has finished its work is reused rather than a new one spawned', () => {
    const w = world();
    w.queued('busy', 'a long job');
    queue(w, ['a1', 'a2', 'a3']);
    fireUntil(w, 5_000);
    for (const id of ['a1', 'a2', 'a3']) w.answer(id, `did ${id}`);
    queue(w, ['b1', 'b2', 'b3']);
    fireUntil(w, 6_000);
    expect(movedTo(w)).toMatchObject({ b1: 'offload-1', b2: 'offload-1', b3: 'offload-1' });
    expect(helpers(w)).toEqual(['offload-1']);
  });

  it('T3: only live helpers the kernel spawned count: an idle resident of the root and a stopped helper are never chosen', () => {
    const w = world();
    w.child({ id: 'c1' });
    w.queued('busy', 'a long job');
    queue(w, ['a1', 'a2', 'a3']);
    fireUntil(w, 5_000);
    expect(movedTo(w)).toEqual({ a1: 'offload-1', a2: 'offload-1', a3: 'offload-1' });
    // The stopped offload-1 is not reused; the next helper gets the next number.
    expect(w.destroy('offload-1', { residual: 'drop' })).toEqual({ kind: 'destroyed' });
    queue(w, ['b1', 'b2', 'b3']);
    fireUntil(w, 6_000);
    expect(movedTo(w)).toMatchObject({ b1: 'offload-2', b2: 'offload-2', b3: 'offload-2' });
    expect(helpers(w)).toEqual(['c1', 'offload-1', 'offload-2']);
    expect(w.on('c1', 'task.submitted')).toEqual([]);
  });

  it('T3: with maxHelpers busy helpers the least loaded takes the inputs, the first of them on a tie', () => {
    const w = world();
    w.queued('busy', 'a long job');
    queue(w, ['a1', 'a2', 'a3']);
    fireUntil(w, 5_000);
    queue(w, ['b1', 'b2', 'b3']);
    fireUntil(w, 6_000);
    // Three inputs each: a tie, so the first helper takes the next batch.
    queue(w, ['c1', 'c2', 'c3']);
    fireUntil(w, 7_000);
    // Now offload-1 has six and offload-2 three: offload-2 is the least loaded.
    queue(w, ['d1', 'd2', 'd3']);
    fireUntil(w, 8_000);
    const to = movedTo(w);
    expect(['a1', 'b1', 'c1', 'c3', 'd1', 'd3'].map((id) => to[id])).toEqual([
      'offload-1',
      'offload-2',
      'offload-1',
      'offload-1',
      'offload-2',
      'offload-2',
    ]);
    expect(helpers(w)).toEqual(['offload-1', 'offload-2']);
    expect(w.monitor.violations).toEqual([]);
  });
});

/** A light memory that holds nothing: enough for a child to be made. */
const NO_MEMORY: ChildMemory = {
  recall: () => EMPTY_RECALL,
  commit: () => ({ added: 0, skipped: 0 }),
  exportTriples: () => [],
  promote: () => ({ added: 0, skipped: 0 }),
  discard: () => undefined,
};

describe('the kernel knows its helpers by a flag, never by their id (docs/spec.md §10.7)', () => {
  it("T3: a child the parent named offload-1 is never taken for a helper: the backlog goes to a helper of the kernel's, whose id skips the taken one", () => {
    const w = world();
    w.child({ id: 'offload-1' });
    w.queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3']);
    fireUntil(w, 5_000);
    expect(movedTo(w)).toEqual({ q1: 'offload-2', q2: 'offload-2', q3: 'offload-2' });
    expect(w.on('offload-1', 'task.submitted')).toEqual([]);
    expect(helpers(w)).toEqual(['offload-1', 'offload-2']);
    // maxHelpers counts the kernel's helpers only: a second busy period spawns offload-3.
    queue(w, ['r1', 'r2', 'r3']);
    fireUntil(w, 6_000);
    expect(movedTo(w)).toMatchObject({ r1: 'offload-3', r2: 'offload-3', r3: 'offload-3' });
    expect(w.monitor.violations).toEqual([]);
  });

  it('T3: the flag shows as offloadOwned in the dump and in resident_agents list and inspect', () => {
    const w = world();
    w.child({ id: 'offload-1' });
    w.queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3']);
    fireUntil(w, 5_000);
    expect(w.kernel.dump().agents.map((a) => [a.id, a.offloadOwned])).toEqual([
      ['root', false],
      ['offload-1', false],
      ['offload-2', true],
    ]);
    w.answer('busy', '', [{ name: 'resident_agents', args: '{"action":"list"}' }]);
    const listed = JSON.parse(w.lastToolEnd('busy').result) as { id: string; offloadOwned: boolean }[];
    expect(listed.map((c) => [c.id, c.offloadOwned])).toEqual([
      ['offload-1', false],
      ['offload-2', true],
    ]);
    for (const [id, owned] of [
      ['offload-1', false],
      ['offload-2', true],
    ] as const) {
      const inspected = JSON.parse(w.control('busy', { action: 'inspect', id }).result) as { offloadOwned: boolean };
      expect(inspected.offloadOwned, id).toBe(owned);
    }
  });

  it("docs/spec.md §10.7: a helper's system prompt is the triage prompt, on top of the inherited one; nothing is queued for it", () => {
    const w = world();
    w.queued('busy', 'a long job');
    queue(w, ['q1', 'q2', 'q3']);
    fireUntil(w, 5_000);
    expect(w.on('offload-1', 'task.submitted').map((e) => e.task)).toEqual(['q1', 'q2', 'q3']);
    const system = w.modelCall('q1').request.messages[0];
    expect(system?.role).toBe('system');
    const prompt = system?.content ?? '';
    expect(prompt.endsWith(`\n\n${SYSTEM_PROMPT}`)).toBe(true);
    // The triage: two paths, the asynchronous reply, no word of being a helper, busy when unsure.
    expect(prompt).toMatch(/^You triage /);
    expect(prompt).toContain('handle it yourself');
    expect(prompt).toContain('the main agent is busy');
    expect(prompt).toContain('output_send__<channel>');
    expect(prompt).toContain('never say that you are a temporary helper');
    expect(prompt).toContain('When unsure, reply that the main agent is busy');
  });

  it('T3: a helper that cannot be made moves nothing and uses up no number: the next one is still offload-1', () => {
    let failures = 1;
    const childMemory: ChildMemoryFactory = {
      create: () => {
        if (failures > 0) {
          failures -= 1;
          throw new MemoryError('disk full');
        }
        return NO_MEMORY;
      },
    };
    const w = new KernelWorld(
      { offload: { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2 } },
      { children: { childMemory } },
    );
    w.queued('busy', 'a long job');
    for (const id of ['q1', 'q2', 'q3']) w.at(w.now + 100).queued(id, `input ${id}`);
    for (let due = w.timers().get(TIMER); due !== undefined && due <= 5_000; due = w.timers().get(TIMER))
      w.fireTimer(TIMER);
    expect(w.events('task.moved')).toEqual([]);
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root']);
    w.fireTimer(TIMER);
    expect(w.events('task.moved').map((m) => [m.task, m.to])).toEqual([
      ['q1', 'offload-1'],
      ['q2', 'offload-1'],
      ['q3', 'offload-1'],
    ]);
  });
});
