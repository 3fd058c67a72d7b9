/**
 * The page data's lanes (src/view/page-data.ts) from a hand-made model: the per-track span arrays in
 * order of start whatever the order of the lane's tasks, the lane itself left as it was, and the
 * fields of a task that has not ended.
 */
import { describe, expect, it } from 'vitest';
import type { Lane, TaskRow, TimelineModel } from '../../src/view/model.ts';
import { pageData, scriptJson } from '../../src/view/page-data.ts';

function task(index: number, submittedAtMs: number, endAtMs: number, track: number, ended: boolean): TaskRow {
  return {
    id: `t${index}`,
    index,
    level: 0,
    kernel: false,
    submittedAtMs,
    endAtMs,
    spans: [{ startMs: submittedAtMs, endMs: endAtMs, state: 'running' }],
    terminal: ended ? { kind: 'failed', reason: 'timeout', atMs: endAtMs } : null,
    track,
  };
}

function model(tasks: TaskRow[]): TimelineModel {
  const lane: Lane = {
    agent: 'root',
    tasks,
    running: [],
    stack: [],
    depth: [],
    waiting: [],
    preemptions: [],
    markers: [],
    tracks: 2,
  };
  return {
    title: 'page data',
    header: null,
    startMs: 0,
    endMs: 40,
    wallStartMs: null,
    events: 0,
    lanes: [lane],
    lines: [],
    instants: [],
    problems: [],
  };
}

describe('pageData lanes', () => {
  // In lane order t0 starts last: track 0 holds t2 (0–5), then t0 (20–30); track 1 holds t1 alone.
  const tasks = [task(0, 20, 30, 0, true), task(1, 3, 40, 1, false), task(2, 0, 5, 0, true)];

  it('writes each track’s spans in order of start, whatever the order of the lane’s tasks', () => {
    const [lane] = pageData(model(tasks)).lanes;
    expect(lane?.tracks).toEqual([
      [0, 5, 1, 2, 20, 30, 1, 0],
      [3, 40, 1, 1],
    ]);
  });

  it('leaves the lane’s tasks in their order: ids, lives and levels stay by index', () => {
    const m = model(tasks);
    const [lane] = pageData(m).lanes;
    expect(lane?.ids).toEqual(['t0', 't1', 't2']);
    expect(lane?.lives).toEqual([20, 30, 0, 3, 40, 1, 0, 5, 0]);
    expect(m.lanes[0]?.tasks.map((t) => t.id)).toEqual(['t0', 't1', 't2']);
  });

  it('gives a task that has not ended an empty terminal kind and reason', () => {
    const [lane] = pageData(model(tasks)).lanes;
    expect(lane?.terminals).toEqual(['failed', '', 'failed']);
    expect(lane?.terminalReasons).toEqual(['timeout', '', 'timeout']);
  });
});

describe('scriptJson', () => {
  it('escapes both line and paragraph separators, which end a line inside a script', () => {
    expect(scriptJson('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
    expect(JSON.parse(scriptJson('a\u2028b\u2029c'))).toBe('a\u2028b\u2029c');
  });
});
