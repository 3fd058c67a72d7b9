/**
 * The agent tree through whole simulated runs (docs/spec.md §10, §12.2): residents created at t = 0, work
 * routed to them, notify and context-full raised on the root, a compress answered by the models'
 * kernelReplies, and the scenario events that destroy or stop a child, with what becomes of its work.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { eventsOf, expectClean, fixture, runDoc, runFile, type Run } from './run-scenario.ts';

const EXAMPLE = fileURLToPath(new URL('../fixtures/resident-reports-to-parent.json', import.meta.url));

/** c1 on qq/a: `busy` in a 1 s tool from 140 ms, `q1` queued at 10 ms, `i1` (L1) deferred at 200 ms. */
function busyChild(event: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'busy-child',
    channels: [{ name: 'qq/a', plugin: 'qq' }],
    residents: [{ id: 'c1', inputChs: ['qq/a'] }],
    tools: { slow: { durationMs: 1000 } },
    inputs: [
      {
        id: 'busy',
        class: 'queued',
        source: 'qq',
        channel: 'qq/a',
        at: 0,
        replies: [{ tools: [{ name: 'slow' }] }, { text: 'never' }],
      },
      { id: 'q1', class: 'queued', source: 'qq', channel: 'qq/a', at: 10 },
      { id: 'i1', class: 'interrupt', level: 'L1', source: 'qq', channel: 'qq/a', at: 200 },
    ],
    events: [{ at: 500, ...event }],
  };
}

const fate = (run: Run, id: string): unknown => {
  const t = run.report.tasks[id];
  return [t?.agent, t?.movedFrom, t?.class, t?.level, t?.terminal, t?.reason];
};

describe('residents in a simulated run', () => {
  it("S1 S4: the example: work on the child's inputch runs on the child, which reports to the root as an L3 from child/watcher", async () => {
    const run = await runFile(EXAMPLE);
    expectClean(run);
    const { tasks } = run.report;
    expect(tasks.complaint).toMatchObject({ agent: 'watcher', terminal: 'done', channel: 'qq/support' });
    expect(tasks.lead).toMatchObject({ agent: 'root', terminal: 'done', channel: 'qq/sales' });
    expect(tasks['watcher:1']).toMatchObject({
      agent: 'watcher',
      source: 'parent/root',
      class: 'queued',
      terminal: 'done',
    });
    expect(tasks['root:1']).toMatchObject({
      agent: 'root',
      source: 'child/watcher',
      class: 'interrupt',
      level: 3,
      terminal: 'done',
    });
    expect(run.report.agents.watcher?.table).toEqual([
      expect.objectContaining({
        inputch: 'qq/support',
        proactive: false,
        text: expect.stringContaining('input=watch the support group'),
      }),
      expect.objectContaining({
        inputch: 'qq/support',
        proactive: false,
        text: 'round done: input=the app crashes on login, output=reported',
      }),
    ]);
  });

  it("S5 S10: context-full is one L4 on the root from child/c1; the root's model compresses the child, which works on", async () => {
    const run = await runFile(fixture('contextfull-compress'));
    expectClean(run);
    const { tasks, agents } = run.report;
    expect(tasks['root:1']).toMatchObject({ agent: 'root', source: 'child/c1', class: 'interrupt', level: 4 });
    expect(tasks['c1:1']).toMatchObject({
      agent: 'c1',
      source: 'parent/root',
      channel: '_compress_',
      level: 4,
      reply: 'compressed: 2 events summarised, 1 kept',
    });
    expect(agents.c1).toMatchObject({ contextfullSignals: 1, tableSize: 1 });
    expect(eventsOf(run, 'child.contextfull')).toEqual([
      expect.objectContaining({ t: 2000, tokens: 100, window: 100 }),
    ]);
    // The signal came at r3's Prepare; r3 still finished, then the compress ran, then the next round.
    expect([tasks.r3?.finishedAt, tasks['c1:1']?.startedAt, tasks['c1:1']?.finishedAt]).toEqual([2060, 2060, 2120]);
    expect(tasks.r4).toMatchObject({ agent: 'c1', terminal: 'done', submittedAt: 3000 });
  });

  it("C3: events[].destroy with residual keep moves the child's waiting inputs to the root: movedFrom, submitted class and level kept, done there", async () => {
    const run = await runDoc(busyChild({ destroy: { id: 'c1', residual: 'keep' } }));
    expectClean(run);
    expect(fate(run, 'busy')).toEqual(['c1', [], 'queued', null, 'skipped', 'agent_stopped']);
    expect(fate(run, 'q1')).toEqual(['root', ['c1'], 'queued', null, 'done', null]);
    expect(fate(run, 'i1')).toEqual(['root', ['c1'], 'interrupt', 1, 'done', null]);
    expect(run.report.tasks.q1?.finishedAt).toBeGreaterThan(500);
    expect(run.report.channels).toEqual([{ name: 'qq/a', plugin: 'qq', owner: '' }]);
  });

  it('C4: events[].destroy with residual drop ends each waiting input skipped/residual_dropped_by_parent on the child', async () => {
    const run = await runDoc(busyChild({ destroy: { id: 'c1', residual: 'drop', channels: 'keep' } }));
    expectClean(run);
    expect(fate(run, 'q1')).toEqual(['c1', [], 'queued', null, 'skipped', 'residual_dropped_by_parent']);
    expect(fate(run, 'i1')).toEqual(['c1', [], 'interrupt', 1, 'skipped', 'residual_dropped_by_parent']);
    expect(run.report.channels).toEqual([{ name: 'qq/a', plugin: 'qq', owner: 'c1' }]);
  });

  it("events[].stopAgent stops the child like a parent's stop: every task agent_stopped, nothing moved", async () => {
    const run = await runDoc(busyChild({ stopAgent: 'c1' }));
    expectClean(run);
    expect(['busy', 'q1', 'i1'].map((id) => fate(run, id))).toEqual([
      ['c1', [], 'queued', null, 'skipped', 'agent_stopped'],
      ['c1', [], 'queued', null, 'skipped', 'agent_stopped'],
      ['c1', [], 'interrupt', 1, 'skipped', 'agent_stopped'],
    ]);
    expect(eventsOf(run, 'task.moved')).toEqual([]);
    expect(eventsOf(run, 'agent.stop').map((e) => [e.agent, e.t])).toEqual([
      ['c1', 500],
      ['root', 500],
    ]);
  });

  it('S16: the root stopped at stopAt while children stream and run tools: children stop first, every task ends, no temp store is left', async () => {
    const run = await runDoc({
      name: 'root-stop',
      tools: { slow: { durationMs: 5000 } },
      residents: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3', taskPrompt: 'stand by' }],
      inputs: [
        { id: 'tooling', class: 'queued', agent: 'c1', at: 0, replies: [{ tools: [{ name: 'slow' }] }] },
        {
          id: 'talking',
          class: 'queued',
          agent: 'c2',
          at: 0,
          replies: [{ text: 'a long answer', firstChunkMs: 5000 }],
        },
        { id: 'rooting', class: 'queued', at: 0, replies: [{ text: 'root answer', firstChunkMs: 5000 }] },
      ],
      stopAt: 1000,
      expect: { terminal: { tooling: 'skipped', talking: 'skipped', rooting: 'skipped', 'c3:1': 'done' } },
    });
    expectClean(run);
    expect(eventsOf(run, 'agent.stop').map((e) => [e.agent, e.t])).toEqual([
      ['c1', 1000],
      ['c2', 1000],
      ['c3', 1000],
      ['root', 1000],
    ]);
    for (const id of ['tooling', 'talking', 'rooting']) expect(run.report.tasks[id]?.reason, id).toBe('agent_stopped');
    expect(Object.values(run.report.agents).map((a) => a.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped']);
    expect(run.events.filter((e) => e.t > 1000 && e.agent !== 'root' && !e.type.endsWith('.late'))).toEqual([]);
  });
});
