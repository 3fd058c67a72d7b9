import { describe, expect, it } from 'vitest';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import { planCompress, COMPRESS_KEEP_MAX } from '../../../src/kernel/children/compress-plan.ts';
import { ContextFullLatch, stateAfterCompress } from '../../../src/kernel/children/context-full.ts';
import { disposeChannels } from '../../../src/kernel/children/dispositions.ts';
import { ProcessingTable } from '../../../src/kernel/children/processing-table.ts';

describe('processing table (docs/spec.md §10.4)', () => {
  it("S8 a successful round without a note gets an automatic record on the task's own inputch", () => {
    const t = new ProcessingTable();
    const r = t.roundDone({ task: 'c1', inputch: 'qq/help', input: 'where is my parcel', output: 'on its way' }, 120);
    expect(r).toEqual({
      inputch: 'qq/help',
      atMs: 120,
      proactive: false,
      text: 'round done: input=where is my parcel, output=on its way',
    });
    expect(t.size).toBe(1);
  });

  it('S9 inputch_note wins over the automatic record; the last note of a round wins', () => {
    const t = new ProcessingTable();
    t.note('c1', 'first thought');
    t.note('c1', 'answered the parcel question');
    const r = t.roundDone({ task: 'c1', inputch: 'qq/help', input: 'x', output: 'y' }, 5);
    expect(r).toMatchObject({ proactive: true, text: 'answered the parcel question', inputch: 'qq/help' });
    // The note was consumed: the next round of the same task id (never reused) or another gets its own.
    expect(t.roundDone({ task: 'c2', inputch: 'qq/help', input: 'x', output: '' }, 6).text).toBe('round done: input=x');
  });

  it("a note belongs to its own task: an interrupt's note never becomes the record of the task it preempted", () => {
    const t = new ProcessingTable();
    t.note('interrupt', 'noted by the interrupt');
    t.roundDone({ task: 'victim', inputch: 'qq/help', input: 'long job', output: 'done' }, 9);
    expect(t.snapshot().map((r) => r.proactive)).toEqual([false]);
    expect(t.roundDone({ task: 'interrupt', inputch: 'parent', input: 'ping', output: 'pong' }, 10).text).toBe(
      'noted by the interrupt',
    );
  });

  it('failed and skipped rounds write nothing and drop their note; compress clears table and notes', () => {
    const t = new ProcessingTable();
    t.note('bad', 'never recorded');
    t.roundEnded('bad');
    expect(t.size).toBe(0);
    t.roundDone({ task: 'ok', inputch: 'a', input: 'i', output: 'o' }, 1);
    t.note('pending', 'cleared by compress');
    t.clear();
    expect(t.size).toBe(0);
    expect(t.roundDone({ task: 'pending', inputch: 'a', input: 'i', output: '' }, 2).proactive).toBe(false);
  });

  it('the automatic record keeps the first 80 / 120 code points, counting surrogate pairs as one', () => {
    const t = new ProcessingTable();
    const r = t.roundDone({ task: 'c', inputch: 'a', input: '😀'.repeat(100), output: 'é'.repeat(200) }, 0);
    expect(r.text).toBe(`round done: input=${'😀'.repeat(80)}, output=${'é'.repeat(120)}`);
  });

  it('snapshot is a copy: inspecting never changes the table', () => {
    const t = new ProcessingTable();
    t.roundDone({ task: 'c', inputch: 'a', input: 'i', output: 'o' }, 0);
    const snap = t.snapshot();
    (snap[0] as { text: string }).text = 'tampered';
    expect(t.snapshot()[0]?.text).toBe('round done: input=i, output=o');
  });
});

describe('context-full latch (docs/spec.md §10.5)', () => {
  it('S10 signals once at 0.9 × window, stays quiet while full, re-arms only below the threshold (hysteresis)', () => {
    const latch = new ContextFullLatch();
    expect(latch.isArmed).toBe(true);
    expect(latch.afterPrepare(899, 1000)).toBe('quiet');
    expect(latch.afterPrepare(900, 1000)).toBe('signal');
    expect(latch.afterPrepare(950, 1000)).toBe('quiet');
    expect(latch.afterPrepare(1200, 1000)).toBe('quiet');
    expect(latch.afterPrepare(899, 1000)).toBe('quiet');
    expect(latch.isArmed).toBe(true);
    expect(latch.afterPrepare(901, 1000)).toBe('signal');
  });

  it('S10 rearm (a compress that left the context full): the next full Prepare signals once more, then quiet', () => {
    const latch = new ContextFullLatch();
    expect(latch.afterPrepare(950, 1000)).toBe('signal');
    latch.rearm();
    expect(latch.isArmed).toBe(true);
    expect(latch.afterPrepare(950, 1000)).toBe('signal');
    expect(latch.afterPrepare(950, 1000)).toBe('quiet');
  });

  it('after a compress the state is running only below the threshold', () => {
    expect(stateAfterCompress(899, 1000)).toBe('running');
    expect(stateAfterCompress(900, 1000)).toBe('contextfull');
  });
});

describe('compress plan (docs/spec.md §10.5)', () => {
  const ev = (n: number): { input: string; response: string } => ({ input: 'a'.repeat(n), response: '' });

  it('keeps the newest events whose token sum is ≤ 0.5 × window', () => {
    expect(planCompress([ev(300), ev(200), ev(200), ev(100)], 1000)).toEqual({ older: 1, kept: 3 });
    expect(planCompress([ev(300), ev(200), ev(301)], 1000)).toEqual({ older: 2, kept: 1 });
  });

  it('never keeps more than 20 events', () => {
    const many = Array.from({ length: 30 }, () => ev(1));
    expect(planCompress(many, 1_000_000)).toEqual({ older: 30 - COMPRESS_KEEP_MAX, kept: COMPRESS_KEEP_MAX });
  });

  it('with nothing older than the kept events it changes nothing', () => {
    expect(planCompress([ev(10), ev(10)], 1000)).toEqual({ older: 0, kept: 2 });
    expect(planCompress([], 1000)).toEqual({ older: 0, kept: 0 });
  });

  it('an event larger than the budget is not kept, however recent', () => {
    expect(planCompress([ev(10), ev(600)], 1000)).toEqual({ older: 2, kept: 0 });
  });
});

describe('channel dispositions (docs/spec.md §10.1, C5)', () => {
  function registry(): ChannelRegistry {
    const r = new ChannelRegistry();
    r.register({ name: 'qq/help', plugin: 'qq', owner: 'kid', capacity: 2 });
    r.register({ name: 'qq/sales', plugin: 'qq', owner: 'kid' });
    r.register({ name: 'webui', plugin: 'webui', owner: 'other' });
    return r;
  }

  it('C5 release hands the child\'s inputchs to the root (owner "")', () => {
    const r = registry();
    expect(disposeChannels(r, 'kid', 'root', 'release')).toEqual(['qq/help', 'qq/sales']);
    expect(r.list().map((c) => [c.name, c.owner])).toEqual([
      ['qq/help', ''],
      ['qq/sales', ''],
      ['webui', 'other'],
    ]);
  });

  it('C5 handback gives them to the parent, keeping their capacity', () => {
    const r = registry();
    disposeChannels(r, 'kid', 'root', 'handback');
    expect(r.lookup('qq/help')).toMatchObject({ owner: 'root', capacity: 2 });
    expect(r.lookup('qq/sales')?.owner).toBe('root');
  });

  it('C5 keep leaves them dangling on the gone child', () => {
    const r = registry();
    disposeChannels(r, 'kid', 'root', 'keep');
    expect(r.listByOwner('kid').map((c) => c.name)).toEqual(['qq/help', 'qq/sales']);
  });
});
