/**
 * The scenario builder of `homeagent/testing`: the document it writes is a scenario file, the one the
 * repository holds for the same run (P1 rebuilt here normalizes to the same Scenario and the same
 * trace hash); each call returns a new builder; `build()` reports a bad document's problems by path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenario, runScenario, ScenarioError, type ScenarioJson } from '../../src/index.ts';
import { scenario, ScenarioBuilder } from '../../src/testing/index.ts';

const P1 = 'scenarios/p1-higher-preempts.json';
const GOLDEN = JSON.parse(readFileSync('scenarios/golden.json', 'utf8')) as Record<string, string>;

/** P1 (scenarios/p1-higher-preempts.json), written with the builder. */
const p1 = scenario('p1-higher-preempts')
  .describe(
    'P1, R5: an L1 interrupt streams; an L3 arrives 30 ms into the stream and, being strictly higher, preempts it at once: the stream is cancelled, the L1 is pushed with its cursor at the Model step (depth 1), the L3 runs and the L1 resumes and re-sends its request once.',
  )
  .seed(31)
  .model({ firstChunkMs: 400, chunkMs: 50, chunks: 3 })
  .interrupt('low', 'L1', { source: 'qq', text: 'summarise the group chat', at: 0 })
  .interrupt('high', 'L3', {
    source: 'term',
    text: 'what time is it?',
    when: { task: 'low', step: 'Model', afterMs: 30 },
  })
  .expect({
    terminal: { low: 'done', high: 'done' },
    finishOrder: ['high', 'low'],
    suspendOrder: ['low'],
    resumeOrder: ['low'],
    maxStackDepth: 1,
  })
  .expect({
    counters: {
      root: { suspended: 1, resumed: 1, cancelledModelCalls: 1, preemptsByLevel: { '1': 0, '3': 1 } },
    },
    tasks: {
      low: {
        suspensions: [{ t: 30, step: 'Model', by: 'high', effBefore: 1, depthAfter: 1 }],
        preemptCount: 1,
        effectiveLevelMax: 2,
        modelCalls: 2,
        modelCallsCancelled: 1,
      },
      high: { level: 3, startedAt: 30, suspends: 0, modelCalls: 1 },
    },
  });

describe('scenario(name) …', () => {
  it('writes the scenario file of the repository, which runs to its golden trace hash', async () => {
    expect(p1.toJSON()).toEqual(JSON.parse(readFileSync(P1, 'utf8')));
    expect(p1.build()).toEqual(await loadScenarioFile(P1));
    const report = await runScenario(p1.build());
    expect(report.ok).toBe(true);
    expect(report.traceHash).toBe(GOLDEN['p1-higher-preempts']);
  });

  it('JSON.stringify of a builder is the file; parseScenario reads it back', () => {
    const text = JSON.stringify(p1, null, 2);
    expect(parseScenario(JSON.parse(text))).toEqual(p1.build());
  });

  it('every call returns a new builder; the one it was called on is unchanged', () => {
    const base = scenario('base').input('q', { text: 'hello' });
    const more = base.input('r').tool('fetch', { durationMs: 10 }).kernel({ maxQueue: 4 }).kernel({ cooldownMs: 0 });
    expect(base.toJSON()).toEqual({ version: 1, name: 'base', inputs: [{ id: 'q', class: 'queued', text: 'hello' }] });
    expect(more.toJSON()).toEqual({
      version: 1,
      name: 'base',
      inputs: [
        { id: 'q', class: 'queued', text: 'hello' },
        { id: 'r', class: 'queued' },
      ],
      tools: { fetch: { durationMs: 10 } },
      kernel: { maxQueue: 4, cooldownMs: 0 },
    });
    const copy = more.toJSON();
    copy.inputs?.pop();
    expect(more.toJSON().inputs).toHaveLength(2);
  });

  it('starts from an existing document, to vary a scenario file', async () => {
    const file = JSON.parse(readFileSync(P1, 'utf8')) as ScenarioJson;
    const varied = new ScenarioBuilder(file).seed(7).interrupt('stop', 'L4', { stop: true, at: 5000 });
    const built = varied.build();
    expect(built.seed).toBe(7);
    expect(built.inputs.map((i) => i.id)).toEqual(['low', 'high', 'stop']);
    expect((await runScenario(built)).stops).toHaveLength(1);
  });

  it('build() throws a ScenarioError with every problem of the document and its path', () => {
    const bad = scenario('Bad Name')
      .input('q', { when: { task: 'nobody', step: 'Model' } })
      .interrupt('q', 'L2');
    let error: unknown;
    try {
      bad.build();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const paths = (error as ScenarioError).problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'inputs[0].when.task', 'inputs[1].id']));
    expect((error as Error).message).toMatch(/^scenario "Bad Name": \d+ problems\n/);
  });
});
