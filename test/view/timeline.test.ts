/**
 * The timeline model built from real simulated traces (E5, E4) and from hand-written lines
 * for what a simulated run does not produce: unknown event types, unreadable lines, traces cut short,
 * lines out of order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTimeline, parseTrace, type Lane, type TimelineModel } from '../../src/view/index.ts';
import { start, submitted, terminal } from './trace-events.ts';
import { lines, traceOf } from './trace-lines.ts';

function model(text: string): TimelineModel {
  return buildTimeline(parseTrace(text));
}

function onlyLane(m: TimelineModel): Lane {
  expect(m.lanes).toHaveLength(1);
  const lane = m.lanes[0];
  if (lane === undefined) throw new Error('no lane');
  return lane;
}

function id(lane: Lane, index: number): string {
  return lane.tasks[index]?.id ?? `#${index}`;
}

describe('E5 nested to the bound', () => {
  let m: TimelineModel;
  let lane: Lane;
  beforeAll(async () => {
    m = model(await traceOf('scenarios/e5-nested-to-the-bound.json'));
    lane = onlyLane(m);
  });

  it('reads the header and every event', () => {
    expect(m.title).toBe('e5-nested-to-the-bound  seed 1');
    expect(m.events).toBe(83);
    expect(m.lines).toHaveLength(83);
    expect(m.problems).toEqual([]);
    expect(m.lines[0]).toMatch(/^t=0ms #1 root {2}task\.submitted {4}q queued/);
  });

  it('puts the four suspensions in slots 1..4, each nested inside the one below it', () => {
    expect(lane.stack.map((slot) => slot.map((s) => id(lane, s.task)))).toEqual([['q'], ['l1'], ['l2'], ['l3']]);
    const spans = lane.stack.map((slot) => slot[0]);
    for (let k = 1; k < spans.length; k += 1) {
      const below = spans[k - 1];
      const above = spans[k];
      if (below === undefined || above === undefined) throw new Error('missing slot span');
      expect(above.startMs).toBeGreaterThan(below.startMs);
      expect(above.endMs).toBeLessThan(below.endMs);
    }
  });

  it('resumes in the order L3, L2, L1, queued and runs the tasks in LIFO order', () => {
    const resumed = lane.stack.flat().sort((a, b) => a.endMs - b.endMs);
    expect(resumed.map((s) => lane.tasks[s.task]?.level)).toEqual([3, 2, 1, 0]);
    expect(lane.running.map((s) => id(lane, s.task))).toEqual(['q', 'l1', 'l2', 'l3', 'l4', 'l3', 'l2', 'l1', 'q']);
    expect(Math.max(...lane.depth.map((s) => s.value))).toBe(4);
    expect(lane.depth[lane.depth.length - 1]?.value).toBe(0);
  });

  it('draws one preemption per suspension, from the preempting task to the preempted one', () => {
    expect(lane.preemptions.map((p) => `${id(lane, p.by)}→${id(lane, p.victim)}@${p.slot}`)).toEqual([
      'l1→q@1',
      'l2→l1@2',
      'l3→l2@3',
      'l4→l3@4',
    ]);
    for (const p of lane.preemptions) expect(p.armedAtMs).toBe(p.atMs);
  });

  it('gives every task its own track, since all five are alive at once', () => {
    expect(lane.tracks).toBe(5);
    expect(lane.tasks.map((t) => t.track)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('E4 priority stress', () => {
  let lane: Lane;
  beforeAll(async () => {
    lane = onlyLane(model(await traceOf('scenarios/e4-priority-stress.json')));
  });

  it("tiles every task's lifetime with its spans and ends each task once", () => {
    expect(lane.tasks).toHaveLength(200);
    for (const task of lane.tasks) {
      expect(task.terminal).not.toBeNull();
      expect(task.spans[0]?.startMs).toBe(task.submittedAtMs);
      expect(task.spans[task.spans.length - 1]?.endMs).toBe(task.endAtMs);
      for (let i = 1; i < task.spans.length; i += 1) expect(task.spans[i]?.startMs).toBe(task.spans[i - 1]?.endMs);
    }
  });

  it('packs lifetimes into tracks on which no two tasks overlap', () => {
    expect(lane.tracks).toBeLessThan(lane.tasks.length);
    const byTrack = new Map<number, { start: number; end: number }[]>();
    for (const t of lane.tasks)
      byTrack.set(t.track, [...(byTrack.get(t.track) ?? []), { start: t.submittedAtMs, end: t.endAtMs }]);
    for (const lives of byTrack.values()) {
      lives.sort((a, b) => a.start - b.start);
      for (let i = 1; i < lives.length; i += 1) expect(lives[i]?.start).toBeGreaterThan(lives[i - 1]?.end ?? Infinity);
    }
  });

  it('counts suspensions and resumes alike, and never has two tasks running', () => {
    const suspended = lane.tasks.reduce((n, t) => n + t.spans.filter((s) => s.state === 'suspended').length, 0);
    expect(lane.preemptions).toHaveLength(suspended);
    expect(lane.stack.flat()).toHaveLength(suspended);
    for (let i = 1; i < lane.running.length; i += 1)
      expect(lane.running[i]?.startMs).toBeGreaterThanOrEqual(lane.running[i - 1]?.endMs ?? Infinity);
  });
});

describe('traces the simulator does not write', () => {
  it('marks invariant violations, and keeps event types it does not know as "other" markers', () => {
    const m = model(
      lines(
        {
          t: 0,
          type: 'task.submitted',
          task: 'a',
          class: 'interrupt',
          level: 2,
          kernel: false,
          source: 'qq',
          channel: 'qq',
        },
        { t: 0, type: 'task.start', task: 'a', from: 'level' },
        { t: 3, type: 'invariant.violation', invariant: 'STACK', task: 'a', message: 'depth 5 > 4', cause: 2 },
        { t: 4, type: 'child.spawn', child: 'r1' },
      ),
    );
    const lane = onlyLane(m);
    expect(lane.markers.map((x) => [x.kind, x.atMs, x.task === null ? null : id(lane, x.task)])).toEqual([
      ['violation', 3, 'a'],
      ['other', 4, null],
    ]);
    expect(m.lines[2]).toBe('t=3ms #3 root  invariant.violation  STACK a "depth 5 > 4" cause=#2');
    expect(m.lines[3]).toBe('t=4ms #4 root  child.spawn       child=r1');
  });

  it('shows a known event whose fields changed shape as its plain fields', () => {
    const m = model(lines({ t: 1, type: 'stop', task: 's' }));
    expect(m.lines[0]).toBe('t=1ms #1 root  stop              task=s');
    expect(onlyLane(m).markers.map((x) => x.kind)).toEqual(['stop']);
  });

  it('names unreadable lines and reads the rest', () => {
    const text = [
      '{"type":"trace.header","scenario":"cut","seed":3}',
      'not json',
      '[1,2]',
      '{"seq":2,"t":"soon","agent":"root","type":"task.start"}',
      lines({
        t: 5,
        type: 'task.submitted',
        task: 'q',
        class: 'queued',
        level: null,
        kernel: false,
        source: null,
        channel: null,
      }),
    ].join('\n');
    const m = model(text);
    expect(m.title).toBe('cut  seed 3');
    expect(m.problems).toEqual(['line 2: not JSON', 'line 3: not a JSON object', 'line 4: t is not a number']);
    expect(m.events).toBe(1);
  });

  it('draws the last run of a file serve appended to across restarts', () => {
    const submitted = {
      type: 'task.submitted',
      class: 'queued',
      level: null,
      kernel: false,
      source: null,
      channel: null,
    };
    const text = [
      '{"type":"trace.header","serve":"0.1.0","startedAtMs":1000}',
      lines({ t: 1000, task: 'http-1', ...submitted }, { t: 1001, task: 'http-2', ...submitted }),
      '{"type":"trace.header","serve":"0.1.0","startedAtMs":5000}',
      lines({ t: 5000, task: 'http-3', ...submitted }),
    ].join('\n');
    const m = model(text);
    expect(m.events).toBe(1);
    expect(m.problems).toEqual([]);
    expect(onlyLane(m).tasks.map((t) => t.id)).toEqual(['http-3']);
  });

  it('closes the spans of a trace cut short at its last event, with no terminal', () => {
    const lane = onlyLane(
      model(
        lines(
          {
            t: 0,
            type: 'task.submitted',
            task: 'q',
            class: 'queued',
            level: null,
            kernel: false,
            source: null,
            channel: null,
          },
          { t: 2, type: 'task.start', task: 'q', from: 'queue' },
          { t: 9, type: 'step.begin', task: 'q', step: 'Model', turn: 0 },
        ),
      ),
    );
    const q = lane.tasks[0];
    expect(q?.terminal).toBeNull();
    expect(q?.endAtMs).toBe(9);
    expect(q?.spans.map((s) => [s.state, s.startMs, s.endMs])).toEqual([
      ['waiting', 0, 2],
      ['running', 2, 9],
    ]);
    expect(lane.running).toEqual([{ startMs: 2, endMs: 9, task: 0 }]);
  });

  it('keeps the waiting span of no length of a task that ended the instant it arrived, not of one that started', () => {
    const lane = onlyLane(
      model(
        lines(
          submitted(0, 'run'),
          start(0, 'run'),
          submitted(5, 'refused'),
          terminal(5, 'refused', 'skipped', 'queue_full'),
          terminal(9, 'run'),
        ),
      ),
    );
    expect(lane.tasks.map((t) => [t.id, t.spans.map((s) => [s.state, s.startMs, s.endMs])])).toEqual([
      ['run', [['running', 0, 9]]],
      ['refused', [['waiting', 5, 5]]],
    ]);
  });

  it('replays lines in (t, seq) order whatever their order in the file', () => {
    const text = [
      JSON.stringify({ seq: 2, t: 4, agent: 'root', type: 'task.start', task: 'q', from: 'queue' }),
      JSON.stringify({
        seq: 1,
        t: 1,
        agent: 'root',
        type: 'task.submitted',
        task: 'q',
        class: 'queued',
        level: null,
        kernel: false,
        source: null,
        channel: null,
      }),
    ].join('\n');
    const m = model(text);
    expect(m.instants).toEqual([
      { atMs: 1, first: 0, count: 1 },
      { atMs: 4, first: 1, count: 1 },
    ]);
    expect(onlyLane(m).tasks[0]?.spans.map((s) => s.state)).toEqual(['waiting', 'running']);
  });

  it('gives each agent its own lane and groups the lines of one instant', () => {
    const m = model(
      [
        JSON.stringify({ seq: 1, t: 0, agent: 'root', type: 'agent.stop', stopped: [] }),
        JSON.stringify({ seq: 2, t: 0, agent: 'r1', type: 'agent.stop', stopped: [] }),
      ].join('\n'),
    );
    expect(m.lanes.map((l) => l.agent)).toEqual(['root', 'r1']);
    expect(m.instants).toEqual([{ atMs: 0, first: 0, count: 2 }]);
    expect(m.endMs).toBeGreaterThan(m.startMs);
  });

  it('closes the slot of a task that ends on the stack', () => {
    const lane = onlyLane(
      model(
        lines(
          {
            t: 0,
            type: 'task.submitted',
            task: 'q',
            class: 'queued',
            level: null,
            kernel: false,
            source: null,
            channel: null,
          },
          { t: 0, type: 'task.start', task: 'q', from: 'queue' },
          {
            t: 1,
            type: 'task.submitted',
            task: 'i',
            class: 'interrupt',
            level: 1,
            kernel: false,
            source: null,
            channel: null,
          },
          {
            t: 1,
            type: 'task.suspend',
            task: 'q',
            by: 'i',
            step: 'Model',
            level: null,
            eff: 0,
            depthAfter: 1,
            reason: 'preempt',
          },
          { t: 1, type: 'task.start', task: 'i', from: 'immediate' },
          { t: 6, type: 'task.terminal', task: 'q', kind: 'cancelled', reason: 'agent_stopped', reply: null },
        ),
      ),
    );
    expect(lane.stack).toEqual([[{ startMs: 1, endMs: 6, task: 0 }]]);
    expect(lane.depth.map((s) => s.value)).toEqual([1, 0]);
    expect(lane.preemptions).toEqual([{ armedAtMs: null, atMs: 1, by: 1, victim: 0, slot: 1 }]);
    expect(lane.running.map((s) => [id(lane, s.task), s.startMs, s.endMs])).toEqual([
      ['q', 0, 1],
      ['i', 1, 6],
    ]);
  });
});
