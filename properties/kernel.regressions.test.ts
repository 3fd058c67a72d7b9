/**
 * Counterexamples found by the generated-scenario properties (kernel.scenarios.test.ts), kept as plain
 * tests with the behaviour the fix pins. Each runs the shrunk scenario through the simulator and
 * asserts both the specific outcome and the whole of property 1 (`terminalProblems`).
 */
import { describe, expect, it } from 'vitest';
import type { ScenarioJson } from './scenario-json.ts';
import { parsed, run, stopListProblems, terminalProblems } from './scenario-checks.ts';

async function runJson(json: ScenarioJson): Promise<{ problems: string[]; report: Awaited<ReturnType<typeof run>> }> {
  const scenario = parsed(json);
  const report = await run(scenario);
  return { problems: terminalProblems(scenario, report), report };
}

describe('kernel regressions from the generated-scenario properties', () => {
  it('§2.9: a stop that cancels the running task in its Model step lists it once in stops[].cancelled', async () => {
    // Property 1, shrunk (fast-check seed 723662058): the `stop` trace event listed the marked running
    // task in `cancelled` and the report appended it again as `marked`: cancelled ["in-0", "in-0"].
    const json: ScenarioJson = {
      version: 1,
      name: 'generated',
      seed: 0,
      inputs: [
        { id: 'in-0', class: 'queued', source: 'cli', at: 0 },
        {
          id: 'in-1',
          class: 'interrupt',
          level: 'L1',
          source: 'cli',
          stop: true,
          when: { task: 'in-0', step: 'Prepare', afterMs: 0 },
        },
      ],
      expect: { allTerminal: true },
      model: { chunkMs: [0, 0], chunks: 1, cancelAware: false, cancelLagMs: 0 },
      tools: { alpha: { durationMs: 0 }, delta: { durationMs: 0 } },
      faults: { toolPanicRate: 0.01, modelIgnoresCancelRate: 0.01 },
    };
    const { problems, report } = await runJson(json);
    expect(report.stops).toEqual([{ id: 'in-1', t: 0, cancelled: ['in-0'] }]);
    expect(report.tasks['in-0']).toMatchObject({ terminal: 'cancelled', reason: 'user_stop', terminalCount: 1 });
    expect(problems).toEqual([]);
  });

  it('§2.9: a stop-marked task whose tool then panics ends failed and is not listed as cancelled by the stop', async () => {
    // Found by property 1 (same root cause): the stop arrives during a ToolExec, the step completes by
    // panicking, the task ends `failed` — yet stops[].cancelled named it. Minimized by hand from the
    // generated counterexample: the model call lasts 60 ms, the tool runs 60..160 ms, the stop is at 100.
    const json: ScenarioJson = {
      version: 1,
      name: 'generated',
      seed: 0,
      inputs: [
        { id: 'in-0', class: 'queued', source: 'cli', at: 0, replies: [{ tools: [{ name: 'delta' }] }] },
        { id: 'in-1', class: 'interrupt', level: 'L1', source: 'cli', stop: true, at: 100 },
      ],
      expect: { allTerminal: true },
      tools: { delta: { durationMs: 100, panics: true } },
    };
    const { problems, report } = await runJson(json);
    expect(report.tasks['in-0']).toMatchObject({
      terminal: 'failed',
      reply: 'processing error: tool delta panicked',
      terminalCount: 1,
    });
    expect(report.stops).toEqual([{ id: 'in-1', t: 100, cancelled: [] }]);
    // The panic still raises its kernel L4, which runs and ends normally.
    expect(report.tasks['root:1']).toMatchObject({ terminal: 'done', level: 4, terminalCount: 1 });
    expect(stopListProblems(report)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
