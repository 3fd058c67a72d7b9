/**
 * The offload triage helper (docs/spec.md §10.7, T1–T4), driven by whole scenarios: a root busy in a long
 * tool with queued inputs piling up behind it.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../../src/sim/scenario/index.ts';
import { runScenario } from '../../../src/sim/simulation.ts';
import type { Report } from '../../../src/sim/report/index.ts';
import type { TraceEvent } from '../../../src/kernel/index.ts';

interface Run {
  readonly report: Report;
  readonly events: readonly TraceEvent[];
}

async function run(doc: Record<string, unknown>): Promise<Run> {
  const parsed = parseScenario({ version: 1, name: 'offload', ...doc });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const outcome = await runScenario(parsed.scenario);
  if (outcome.kind !== 'report') throw new Error('unusable');
  return { report: outcome.report, events: outcome.record.events };
}

/** A root busy for 20 s in one tool call, and `queued` plain queued inputs arriving at 100 ms steps. */
function busyRoot(
  offload: Record<string, unknown> | null,
  queued: number,
  extraInputs: unknown[] = [],
): Record<string, unknown> {
  const inputs: unknown[] = [
    { id: 'busy', class: 'queued', at: 0, replies: [{ tools: [{ name: 'slow' }] }, { text: 'done busy' }] },
  ];
  for (let i = 1; i <= queued; i += 1) inputs.push({ id: `q${i}`, class: 'queued', at: 100 * i });
  return {
    ...(offload === null ? {} : { kernel: { offload } }),
    tools: { slow: { durationMs: 20_000 } },
    inputs: [...inputs, ...extraInputs],
  };
}

const moves = (events: readonly TraceEvent[]): Extract<TraceEvent, { type: 'task.moved' }>[] =>
  events.filter((e): e is Extract<TraceEvent, { type: 'task.moved' }> => e.type === 'task.moved');

describe('offload triage (docs/spec.md §10.7)', () => {
  it('T4: is off by default — nothing moves, no helper, no offload timer', async () => {
    const { report, events } = await run(busyRoot(null, 5));
    expect(Object.keys(report.agents)).toEqual(['root']);
    expect(moves(events)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('T1: triggers only after busyAfterMs with at least minPending queued inputs waiting', async () => {
    const { report, events } = await run(busyRoot({ enabled: true, busyAfterMs: 5_000, minPending: 3 }, 3));
    const moved = moves(events);
    expect(moved.map((m) => m.task)).toEqual(['q1', 'q2', 'q3']);
    // The check runs every max(1 000, 5 000 / 5) ms from the first start: the first check at or after 5 s.
    expect(moved.every((m) => m.t === 5_000)).toBe(true);
    expect(report.agents['offload-1']?.parent).toBe('root');
    expect(report.ok).toBe(true);

    // One input short of minPending: the root stays busy, nothing moves.
    const fewer = await run(busyRoot({ enabled: true, busyAfterMs: 5_000, minPending: 3 }, 2));
    expect(moves(fewer.events)).toEqual([]);
    expect(Object.keys(fewer.report.agents)).toEqual(['root']);
  });

  it('T2: moves only plain queued inputs and keeps their responders (their one terminal, their replies)', async () => {
    const interrupt = { id: 'int', class: 'interrupt', level: 'L1', at: 250 };
    const { report, events } = await run(
      busyRoot({ enabled: true, busyAfterMs: 5_000, minPending: 3 }, 3, [interrupt]),
    );
    expect(moves(events).map((m) => m.task)).toEqual(['q1', 'q2', 'q3']);
    for (const id of ['q1', 'q2', 'q3']) {
      const task = report.tasks[id];
      expect(task?.agent).toBe('offload-1');
      expect(task?.movedFrom).toEqual(['root']);
      expect(task?.terminal).toBe('done');
      expect(task?.terminalCount).toBe(1);
      expect(task?.reply).toBe(`ok ${id}`);
    }
    expect(report.tasks.int?.agent).toBe('root');
    // The notice waits at the head of the root's queue: a kernel task of the root.
    const notice = Object.entries(report.tasks).find(([id]) => id.startsWith('root:'));
    expect(notice?.[1].source).toBe('kernel/offload');
    expect(report.ok).toBe(true);
  });

  it('T3: reuses a running helper and respects maxHelpers', async () => {
    // Helpers answer slowly, so the first is still busy when the second batch is due.
    const slowReplies = (id: string): Record<string, unknown> => ({
      id,
      class: 'queued',
      replies: [{ text: `ok ${id}`, firstChunkMs: 30_000 }],
    });
    const first = [1, 2, 3].map((i) => ({ ...slowReplies(`a${i}`), at: 100 * i }));
    const second = [1, 2, 3].map((i) => ({ ...slowReplies(`b${i}`), at: 6_000 + 100 * i }));
    const third = [1, 2, 3].map((i) => ({ ...slowReplies(`c${i}`), at: 8_000 + 100 * i }));
    const doc = {
      kernel: { offload: { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2 } },
      tools: { slow: { durationMs: 60_000 } },
      inputs: [
        { id: 'busy', class: 'queued', at: 0, replies: [{ tools: [{ name: 'slow' }] }, { text: 'done busy' }] },
        ...first,
        ...second,
        ...third,
      ],
    };
    const { report, events } = await run(doc);
    const helpers = Object.keys(report.agents).filter((id) => id.startsWith('offload-'));
    expect(helpers).toEqual(['offload-1', 'offload-2']);
    const to = new Map(moves(events).map((m) => [m.task, m.to]));
    expect(['a1', 'a2', 'a3'].map((id) => to.get(id))).toEqual(['offload-1', 'offload-1', 'offload-1']);
    expect(['b1', 'b2', 'b3'].map((id) => to.get(id))).toEqual(['offload-2', 'offload-2', 'offload-2']);
    // Both helpers are busy and maxHelpers is reached: the third batch goes to a live one, no third helper.
    expect(['c1', 'c2', 'c3'].every((id) => helpers.includes(to.get(id) ?? ''))).toBe(true);
    expect(Object.values(report.tasks).every((t) => t.terminalCount === 1)).toBe(true);
    expect(report.ok).toBe(true);
  });
});
