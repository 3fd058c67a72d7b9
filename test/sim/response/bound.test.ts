/**
 * The response bound (src/sim/response/): its durations derived from the configuration as bound.ts
 * states, the RESPONSE monitor breaking on a planted late start and on a task left waiting past its
 * deadline, the competitors it allows for, the runs outside the assumptions reported as not
 * applicable, and the flagship E4 and E5 runs within it.
 */
import { describe, expect, it } from 'vitest';
import { InvariantMonitor, type TraceBody, type TraceEvent } from '../../../src/kernel/index.ts';
import { analyzeBound, responseBoundMs, type BoundParameters } from '../../../src/sim/response/bound.ts';
import { RESPONSE, ResponseMonitor } from '../../../src/sim/response/monitor.ts';
import { SimMonitors } from '../../../src/sim/response/sink.ts';
import { loadScenarioFile, type Scenario } from '../../../src/sim/scenario/index.ts';
import { runScenario, scenarioKernelConfig } from '../../../src/sim/simulation.ts';
import { doc, ok } from '../scenario/helpers.ts';

function analyzed(s: Scenario, swarm: Parameters<typeof analyzeBound>[2] = null): BoundParameters {
  const a = analyzeBound(s, scenarioKernelConfig(s), swarm);
  if (!a.applicable) throw new Error(`expected an applicable bound, got: ${a.reason}`);
  return a.parameters;
}

function fileScenario(name: string): Scenario {
  const loaded = loadScenarioFile(`scenarios/${name}.json`);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.scenario;
}

async function report(s: Scenario, opts: Parameters<typeof runScenario>[1] = {}) {
  const outcome = await runScenario(s, opts);
  if (outcome.kind !== 'report') throw new Error(JSON.stringify(outcome.problems));
  return outcome;
}

/** A small trace: L3/L4 submissions and starts on the root, numbered as the Tracer numbers them. */
class Trace {
  readonly events: TraceEvent[] = [];
  at(t: number, body: TraceBody): this {
    this.events.push({ seq: this.events.length + 1, t, agent: 'root', ...body });
    return this;
  }
  submit(t: number, task: string, level: 1 | 2 | 3 | 4): this {
    return this.at(t, {
      type: 'task.submitted',
      task,
      class: 'interrupt',
      level,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
  }
  start(t: number, task: string): this {
    return this.at(t, { type: 'step.begin', task, step: 'Prepare', turn: 0 });
  }
  end(t: number, task: string): this {
    return this.at(t, { type: 'task.terminal', task, kind: 'dropped', reason: 'interrupt_overflow', reply: null });
  }
}

/** W = 100, M = 100, D = 0, C = 50: B = 100; R4(c) = 200 + 100c, R3(c) = 300 + 200c. */
const SMALL: BoundParameters = { modelCallMs: 100, toolMs: 0, taskMs: 100, cooldownMs: 50, blockingMs: 100 };

function watch(trace: Trace): ResponseMonitor {
  const m = new ResponseMonitor({ applicable: true, parameters: SMALL });
  for (const e of trace.events) m.observe(e);
  m.finish(trace.events.at(-1)?.t ?? 0);
  return m;
}

describe('the response bound derived from the configuration', () => {
  it('takes M, D, W and B from the model, the tools, the reply lists, the cooldown and maxToolTurns', () => {
    const s = ok(
      doc({
        kernel: { maxToolTurns: 4, cooldownMs: 700, modelTimeoutMs: 10_000 },
        model: { firstChunkMs: [50, 200], chunkMs: [10, 30], chunks: 5 },
        tools: { slow: { durationMs: [100, 1_000] }, quick: { durationMs: 5 } },
        inputs: [
          // Two tool turns (3 tools in all), then text: 3 calls.
          {
            id: 'a',
            class: 'queued',
            replies: [
              { tools: [{ name: 'slow' }, { name: 'quick' }] },
              { tools: [{ name: 'slow' }] },
              { text: 'done' },
            ],
          },
          { id: 'b', class: 'interrupt', level: 'L3', replies: [{ text: 'x', firstChunkMs: 400 }] },
        ],
      }),
    );
    // M = 400 + 4 × 30 = 520; D = 1 000; W(a) = 3 × 520 + 3 × 1 000 = 4 560; B = max(700 + 1 000, 520).
    expect(analyzed(s)).toEqual({ modelCallMs: 520, toolMs: 1_000, taskMs: 4_560, cooldownMs: 700, blockingMs: 1_700 });
  });

  it('lets a reply list that ends in a tool call use every turn, and a stall or a hang stretch M and D', () => {
    const s = ok(
      doc({
        kernel: { maxToolTurns: 3, modelTimeoutMs: 9_000 },
        model: { firstChunkMs: 100, chunkMs: 10, chunks: 1 },
        tools: { t: { durationMs: 40 } },
        inputs: [{ id: 'loop', class: 'queued', replies: [{ tools: [{ name: 't' }] }] }],
      }),
    );
    expect(analyzed(s).taskMs).toBe(3 * (100 + 40));
    const swarmed = analyzed(s, ['model-stall', 'tool-hang']);
    expect(swarmed.modelCallMs).toBe(9_000);
    expect(swarmed.toolMs).toBe(60_000);
    expect(swarmed.taskMs).toBe(3 * (9_000 + 60_000));
  });

  it('states R4 = W + max(W, B) + c × W and R3 = W + max(2W, B) + c × (W + M)', () => {
    expect(responseBoundMs(SMALL, 4, 0)).toBe(200);
    expect(responseBoundMs(SMALL, 4, 2)).toBe(400);
    expect(responseBoundMs(SMALL, 3, 0)).toBe(300);
    expect(responseBoundMs(SMALL, 3, 2)).toBe(700);
    expect(responseBoundMs({ ...SMALL, blockingMs: 1_000 }, 4, 0)).toBe(1_100);
  });

  it('is not applicable with maxToolTurns 0 or with child agents, and says why', () => {
    const unlimited = ok(doc({ kernel: { maxToolTurns: 0 } }));
    expect(analyzeBound(unlimited, scenarioKernelConfig(unlimited), null)).toEqual({
      applicable: false,
      reason: 'kernel.maxToolTurns is 0 (unlimited): the model calls of one task have no bound',
    });
    const children = ok(doc({ residents: [{ id: 'r1' }] }));
    expect(analyzeBound(children, scenarioKernelConfig(children), null)).toMatchObject({ applicable: false });
  });
});

describe('the RESPONSE monitor', () => {
  it('breaks on a planted late start, one ms past the bound, and not at the bound itself', () => {
    expect(watch(new Trace().submit(0, 'a', 4).start(200, 'a')).violations).toEqual([]);
    const late = watch(new Trace().submit(0, 'a', 4).start(201, 'a')).violations;
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject({ invariant: RESPONSE, t: 201, seq: 2, task: 'a' });
    expect(late[0]?.message).toContain(
      'L4 task a started 201ms after its submission at t=0ms, past its response bound of 200ms',
    );
  });

  it('reveals a task still waiting past its deadline at the first event after it, even if the task is then dropped', () => {
    const trace = new Trace()
      .submit(0, 'x', 3)
      .at(250, { type: 'cooldown.timer', atMs: 300 })
      .at(301, { type: 'cooldown.timer', atMs: 400 })
      .end(302, 'x');
    const found = watch(trace).violations;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ t: 301, seq: 3, task: 'x' });
    expect(found[0]?.message).toContain('has not started at t=301ms');
    // Dropped before its deadline: no verdict at all.
    expect(
      watch(new Trace().submit(0, 'y', 3).end(100, 'y').at(5_000, { type: 'cooldown.timer', atMs: 0 })).violations,
    ).toEqual([]);
  });

  it('allows an L3 one (W + M) more for every L4 submitted while it waits, and an L4 nothing for later L4s', () => {
    // R3(0) = 300 < 450 ≤ R3(1) = 500.
    expect(
      watch(new Trace().submit(0, 'l3', 3).submit(10, 'l4', 4).start(10, 'l4').start(450, 'l3')).violations,
    ).toEqual([]);
    expect(watch(new Trace().submit(0, 'l3', 3).start(450, 'l3')).violations.map((v) => v.task)).toEqual(['l3']);
    // The first L4 waits for nobody; a later L4 does not widen its bound (FIFO within a level).
    expect(
      watch(new Trace().submit(0, 'a', 4).submit(5, 'b', 4).start(250, 'a')).violations.map((v) => v.task),
    ).toEqual(['a']);
    // The second L4 had one L4 waiting ahead of it: R4(1) = 300.
    expect(watch(new Trace().submit(0, 'a', 4).submit(0, 'b', 4).start(100, 'a').start(300, 'b')).violations).toEqual(
      [],
    );
  });

  it('counts a task with more competitors than assumed as outside the assumption, and does not check it', () => {
    const trace = new Trace();
    for (const id of ['a', 'b', 'c', 'd', 'e']) trace.submit(0, id, 4);
    for (const id of ['a', 'b', 'c', 'd']) trace.start(10, id);
    trace.start(100_000, 'e');
    const m = watch(trace);
    expect(m.violations).toEqual([]);
    expect(m.levelTally(4)).toEqual({ checked: 4, outside: 1, worstMs: 10 });
  });

  it('ignores L1 and L2 interrupts and queued tasks', () => {
    const m = watch(new Trace().submit(0, 'a', 2).submit(0, 'b', 1).start(90_000, 'a').start(90_000, 'b'));
    expect(m.violations).toEqual([]);
    expect([m.levelTally(3).checked, m.levelTally(4).checked]).toEqual([0, 0]);
  });

  it('traces its violation right after the event that revealed it, through the kernel stamp, as the invariant monitors do', () => {
    const recorded: TraceEvent[] = [];
    const sink = new SimMonitors(
      { emit: (e) => recorded.push(e) },
      new InvariantMonitor({ builtinPlugins: ['cli'] }),
      new ResponseMonitor({ applicable: true, parameters: SMALL }),
    );
    let seq = 0;
    const stamp = (agent: string, t: number, body: TraceBody): void => {
      seq += 1;
      sink.emit({ seq, t, agent, ...body });
    };
    sink.attach(stamp);
    stamp('root', 0, {
      type: 'task.submitted',
      task: 'a',
      class: 'interrupt',
      level: 4,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    stamp('root', 0, { type: 'task.start', task: 'a', from: 'level' });
    stamp('root', 500, { type: 'step.begin', task: 'a', step: 'Prepare', turn: 0 });
    expect(recorded.map((e) => e.type)).toEqual(['task.submitted', 'task.start', 'step.begin', 'invariant.violation']);
    expect(recorded[3]).toMatchObject({ seq: 4, t: 500, invariant: RESPONSE, task: 'a', cause: 3 });
    expect(sink.violations.map((v) => v.invariant)).toEqual([RESPONSE]);
  });
});

describe('simulated runs against the response bound', () => {
  it('E5: the L4 and the L3 start at once, within their bounds, and the report says so', async () => {
    const { report: r } = await report(fileScenario('e5-nested-to-the-bound'));
    expect(r.ok).toBe(true);
    // M = 300 + 3 × 40 = 420 = W; B = max(2 000 + 0, 420): R4(3) = 420 + 2 000 + 3 × 420, R3(8) = 420 + 2 000 + 8 × 840.
    expect(r.responseBound).toMatchObject({
      applicable: true,
      parameters: { modelCallMs: 420, toolMs: 0, taskMs: 420, cooldownMs: 2_000, blockingMs: 2_000 },
      L4: { boundMs: 3_680, checked: 1, outside: 0, worstMs: 0 },
      L3: { boundMs: 9_140, checked: 1, outside: 0, worstMs: 0 },
    });
  });

  it('E4: all 25 L4 and 25 L3 interrupts are checked and within the bound, also under --swarm', async () => {
    const e4 = fileScenario('e4-priority-stress');
    for (const opts of [{}, { seed: 2, swarm: true }, { seed: 3, swarm: true }]) {
      const { report: r } = await report(e4, opts);
      expect(
        r.violations.filter((v) => v.invariant === RESPONSE),
        JSON.stringify(opts),
      ).toEqual([]);
      const b = r.responseBound;
      expect(b?.applicable).toBe(true);
      expect(b?.L4?.checked).toBe(25);
      expect(b?.L3?.checked).toBeGreaterThanOrEqual(25);
      expect(b?.L4?.worstMs ?? Infinity).toBeLessThanOrEqual(b?.L4?.boundMs ?? 0);
    }
  });

  it('E1: the L4 that waits for a 5 s tool starts 4 s after its submission, within R4', async () => {
    const { report: r } = await report(fileScenario('e1-long-tool'));
    expect(r.responseBound?.L4).toMatchObject({ checked: 1, worstMs: 4_000 });
    expect(r.violations).toEqual([]);
  });

  it('a planted late start in a real E5 trace is a RESPONSE violation of the L4', async () => {
    const e5 = fileScenario('e5-nested-to-the-bound');
    const { record } = await report(e5);
    const first = record.events.findIndex((e) => e.type === 'step.begin' && e.task === 'l4');
    // Everything from the L4's first step on happens 10 s later than it did.
    const planted = record.events.map((e, i) => (i >= first ? { ...e, t: e.t + 10_000 } : e));
    const m = ResponseMonitor.forRun(e5, scenarioKernelConfig(e5), null);
    for (const e of planted) m.observe(e);
    expect(m.violations.map((v) => [v.invariant, v.task])).toEqual([[RESPONSE, 'l4']]);
    expect(m.violations[0]?.message).toContain('started 10000ms after its submission');
  });

  it('reports a run outside the assumptions as not applicable, and the run is still ok', async () => {
    const loop = ok(
      doc({
        kernel: { maxToolTurns: 0 },
        inputs: [{ id: 'a', class: 'interrupt', level: 'L4', source: 'cli' }],
      }),
    );
    const { report: r, exitCode } = await report(loop);
    expect(exitCode).toBe(0);
    expect(r.responseBound).toEqual({
      applicable: false,
      reason: expect.stringContaining('maxToolTurns is 0') as unknown,
      parameters: null,
      L4: null,
      L3: null,
    });
  });
});
