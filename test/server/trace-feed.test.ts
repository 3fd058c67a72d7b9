/**
 * The live trace feed behind `GET /v1/events` (src/server/trace-feed.ts) without HTTP: which lines a
 * `Last-Event-ID` gets back from the ring of the last RECENT_EVENTS_MAX lines, empty and wrapped, when a
 * snapshot stands in instead, the periodic status frame, and the end of every stream at close.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { RECENT_EVENTS_MAX, STATUS_INTERVAL_MS, TraceFeed, type FeedListener } from '../../src/server/trace-feed.ts';

function event(seq: number): TraceEvent {
  return { seq, t: seq, agent: 'root', type: 'stop', task: `t${seq}`, cancelled: [], marked: null };
}

/** What a listener got: the ids of its trace frames, `status` for a snapshot, `end` when ended. */
function watch(feed: TraceFeed, lastSeq: number | null): { got: string[]; stop: (() => void) | null } {
  const got: string[] = [];
  const listener: FeedListener = {
    frame: (text) => {
      for (const frame of text.split('\n\n').filter((f) => f !== ''))
        got.push(frame.startsWith('event: status') ? 'status' : (/^id: (\d+)$/m.exec(frame)?.[1] ?? frame));
    },
    end: () => got.push('end'),
  };
  return { got, stop: feed.listen(lastSeq, listener) };
}

const ids = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

describe('TraceFeed', () => {
  it('before any event: Last-Event-ID 0 is answered with nothing missed, anything later with a snapshot', () => {
    const feed = new TraceFeed(() => ({ up: true }));
    expect(watch(feed, 0).got).toEqual([]);
    expect(watch(feed, 1).got).toEqual(['status']);
    expect(watch(feed, null).got).toEqual(['status']);
    feed.close();
  });

  it('replays what is after a kept Last-Event-ID; one before the ring, or past the newest, gets a snapshot', () => {
    const feed = new TraceFeed(() => ({}));
    for (let seq = 1; seq <= 5; seq += 1) feed.emit(event(seq));
    expect(watch(feed, 0).got).toEqual(ids(1, 5));
    expect(watch(feed, 3).got).toEqual(ids(4, 5));
    expect(watch(feed, 5).got).toEqual([]);
    expect(watch(feed, 6).got).toEqual(['status']);
    feed.close();
  });

  it('once the ring wrapped, the oldest kept line bounds the replay', () => {
    const feed = new TraceFeed(() => ({}));
    const newest = RECENT_EVENTS_MAX + 10;
    for (let seq = 1; seq <= newest; seq += 1) feed.emit(event(seq));
    expect(watch(feed, 9).got).toEqual(['status']);
    expect(watch(feed, 10).got).toEqual(ids(11, newest));
    expect(watch(feed, newest - 2).got).toEqual(ids(newest - 1, newest));
    expect(watch(feed, newest).got).toEqual([]);
    expect(watch(feed, newest + 1).got).toEqual(['status']);
    feed.close();
  });

  it('sends a status frame while events flow, to the listeners still there, and none after close', async () => {
    const feed = new TraceFeed(() => ({}));
    const stays = watch(feed, 0);
    const leaves = watch(feed, 0);
    feed.emit(event(1));
    leaves.stop?.();
    await new Promise((resolve) => setTimeout(resolve, STATUS_INTERVAL_MS + 50));
    expect(stays.got).toEqual(['1', 'status']);
    expect(leaves.got).toEqual([]);
    feed.emit(event(2));
    feed.close();
    await new Promise((resolve) => setTimeout(resolve, STATUS_INTERVAL_MS + 50));
    expect(stays.got).toEqual(['1', 'status', '2', 'end']);
  });

  it('a status frame due when every listener left is not built', async () => {
    let snapshots = 0;
    const feed = new TraceFeed(() => {
      snapshots += 1;
      return {};
    });
    const only = watch(feed, 0);
    feed.emit(event(1));
    only.stop?.();
    await new Promise((resolve) => setTimeout(resolve, STATUS_INTERVAL_MS + 50));
    expect(snapshots).toBe(0);
    feed.close();
  });

  it('close ends every stream once, and a closed feed takes no listener', () => {
    const feed = new TraceFeed(() => ({}));
    const a = watch(feed, null);
    feed.close();
    feed.close();
    expect(a.got).toEqual(['status', 'end']);
    expect(watch(feed, null).stop).toBeNull();
    expect(feed.watchers).toBe(0);
  });
});
