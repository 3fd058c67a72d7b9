import { getEventListeners } from 'node:events';
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../../src/clock/index.ts';
import type { ToolCall } from '../../../src/kernel/ports/provider.ts';
import { FakeToolRunner, toolSpecs, type FakeToolDef, type FakeToolFaults } from '../../../src/sim/fakes/tools.ts';
import { Rng } from '../../../src/sim/rng.ts';
import type { ToolContext, ToolResult } from '../../../src/kernel/ports/tool-runner.ts';

const DEF: FakeToolDef = { durationMs: 100, result: 'ok', fails: false, panics: false, parallelSafe: false };
const NO_FAULTS: FakeToolFaults = { toolPanicRate: 0, toolFailRate: 0 };

function setup(
  tools: Record<string, FakeToolDef>,
  faults: Partial<FakeToolFaults> = {},
  seed = 1,
): { clock: VirtualClock; runner: FakeToolRunner } {
  const clock = new VirtualClock();
  return { clock, runner: new FakeToolRunner({ clock, seed, tools, faults: { ...NO_FAULTS, ...faults } }) };
}

function call(name: string, id = 'c1'): ToolCall {
  return { id, name, args: '{}' };
}

function ctx(signal: AbortSignal = new AbortController().signal, task = 'q1'): ToolContext {
  return { agent: 'root', task, signal, deadlineMs: 1_000_000 };
}

type Settled = { t: number; ok: true; result: ToolResult } | { t: number; ok: false; error: unknown };

/** Records when and how the promise settles, in virtual time. */
function watch(clock: VirtualClock, p: Promise<ToolResult>): () => Settled | null {
  let settled: Settled | null = null;
  p.then(
    (result) => {
      settled = { t: clock.now(), ok: true, result };
    },
    (error: unknown) => {
      settled = { t: clock.now(), ok: false, error };
    },
  );
  return () => settled;
}

async function tick(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function runAll(clock: VirtualClock): Promise<void> {
  await tick();
  while (clock.runNext()) await tick();
}

function errorOf(s: Settled | null): Error {
  if (s === null || s.ok || !(s.error instanceof Error))
    throw new Error(`expected a rejection, got ${JSON.stringify(s)}`);
  return s.error;
}

describe('FakeToolRunner', () => {
  it('resolves the result after the fixed duration, with its timer set synchronously', async () => {
    const { clock, runner } = setup({ fetch: DEF });
    const settled = watch(clock, runner.run(call('fetch'), ctx()));
    expect(runner.liveTimers()).toBe(1);
    expect(clock.pendingCount()).toBe(1);
    await runAll(clock);
    expect(settled()).toEqual({ t: 100, ok: true, result: { ok: true, output: 'ok' } });
    expect(runner.liveTimers()).toBe(0);
  });

  it('draws a ranged duration from seed|tool|agent|task|name|n', async () => {
    const { clock, runner } = setup({ fetch: { ...DEF, durationMs: [10, 1_000] } }, {}, 5);
    const got: number[] = [];
    for (let n = 0; n < 5; n++) {
      const start = clock.now();
      const settled = watch(clock, runner.run(call('fetch'), ctx()));
      await runAll(clock);
      const s = settled();
      got.push((s?.t ?? -1) - start);
      expect((s?.t ?? -1) - start).toBe(Rng.derive(5, 'tool', 'root', 'q1', 'fetch', n).range([10, 1_000]));
    }
    expect(new Set(got).size).toBeGreaterThan(1);
  });

  it('is deterministic for a seed, and counts calls per (agent, task, name)', async () => {
    async function durations(seed: number): Promise<number[]> {
      const { clock, runner } = setup(
        { a: { ...DEF, durationMs: [0, 500] }, b: { ...DEF, durationMs: [0, 500] } },
        {},
        seed,
      );
      const out: number[] = [];
      for (const [name, task] of [
        ['a', 'q1'],
        ['b', 'q1'],
        ['a', 'q2'],
        ['a', 'q1'],
      ] as const) {
        const start = clock.now();
        const settled = watch(clock, runner.run(call(name), ctx(undefined, task)));
        await runAll(clock);
        out.push((settled()?.t ?? -1) - start);
      }
      return out;
    }
    const first = await durations(3);
    expect(await durations(3)).toEqual(first);
    expect(first[0]).toBe(Rng.derive(3, 'tool', 'root', 'q1', 'a', 0).range([0, 500]));
    expect(first[2]).toBe(Rng.derive(3, 'tool', 'root', 'q2', 'a', 0).range([0, 500]));
    expect(first[3]).toBe(Rng.derive(3, 'tool', 'root', 'q1', 'a', 1).range([0, 500]));
  });

  it('a failing tool resolves ok: false "<name> failed" after its duration', async () => {
    const { clock, runner } = setup({ flaky: { ...DEF, fails: true, durationMs: 30 } });
    const settled = watch(clock, runner.run(call('flaky'), ctx()));
    await runAll(clock);
    expect(settled()).toEqual({ t: 30, ok: true, result: { ok: false, output: 'flaky failed' } });
  });

  it('a panicking tool rejects with "<name> panicked" after its duration', async () => {
    const { clock, runner } = setup({ boom: { ...DEF, panics: true, fails: true, durationMs: 40 } });
    const settled = watch(clock, runner.run(call('boom'), ctx()));
    await runAll(clock);
    expect(settled()?.t).toBe(40);
    expect(errorOf(settled()).message).toBe('boom panicked');
  });

  it('injected fault rates of 1 always fail or panic', async () => {
    const failing = setup({ fetch: DEF }, { toolFailRate: 1 });
    const panicking = setup({ fetch: DEF }, { toolPanicRate: 1 });
    for (let i = 0; i < 10; i++) {
      const f = watch(failing.clock, failing.runner.run(call('fetch'), ctx()));
      const p = watch(panicking.clock, panicking.runner.run(call('fetch'), ctx()));
      await runAll(failing.clock);
      await runAll(panicking.clock);
      expect(f()).toMatchObject({ ok: true, result: { ok: false, output: 'fetch failed' } });
      expect(errorOf(p()).message).toBe('fetch panicked');
    }
  });

  it('an unknown tool resolves "unknown tool <name>" at once, prototype keys included', async () => {
    const { clock, runner } = setup({ fetch: DEF });
    const a = watch(clock, runner.run(call('nope'), ctx()));
    const b = watch(clock, runner.run(call('constructor'), ctx()));
    await runAll(clock);
    expect(a()).toEqual({ t: 0, ok: true, result: { ok: false, output: 'unknown tool nope' } });
    expect(b()).toEqual({ t: 0, ok: true, result: { ok: false, output: 'unknown tool constructor' } });
  });

  it('abort clears the timer and rejects with an AbortError at the abort instant', async () => {
    const { clock, runner } = setup({ slow: { ...DEF, durationMs: 5_000 } });
    const controller = new AbortController();
    clock.setTimer(1_200, () => controller.abort());
    const settled = watch(clock, runner.run(call('slow'), ctx(controller.signal)));
    await tick();
    expect(runner.liveTimers()).toBe(1);
    await runAll(clock);
    expect(settled()?.t).toBe(1_200);
    expect(errorOf(settled()).name).toBe('AbortError');
    expect(runner.liveTimers()).toBe(0);
    expect(clock.pendingCount()).toBe(0);
    expect(clock.now()).toBe(1_200);
  });

  it('an already-aborted signal rejects at once without a timer', async () => {
    const { clock, runner } = setup({ slow: DEF });
    const controller = new AbortController();
    controller.abort();
    const settled = watch(clock, runner.run(call('slow'), ctx(controller.signal)));
    expect(clock.pendingCount()).toBe(0);
    await tick();
    expect(errorOf(settled()).name).toBe('AbortError');
    expect(runner.liveTimers()).toBe(0);
  });

  it('removes its abort listener when a call completes', async () => {
    const { clock, runner } = setup({ fetch: { ...DEF, durationMs: 10 } });
    const controller = new AbortController();
    for (let i = 0; i < 5; i++) {
      const settled = watch(clock, runner.run(call('fetch'), ctx(controller.signal)));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      await runAll(clock);
      expect(settled()?.ok).toBe(true);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
  });
});

describe('toolSpecs', () => {
  it('lists the tools sorted by name', () => {
    const specs = toolSpecs({
      zeta: { ...DEF, parallelSafe: true },
      alpha: DEF,
      Mid: DEF,
    });
    expect(specs).toEqual([
      { name: 'Mid', description: 'scenario tool Mid', parameters: { type: 'object' }, parallelSafe: false },
      { name: 'alpha', description: 'scenario tool alpha', parameters: { type: 'object' }, parallelSafe: false },
      { name: 'zeta', description: 'scenario tool zeta', parameters: { type: 'object' }, parallelSafe: true },
    ]);
  });
});
