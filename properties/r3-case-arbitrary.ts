/**
 * Kernel-level plans for the R3 property (kernel.scenarios.test.ts, driven by kernel-driver.ts): queued
 * tasks with scripted tool turns, and interrupts submitted shortly after the N-th model call starts.
 */
import fc from 'fast-check';
import type { Level } from '../src/kernel/index.ts';
import type { DriverInterrupt, DriverPlan, ScriptCall, ScriptStep } from './kernel-driver.ts';
import { UNKNOWN_TOOL } from './scenario-vocabulary.ts';

export interface R3Case {
  readonly plan: DriverPlan;
  readonly interrupts: readonly DriverInterrupt[];
}

const R3_TOOLS = ['read', 'write', 'scan'] as const;

const r3CallArb: fc.Arbitrary<ScriptCall> = fc
  .record({ tool: fc.nat({ max: R3_TOOLS.length }), n: fc.nat({ max: 9 }) })
  .map(({ tool, n }) => ({ name: R3_TOOLS[tool] ?? UNKNOWN_TOOL, args: JSON.stringify({ n }) }));

/** 0..3 tool turns, then a final answer (rarely a failing call): the task always ends by its script. */
function r3ScriptArb(task: string): fc.Arbitrary<ScriptStep[]> {
  return fc
    .record({
      turns: fc.array(
        fc.record({ calls: fc.array(r3CallArb, { minLength: 1, maxLength: 3 }), withText: fc.boolean() }),
        { maxLength: 3 },
      ),
      fails: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(({ turns, fails }) => [
      ...turns.map((t, k): ScriptStep => ({
        kind: 'tools',
        calls: t.calls,
        text: t.withText ? `using tools (${task}, ${k})` : '',
      })),
      fails ? { kind: 'fail' } : { kind: 'text', text: `final answer of ${task}` },
    ]);
}

/**
 * A kernel-level plan of 1–5 queued tasks (scripted tool turns, unique texts) and 1–5 interrupts of any
 * level with text-only replies, each submitted shortly after the N-th model call of the run starts.
 * No faults, no stops, no panics: R3 compares the interrupted run with the same plan without them.
 */
export const r3CaseArb: fc.Arbitrary<R3Case> = fc
  .record({
    tasks: fc.array(
      fc.record({
        source: fc.constantFrom('cli', 'qq'),
        modelMs: fc.integer({ min: 20, max: 300 }),
        atMs: fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 1500 }) },
        ),
      }),
      {
        minLength: 1,
        maxLength: 5,
      },
    ),
    tools: fc.tuple(
      ...R3_TOOLS.map((name) =>
        fc.record({
          name: fc.constant(name),
          durationMs: fc.integer({ min: 0, max: 500 }),
          parallelSafe: fc.boolean(),
          fails: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
      ),
    ),
    cooldownMs: fc.constantFrom(0, 100, 2000),
    webui: fc.boolean(),
    interrupts: fc.array(
      fc.record({
        level: fc.constantFrom<Level>(1, 2, 3, 4),
        source: fc.constantFrom('cli', 'qq', 'webui/x'),
        afterModelStart: fc.integer({ min: 1, max: 8 }),
        delayMs: fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: 0, max: 15 }) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 400 }) },
        ),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  })
  .chain((r) =>
    fc.tuple(...r.tasks.map((_, i) => r3ScriptArb(`q${i}`))).map((scripts): R3Case => ({
      plan: {
        tasks: r.tasks.map((t, i) => ({
          id: `q${i}`,
          text: `task ${i}`,
          source: t.source,
          modelMs: t.modelMs,
          atMs: t.atMs,
          script: scripts[i] ?? [],
        })),
        tools: r.tools,
        cooldownMs: r.cooldownMs,
        builtinPlugins: r.webui ? ['webui'] : [],
      },
      interrupts: r.interrupts.map((x, j) => ({
        id: `i${j}`,
        level: x.level,
        source: x.source,
        text: `interrupt ${j}`,
        reply: `reply to interrupt ${j}`,
        afterModelStart: x.afterModelStart,
        delayMs: x.delayMs,
      })),
    })),
  );
