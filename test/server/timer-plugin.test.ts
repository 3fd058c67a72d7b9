/**
 * The timer plugin (src/server/timer-plugin.ts) on a virtual clock: each configured timer first fires
 * after `afterMs` (else `everyMs`, else at once) and again every `everyMs`, each firing an L3 interrupt
 * from `timer/<name>` on the channel `timer` with a fresh id; a firing while inputs are refused is
 * skipped and told, and the next one still comes; `stop` clears every pending timer, and neither a
 * firing already under way nor its re-arming gets through after it.
 */
import { describe, expect, it } from 'vitest';
import type { Clock, TimerId } from '../../src/clock/index.ts';
import { VirtualClock } from '../../src/clock/virtual-clock.ts';
import type { Submission } from '../../src/kernel/index.ts';
import type { TimerConfig } from '../../src/server/config-schema.ts';
import type { Unavailable } from '../../src/server/http-io.ts';
import { TIMER_CHANNEL, TimerPlugin, type TimerPluginPorts } from '../../src/server/timer-plugin.ts';

interface Seen {
  readonly log: string[];
  readonly submitted: Submission[];
}

function ports(clock: Clock, extra: Partial<TimerPluginPorts> = {}): TimerPluginPorts & Seen {
  const log: string[] = [];
  const submitted: Submission[] = [];
  let n = 0;
  return {
    log,
    submitted,
    clock,
    submit: (sub) => {
      submitted.push(sub);
      log.push(`${clock.now()} submit ${sub.source}`);
    },
    nextId: () => {
      n += 1;
      return `timer-${n}`;
    },
    fired: (name, task) => log.push(`${clock.now()} fired ${name} ${task}`),
    skipped: (name, why) => log.push(`${clock.now()} skipped ${name} ${why.code}`),
    ...extra,
  };
}

/** Runs every timer due up to `ms`. */
function runUntil(clock: VirtualClock, ms: number): void {
  for (let at = clock.nextAtMs(); at !== null && at <= ms; at = clock.nextAtMs()) clock.runNext();
  clock.advanceTo(ms);
}

describe('TimerPlugin', () => {
  it('fires an L3 interrupt from timer/<name> on the channel timer, with a fresh id each time', () => {
    const clock = new VirtualClock();
    const p = ports(clock);
    new TimerPlugin([{ name: 'tea', text: 'make tea', everyMs: 1000 }], p).start();
    runUntil(clock, 2000);
    expect(TIMER_CHANNEL).toBe('timer');
    expect(p.submitted).toEqual([
      { id: 'timer-1', cls: 'interrupt', level: 'L3', text: 'make tea', source: 'timer/tea', channel: 'timer' },
      { id: 'timer-2', cls: 'interrupt', level: 'L3', text: 'make tea', source: 'timer/tea', channel: 'timer' },
    ]);
    expect(p.log).toEqual([
      '1000 submit timer/tea',
      '1000 fired tea timer-1',
      '2000 submit timer/tea',
      '2000 fired tea timer-2',
    ]);
  });

  it('first fires after afterMs, else after everyMs, else at once; repeats only with everyMs', () => {
    const clock = new VirtualClock();
    const p = ports(clock);
    const timers: TimerConfig[] = [
      { name: 'after-every', text: 't', afterMs: 500, everyMs: 2000 },
      { name: 'zero-after', text: 't', afterMs: 0, everyMs: 3000 },
      { name: 'every', text: 't', everyMs: 1500 },
      { name: 'after', text: 't', afterMs: 300 },
      { name: 'now', text: 't' },
    ];
    new TimerPlugin(timers, p).start();
    expect(clock.pendingCount()).toBe(5);
    runUntil(clock, 4600);
    expect(p.log.filter((l) => l.includes(' fired '))).toEqual([
      '0 fired zero-after timer-1',
      '0 fired now timer-2',
      '300 fired after timer-3',
      '500 fired after-every timer-4',
      '1500 fired every timer-5',
      '2500 fired after-every timer-6',
      '3000 fired zero-after timer-7',
      '3000 fired every timer-8',
      '4500 fired after-every timer-9',
      '4500 fired every timer-10',
    ]);
    // The three repeating timers are armed again; the two one-shot timers are done.
    expect(clock.pendingCount()).toBe(3);
  });

  it('skips a firing while inputs are refused, telling why, and fires the next one as usual', () => {
    const clock = new VirtualClock();
    let down: Unavailable | null = { code: 'journal_unwritable', message: 'no journal', retryAfterS: 5 };
    const p = ports(clock, { unavailable: () => down });
    new TimerPlugin([{ name: 'tick', text: 'tick', everyMs: 1000 }], p).start();
    runUntil(clock, 1000);
    expect(p.log).toEqual(['1000 skipped tick journal_unwritable']);
    expect(p.submitted).toEqual([]);
    down = null;
    runUntil(clock, 2000);
    expect(p.log).toEqual([
      '1000 skipped tick journal_unwritable',
      '2000 submit timer/tick',
      '2000 fired tick timer-1',
    ]);
  });

  it('works without the optional ports', () => {
    const clock = new VirtualClock();
    const submitted: string[] = [];
    const plugin = new TimerPlugin([{ name: 'x', text: 'hello', afterMs: 10 }], {
      clock,
      submit: (sub) => submitted.push(sub.id),
      nextId: () => 'timer-9',
    });
    plugin.start();
    runUntil(clock, 10);
    expect(submitted).toEqual(['timer-9']);
  });

  it('stop clears every pending timer; nothing fires after it', () => {
    const clock = new VirtualClock();
    const p = ports(clock);
    const plugin = new TimerPlugin(
      [
        { name: 'a', text: 'a', everyMs: 1000 },
        { name: 'b', text: 'b', afterMs: 5000 },
      ],
      p,
    );
    plugin.start();
    runUntil(clock, 1000);
    expect(clock.pendingCount()).toBe(2);
    plugin.stop();
    expect(clock.pendingCount()).toBe(0);
    runUntil(clock, 10_000);
    expect(p.log).toEqual(['1000 submit timer/a', '1000 fired a timer-1']);
    // Started again after a stop, it arms nothing.
    plugin.start();
    expect(clock.pendingCount()).toBe(0);
  });

  it('a stop during a firing leaves the repeating timer unarmed', () => {
    const clock = new VirtualClock();
    let plugin: TimerPlugin | null = null;
    const p = ports(clock, { fired: () => plugin?.stop() });
    plugin = new TimerPlugin([{ name: 'once-more', text: 'x', everyMs: 1000 }], p);
    plugin.start();
    runUntil(clock, 1000);
    expect(p.submitted.map((s) => s.id)).toEqual(['timer-1']);
    expect(clock.pendingCount()).toBe(0);
  });
});

/** A clock whose callbacks the test runs by hand, and which records what is cleared. */
class HandClock implements Clock {
  readonly set: { id: TimerId; ms: number; fn: () => void }[] = [];
  readonly cleared: TimerId[] = [];
  now(): number {
    return 0;
  }
  setTimer(ms: number, fn: () => void): TimerId {
    const id = this.set.length + 100;
    this.set.push({ id, ms, fn });
    return id;
  }
  clearTimer(id: TimerId): void {
    this.cleared.push(id);
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}

describe('TimerPlugin: stopping', () => {
  it('clears only the timers still pending, each once', () => {
    const clock = new HandClock();
    const p = ports(clock);
    const plugin = new TimerPlugin(
      [
        { name: 'gone', text: 'g', afterMs: 1 },
        { name: 'waiting', text: 'w', afterMs: 2 },
        { name: 'again', text: 'r', everyMs: 1000 },
      ],
      p,
    );
    plugin.start();
    expect(clock.set.map(({ id, ms }) => [id, ms])).toEqual([
      [100, 1],
      [101, 2],
      [102, 1000],
    ]);
    clock.set[0]?.fn();
    clock.set[2]?.fn();
    expect(clock.set.map(({ id, ms }) => [id, ms]).slice(3)).toEqual([[103, 1000]]);
    plugin.stop();
    expect(clock.cleared).toEqual([101, 103]);
    plugin.stop();
    expect(clock.cleared).toEqual([101, 103]);
  });

  it('a firing already under way when stopped submits nothing and arms nothing', () => {
    const clock = new HandClock();
    const p = ports(clock);
    const plugin = new TimerPlugin([{ name: 'late', text: 'l', everyMs: 1000 }], p);
    plugin.start();
    plugin.stop();
    clock.set[0]?.fn();
    expect(p.log).toEqual([]);
    expect(clock.set).toHaveLength(1);
  });
});
