/**
 * The scheduler core's snapshot (docs/spec.md §13.2): a core restored from its snapshot, taken through
 * JSON, continues exactly as the original — the same decisions, the same trace, the same dump.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/kernel/scheduler/core.ts';
import { Tracer, TraceRecorder, type TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';

/** A fixed linear congruential generator: the same operations on every run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const CONFIG = { verify: true, maxQueue: 3, cooldownMs: 40 } as const;

/** One random legal operation on `s` at `nowMs`; returns what it decided, as text. */
function step(s: Scheduler, draw: () => number, nowMs: number, n: number): string {
  const d = s.dump();
  const r = draw();
  if (d.cooldownTimerAtMs !== null && d.cooldownTimerAtMs <= nowMs && r < 0.2)
    return `cooldown ${s.cooldownTimerFired(nowMs)}`;
  if (r < 0.25) return JSON.stringify(s.submitQueued(`q${n}`, nowMs));
  if (r < 0.5) return JSON.stringify(s.submitInterrupt(`i${n}`, 1 + Math.floor(draw() * 4), nowMs));
  if (d.running === null) return `pick ${s.pick(nowMs)?.id ?? 'idle'} ${s.lastPickSource() ?? ''}`;
  if (r < 0.75) return s.safePoint(nowMs, 'Model');
  if (r < 0.8 && !d.critical) {
    s.enterCritical(nowMs);
    return 'critical';
  }
  if (r < 0.85 && d.critical) {
    s.leaveCritical(nowMs);
    return 'leave';
  }
  return `finish ${s.finishRunning({ kind: 'done', reply: 'ok' }, nowMs).id}`;
}

function withoutSeq(events: readonly TraceEvent[]): unknown[] {
  return events.map(({ seq: _seq, ...rest }) => rest);
}

describe('Scheduler snapshot (docs/spec.md §13.2)', () => {
  it('a core restored at any cut continues exactly as the original', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const cut = 5 + (seed % 30);
      const opsMax = 60;
      const rec = new TraceRecorder();
      const original = new Scheduler('root', CONFIG, new Tracer(rec));
      const drawA = lcg(seed);
      let t = 0;
      for (let n = 0; n < cut; n += 1) {
        t += Math.floor(drawA() * 30);
        step(original, drawA, t, n);
      }
      const snapshot = JSON.parse(JSON.stringify(original.snapshotState()));
      const restoredRec = new TraceRecorder();
      const restored = new Scheduler('root', CONFIG, new Tracer(restoredRec));
      restored.restoreState(snapshot);
      expect(restored.dump(), `seed ${seed}`).toEqual(original.dump());
      expect(restored.snapshotState(), `seed ${seed}: snapshot → restore → snapshot`).toEqual(snapshot);
      const before = rec.events.length;
      const drawB = lcg(seed * 7919);
      const drawC = lcg(seed * 7919);
      let tb = t;
      for (let n = cut; n < opsMax; n += 1) {
        tb += Math.floor(drawB() * 30);
        drawC();
        const a = step(original, drawB, tb, n);
        const b = step(restored, drawC, tb, n);
        expect(b, `seed ${seed} op ${n}`).toBe(a);
      }
      expect(withoutSeq(restoredRec.events), `seed ${seed}`).toEqual(withoutSeq(rec.events.slice(before)));
      expect(restored.dump()).toEqual(original.dump());
    }
  });

  it('refuses to restore over a core that is in use', () => {
    const s = new Scheduler('root', CONFIG);
    s.submitQueued('q1', 0);
    expect(() => s.restoreState(new Scheduler('root', CONFIG).snapshotState())).toThrow(/SNAPSHOT/);
  });
});
