import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../../src/sim/scenario/index.ts';
import type { ScenarioInput } from '../../../src/sim/scenario/index.ts';
import { doc, ok, paths, problems } from './helpers.ts';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}.json`, import.meta.url));

function input(json: Record<string, unknown>): ScenarioInput {
  const s = ok(doc({ inputs: [json] }));
  const first = s.inputs[0];
  if (first === undefined) throw new Error('no input');
  return first;
}

describe('scenario files (docs/spec.md §12.2): the examples', () => {
  it('parses e5-nested-to-the-bound: ranges kept, levels as numbers, when-timing normalized', () => {
    const r = loadScenarioFile(fixture('e5-nested-to-the-bound'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.scenario;
    expect(s.name).toBe('e5-nested-to-the-bound');
    expect(s.builtinPlugins).toEqual(['webui']);
    expect(s.model).toEqual({
      firstChunkMs: [150, 300],
      chunkMs: [20, 40],
      chunks: 4,
      cancelAware: true,
      cancelLagMs: 0,
    });
    expect(s.inputs.map((i) => [i.id, i.class, i.level])).toEqual([
      ['q', 'queued', null],
      ['l1', 'interrupt', 1],
      ['l2', 'interrupt', 2],
      ['l3', 'interrupt', 3],
      ['l4', 'interrupt', 4],
    ]);
    expect(s.inputs[0]?.timing).toEqual({ kind: 'at', at: 0 });
    expect(s.inputs[4]?.timing).toEqual({ kind: 'when', task: 'l3', step: 'Model', afterMs: 5 });
    expect(s.inputs[4]?.source).toBe('webui/panel');
    expect(s.expect.counters).toEqual({ root: { suspended: 4, resumed: 4 } });
    expect(s.expect.resumeOrder).toEqual(['l3', 'l2', 'l1', 'q']);
  });

  it('parses resident-reports-to-parent: channels, outputs, residents, tool replies', () => {
    const r = loadScenarioFile(fixture('resident-reports-to-parent'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.scenario;
    expect(s.channels).toEqual([
      { name: 'qq/support', plugin: 'qq' },
      { name: 'qq/sales', plugin: 'qq' },
    ]);
    expect(s.outputs).toEqual([{ name: 'qq' }]);
    expect(s.residents).toEqual([
      { id: 'watcher', inputChs: ['qq/support'], taskPrompt: 'watch the support group and report problems' },
    ]);
    const complaint = s.inputs[0];
    expect(complaint?.channel).toBe('qq/support');
    expect(complaint?.timing).toEqual({ kind: 'at', at: 1000 });
    expect(complaint?.replies).toEqual([
      { text: '', tools: [{ name: 'notify_parent', args: { text: 'login crash reported in support' } }] },
      { text: 'reported', tools: [] },
    ]);
  });

  it('parses tool-then-interrupt: tool defaults and the ToolExec trigger', () => {
    const r = loadScenarioFile(fixture('tool-then-interrupt'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.scenario.tools).toEqual([
      {
        name: 'fetch_weather',
        durationMs: 2000,
        result: 'sunny, 21C',
        fails: false,
        panics: false,
        parallelSafe: false,
      },
    ]);
    expect(r.scenario.inputs[1]?.timing).toEqual({ kind: 'when', task: 'ask', step: 'ToolExec', afterMs: 50 });
  });
});

describe('scenario files (docs/spec.md §12.2): defaults', () => {
  it('applies every default to a minimal scenario, and leaves optional values absent', () => {
    const s = ok(doc({ inputs: [{ id: 'q', class: 'queued' }] }));
    expect(s).toStrictEqual({
      version: 1,
      name: 'test',
      seed: 1,
      kernel: {},
      journal: { sync: 'batch', batchMs: 10, snapshotEvery: 50_000 },
      builtinPlugins: [],
      model: { firstChunkMs: 50, chunkMs: 10, chunks: 2, cancelAware: true, cancelLagMs: 0 },
      tools: [],
      channels: [],
      outputs: [],
      residents: [],
      events: [],
      inputs: [
        {
          id: 'q',
          source: 'cli',
          channel: 'cli',
          agent: 'root',
          timing: { kind: 'at', at: 0 },
          replies: [{ text: 'ok q', tools: [] }],
          class: 'queued',
          level: null,
          stop: false,
          text: 'input q',
        },
      ],
      kernelReplies: {},
      faults: { toolPanicRate: 0, toolFailRate: 0, modelErrorRate: 0, modelIgnoresCancelRate: 0, modelStallRate: 0 },
      expect: { allTerminal: true, invariants: true },
      limits: { maxEvents: 1_000_000, maxVirtualMs: 1e13 },
    });
    for (const key of ['description', 'stopAt', 'generate'] as const) expect(key in s).toBe(false);
  });

  it('merges a partial model over the defaults', () => {
    expect(ok(doc({ model: { chunks: 5, cancelLagMs: [1, 3] } })).model).toEqual({
      firstChunkMs: 50,
      chunkMs: 10,
      chunks: 5,
      cancelAware: true,
      cancelLagMs: [1, 3],
    });
    expect(ok(doc({ model: { cancelAware: false } })).model.cancelAware).toBe(false);
  });

  it('defaults channel to the source, and keeps explicit values', () => {
    const i = input({ id: 'a', class: 'interrupt', level: 'L3', source: 'webui/dev-3' });
    expect([i.source, i.channel, i.agent, i.level, i.text]).toEqual([
      'webui/dev-3',
      'webui/dev-3',
      'root',
      3,
      'input a',
    ]);
    const j = input({ id: 'b', class: 'queued', source: 'qq', channel: 'qq/support', description: 'why' });
    expect([j.source, j.channel, j.description]).toEqual(['qq', 'qq/support', 'why']);
  });

  it('text "" stays "" (only an absent text becomes "input <id>")', () => {
    expect(input({ id: 'a', class: 'queued', text: '' }).text).toBe('');
    expect(input({ id: 'a', class: 'interrupt', level: 'L2', text: '' }).text).toBe('');
    expect(input({ id: 'a', class: 'interrupt', level: 'L2' }).text).toBe('input a');
  });

  it('a stop without text (absent or "") has text null; a stop with text keeps it', () => {
    const absent = input({ id: 's', class: 'interrupt', level: 'L3', stop: true });
    expect([absent.stop, absent.text]).toEqual([true, null]);
    const empty = input({ id: 's', class: 'interrupt', level: 'L3', stop: true, text: '' });
    expect([empty.stop, empty.text]).toEqual([true, null]);
    const withText = input({ id: 's', class: 'interrupt', level: 'L1', stop: true, text: 'do this instead' });
    expect([withText.stop, withText.text, withText.level]).toEqual([true, 'do this instead', 1]);
    const notStop = input({ id: 's', class: 'interrupt', level: 'L1', stop: false });
    expect([notStop.stop, notStop.text]).toEqual([false, 'input s']);
  });

  it('normalizes timing: at, when (afterMs default 0), afterTerminal', () => {
    const s = ok(
      doc({
        inputs: [
          { id: 'a', class: 'queued', at: 250 },
          { id: 'b', class: 'interrupt', level: 'L1', when: { task: 'a', step: 'Prepare' } },
          { id: 'c', class: 'queued', afterTerminal: 'b' },
          { id: 'd', class: 'queued', afterTerminal: 'root:1' },
        ],
      }),
    );
    expect(s.inputs.map((i) => i.timing)).toEqual([
      { kind: 'at', at: 250 },
      { kind: 'when', task: 'a', step: 'Prepare', afterMs: 0 },
      { kind: 'afterTerminal', task: 'b' },
      { kind: 'afterTerminal', task: 'root:1' },
    ]);
  });

  it('reply text defaults to "" with tools or error, else "ok <id>"; kernelReplies default to "ok <agent>:<n>"', () => {
    const s = ok(
      doc({
        residents: [{ id: 'watcher' }],
        inputs: [
          {
            id: 'a',
            class: 'queued',
            replies: [
              { tools: [{ name: 't' }] },
              { error: 'fail' },
              { firstChunkMs: [5, 9] },
              { text: 'x', error: 'context_full' },
            ],
          },
        ],
        kernelReplies: { 'root:1': [{}], 'watcher:2': [{ text: 'hi' }, { tools: [] }] },
      }),
    );
    expect(s.inputs[0]?.replies).toStrictEqual([
      { text: '', tools: [{ name: 't' }] },
      { text: '', tools: [], error: 'fail' },
      { text: 'ok a', tools: [], firstChunkMs: [5, 9] },
      { text: 'x', tools: [], error: 'context_full' },
    ]);
    expect(s.kernelReplies).toStrictEqual({
      'root:1': [{ text: 'ok root:1', tools: [] }],
      'watcher:2': [
        { text: 'hi', tools: [] },
        { text: '', tools: [] },
      ],
    });
  });

  it('tool defaults: result "<name> ok", flags false', () => {
    const s = ok(doc({ tools: { 'search-web': { durationMs: [10, 20], fails: true }, b_2: { durationMs: 0 } } }));
    expect(s.tools).toStrictEqual([
      {
        name: 'search-web',
        durationMs: [10, 20],
        result: 'search-web ok',
        fails: true,
        panics: false,
        parallelSafe: false,
      },
      { name: 'b_2', durationMs: 0, result: 'b_2 ok', fails: false, panics: false, parallelSafe: false },
    ]);
  });

  it('generate, faults and expect defaults', () => {
    const s = ok(
      doc({
        generate: { queued: 3, interrupts: { L4: 2 } },
        faults: { toolFailRate: 0.5 },
        expect: { allTerminal: false },
      }),
    );
    expect(s.generate).toStrictEqual({
      queued: 3,
      interrupts: { L1: 0, L2: 0, L3: 0, L4: 2 },
      l4Source: 'gen',
      spacingMs: 0,
      victimAware: false,
      victimTimeoutMs: 5000,
    });
    expect(s.faults).toStrictEqual({
      toolPanicRate: 0,
      toolFailRate: 0.5,
      modelErrorRate: 0,
      modelIgnoresCancelRate: 0,
      modelStallRate: 0,
    });
    expect(s.expect).toStrictEqual({ allTerminal: false, invariants: true });
  });

  it('keeps kernel overrides partial, and the other sections as written', () => {
    const s = ok(
      doc({
        seed: 42,
        stopAt: 9000,
        kernel: { maxQueue: 8, parentMessage: 'discard', offload: { enabled: true } },
        residents: [{ id: 'w', kind: 'rt', contextWindowTokens: 100 }],
        events: [
          { at: 5, destroy: { id: 'w', residual: 'drop' } },
          { at: 6, registerChannel: { name: 'x/y' } },
        ],
        inputs: [{ id: 'a', class: 'queued' }],
        expect: {
          tasks: { a: { preemptCount: { min: 1 }, terminal: 'done', tools: ['t'] } },
          counters: { root: { interruptsByLevel: { '1': 2, '4': 1 }, suspended: 0 } },
          equal: [['root.suspended', 'root.resumed']],
          outputs: { qq: [{ task: 'a' }] },
          agents: { w: { state: 'stopped' } },
          exitCode: 1,
        },
      }),
    );
    expect(s.seed).toBe(42);
    expect(s.stopAt).toBe(9000);
    expect(s.kernel).toStrictEqual({ maxQueue: 8, parentMessage: 'discard', offload: { enabled: true } });
    expect(s.residents).toStrictEqual([{ id: 'w', kind: 'rt', contextWindowTokens: 100 }]);
    expect(s.events).toStrictEqual([
      { at: 5, destroy: { id: 'w', residual: 'drop' } },
      { at: 6, registerChannel: { name: 'x/y' } },
    ]);
    expect(s.expect.tasks).toStrictEqual({
      a: {
        preemptCount: { kind: 'range', min: 1 },
        terminal: { kind: 'equals', value: 'done' },
        tools: { kind: 'equals', value: ['t'] },
      },
    });
    expect(s.expect.counters).toStrictEqual({ root: { interruptsByLevel: { '1': 2, '4': 1 }, suspended: 0 } });
    expect(s.expect.exitCode).toBe(1);
  });
});

describe('scenario files (docs/spec.md §12.2): problems', () => {
  it('reports EVERY problem of EVERY input, with exact paths, sorted by path', () => {
    const bad = doc({
      inputs: [
        { id: 'ok-one', class: 'queued' },
        { id: 'Bad', class: 'queued', level: 'L2' },
        { id: 'x', class: 'interrupt', at: -1, text: 3 },
        { id: 'y', klass: 'queued', when: { task: 'nope', step: 'Model' } },
        { id: 'ok-one', class: 'interrupt', level: 'L9', stop: 'yes' },
      ],
    });
    expect(paths(bad)).toEqual([
      'inputs[1].id',
      'inputs[1].level',
      'inputs[2].at',
      'inputs[2].level',
      'inputs[2].text',
      'inputs[3].class',
      'inputs[3].klass',
      'inputs[3].when.task',
      'inputs[4].id',
      'inputs[4].level',
      'inputs[4].stop',
    ]);
  });

  it('reports problems across sections at once', () => {
    expect(
      paths({
        name: 'x',
        seed: 'one',
        model: { chunks: 0 },
        kernel: { maxQueue: -1, parentMessage: 'keep' },
        faults: { modelStallRate: 1.5 },
        inputs: 'none',
      }),
    ).toEqual([
      'faults.modelStallRate',
      'inputs',
      'kernel.maxQueue',
      'kernel.parentMessage',
      'model.chunks',
      'seed',
      'version',
    ]);
  });

  it('version: missing or not 1 is a problem; the root must be an object', () => {
    expect(problems({ name: 'x' })).toEqual([{ path: 'version', message: 'required: must be 1' }]);
    expect(problems({ version: 2, name: 'x' })).toEqual([{ path: 'version', message: 'must be 1 (got 2)' }]);
    expect(problems({ version: '1', name: 'x' }).map((p) => p.path)).toEqual(['version']);
    expect(problems([])).toEqual([{ path: '', message: 'must be an object, got an array' }]);
  });

  it('name is required and must match [a-z0-9][a-z0-9-]*', () => {
    expect(paths({ version: 1 })).toEqual(['name']);
    expect(paths({ version: 1, name: 'Has Space' })).toEqual(['name']);
    expect(paths({ version: 1, name: '-x' })).toEqual(['name']);
  });

  it('unknown keys are errors everywhere, naming the key and the allowed ones; description only at the top and on inputs', () => {
    const ps = problems(
      doc({
        desc: 'x',
        model: { chunkz: 2 },
        inputs: [
          {
            id: 'a',
            class: 'interrupt',
            levle: 'L1',
            level: 'L1',
            description: 'fine',
            replies: [{ text: 'x', description: 'no' }],
          },
        ],
        expect: { counters: { root: { interruptsByLevel: { '5': 1 } } } },
        generate: { queued: 1, interrupts: { L0: 1 } },
      }),
    );
    expect(ps.map((p) => p.path)).toEqual([
      'desc',
      'expect.counters.root.interruptsByLevel["5"]',
      'generate.interrupts.L0',
      'inputs[0].levle',
      'inputs[0].replies[0].description',
      'model.chunkz',
    ]);
    const levle = ps.find((p) => p.path === 'inputs[0].levle');
    expect(levle?.message).toMatch(
      /^unknown key 'levle'; did you mean 'level'\? \(allowed: id, description, class, level, /,
    );
    expect(ps.find((p) => p.path === 'desc')?.message).toContain('allowed: $schema, version, name, description,');
  });

  it('$schema is accepted at the top level only, as a string, and ignored', () => {
    const plain = doc({ inputs: [{ id: 'q', class: 'queued' }] });
    expect(ok({ $schema: '../schemas/scenario.schema.json', ...plain })).toEqual(ok(plain));
    expect(paths({ $schema: 1, ...plain })).toEqual(['$schema']);
    expect(paths(doc({ inputs: [{ id: 'q', class: 'queued', $schema: 'x' }] }))).toEqual(['inputs[0].$schema']);
  });

  it('kernel accepts only the keys of docs/spec.md §12.2', () => {
    expect(
      paths(doc({ kernel: { stepBudget: 1, systemPrompt: 'x', offload: { enabled: true, helpers: 2 } } })),
    ).toEqual(['kernel.offload.helpers', 'kernel.stepBudget', 'kernel.systemPrompt']);
  });

  it('ids are required, match the pattern, and gq*/gi* are reserved for generated inputs', () => {
    const ps = problems(
      doc({
        inputs: [
          { class: 'queued' },
          { id: 'gq1', class: 'queued' },
          { id: 'gi4-1', class: 'queued' },
          { id: 'giraffe', class: 'queued' },
          { id: 'a_b', class: 'queued' },
          { id: 'g', class: 'queued' },
        ],
      }),
    );
    expect(ps.map((p) => p.path)).toEqual([
      'inputs[0].id',
      'inputs[1].id',
      'inputs[2].id',
      'inputs[3].id',
      'inputs[4].id',
    ]);
    expect(ps[0]?.message).toBe('required: a string');
    expect(ps[1]?.message).toContain('reserved for generated inputs');
  });

  it('duplicate ids: the problem is at the second one', () => {
    const ps = problems(
      doc({
        inputs: [
          { id: 'a', class: 'queued' },
          { id: 'b', class: 'queued' },
          { id: 'a', class: 'queued' },
        ],
      }),
    );
    expect(ps).toEqual([
      { path: 'inputs[2].id', message: "duplicate id 'a' (first used by inputs[0]); ids must be unique" },
    ]);
  });

  it('class is required and must be queued or interrupt', () => {
    const ps = problems(doc({ inputs: [{ id: 'a' }, { id: 'b', class: 'urgent' }] }));
    expect(ps).toEqual([
      { path: 'inputs[0].class', message: 'required: must be one of: queued, interrupt' },
      { path: 'inputs[1].class', message: 'must be one of: queued, interrupt (got "urgent")' },
    ]);
  });

  it('level on a queued input, missing level on an interrupt, and a level other than "L1".."L4" are problems', () => {
    const ps = problems(
      doc({
        inputs: [
          { id: 'a', class: 'queued', level: 'L1' },
          { id: 'b', class: 'interrupt' },
          { id: 'c', class: 'interrupt', level: 'l2' },
          { id: 'd', class: 'interrupt', level: 3 },
        ],
      }),
    );
    expect(ps.map((p) => p.path)).toEqual(['inputs[0].level', 'inputs[1].level', 'inputs[2].level', 'inputs[3].level']);
    expect(ps[0]?.message).toContain('allowed only on interrupts');
    expect(ps[1]?.message).toBe('required on an interrupt: one of L1, L2, L3, L4');
    expect(ps[2]?.message).toBe('must be one of: L1, L2, L3, L4 (got "l2")');
  });

  it('stop is allowed only on interrupts', () => {
    expect(paths(doc({ inputs: [{ id: 'a', class: 'queued', stop: true }] }))).toEqual(['inputs[0].stop']);
    expect(paths(doc({ inputs: [{ id: 'a', class: 'interrupt', level: 'L1', stop: 1 }] }))).toEqual(['inputs[0].stop']);
  });

  it('at most one of at / when / afterTerminal: each extra one is a problem', () => {
    const ps = problems(
      doc({
        inputs: [
          { id: 'a', class: 'queued' },
          { id: 'b', class: 'queued', at: 5, afterTerminal: 'a' },
          { id: 'c', class: 'queued', at: 5, when: { task: 'a', step: 'Model' }, afterTerminal: 'a' },
        ],
      }),
    );
    expect(ps.map((p) => p.path)).toEqual(['inputs[1].afterTerminal', 'inputs[2].afterTerminal', 'inputs[2].when']);
    expect(ps[0]?.message).toBe("conflicts with 'at': give at most one of at, when, afterTerminal");
  });

  it('at must be an integer ≥ 0; when needs a task and a known step; afterMs ≥ 0', () => {
    expect(
      paths(
        doc({
          inputs: [
            { id: 'a', class: 'queued', at: 1.5 },
            { id: 'b', class: 'queued', when: { step: 'Thinking', afterMs: -2, extra: 1 } },
          ],
        }),
      ),
    ).toEqual([
      'inputs[0].at',
      'inputs[1].when.afterMs',
      'inputs[1].when.extra',
      'inputs[1].when.step',
      'inputs[1].when.task',
    ]);
  });

  it('trigger targets: an unknown input id, a self trigger and an undeclared agent are problems', () => {
    const ps = problems(
      doc({
        residents: [{ id: 'watcher' }],
        inputs: [
          { id: 'a', class: 'queued' },
          { id: 'b', class: 'queued', afterTerminal: 'missing' },
          { id: 'c', class: 'queued', afterTerminal: 'c' },
          { id: 'd', class: 'queued', when: { task: 'ghost:1', step: 'Model' } },
          { id: 'e', class: 'queued', afterTerminal: 'root:0' },
          { id: 'f', class: 'queued', afterTerminal: 'watcher:3' },
          { id: 'g', class: 'queued', when: { task: 'root:12', step: 'TurnEnd' } },
          { id: 'h', class: 'queued', afterTerminal: 'a' },
        ],
      }),
    );
    expect(ps.map((p) => p.path)).toEqual([
      'inputs[1].afterTerminal',
      'inputs[2].afterTerminal',
      'inputs[3].when.task',
      'inputs[4].afterTerminal',
    ]);
    expect(ps[0]?.message).toBe(
      `unknown task 'missing': must be the id of an input in this file or a kernel task "<agent>:<n>" (n ≥ 1)`,
    );
    expect(ps[1]?.message).toContain('cannot trigger on itself');
    expect(ps[2]?.message).toBe(
      `unknown agent 'ghost': must be "root" or a declared resident id (declared residents: watcher)`,
    );
  });

  it('a trigger may name a generated input that generate creates', () => {
    const base = { inputs: [{ id: 'a', class: 'queued', afterTerminal: 'gi4-2' }] };
    expect(ok(doc({ ...base, generate: { queued: 0, interrupts: { L4: 2 } } })).inputs[0]?.timing).toEqual({
      kind: 'afterTerminal',
      task: 'gi4-2',
    });
    expect(paths(doc({ ...base, generate: { queued: 0, interrupts: { L4: 1 } } }))).toEqual([
      'inputs[0].afterTerminal',
    ]);
    expect(paths(doc(base))).toEqual(['inputs[0].afterTerminal']);
  });

  it('inputs on a non-root agent must name a declared resident', () => {
    expect(
      ok(doc({ residents: [{ id: 'w' }], inputs: [{ id: 'a', class: 'queued', agent: 'w' }] })).inputs[0]?.agent,
    ).toBe('w');
    expect(paths(doc({ inputs: [{ id: 'a', class: 'queued', agent: 'w' }] }))).toEqual(['inputs[0].agent']);
  });

  it('residents: ids unique, not "root", kinds resident | rt', () => {
    expect(paths(doc({ residents: [{ id: 'root' }, { id: 'w' }, { id: 'w', kind: 'robot' }, { id: 'a.b' }] }))).toEqual(
      ['residents[0].id', 'residents[2].id', 'residents[2].kind', 'residents[3].id'],
    );
  });

  it('kernelReplies keys must be <agent>:<n> with n ≥ 1 and a known agent', () => {
    const ps = problems(
      doc({
        residents: [{ id: 'watcher' }],
        kernelReplies: {
          'root:1': [{}],
          'watcher:2': [{}],
          root: [{}],
          'root:0': [{}],
          'root:01': [{}],
          'ghost:1': [{}],
          'root:3': [],
          'root:4': [{ error: 'timeout' }],
        },
      }),
    );
    expect(ps.map((p) => p.path)).toEqual([
      'kernelReplies["ghost:1"]',
      'kernelReplies.root',
      'kernelReplies["root:0"]',
      'kernelReplies["root:01"]',
      'kernelReplies["root:3"]',
      'kernelReplies["root:4"][0].error',
    ]);
    expect(ps.find((p) => p.path === 'kernelReplies.root')?.message).toBe(
      'invalid key: must be "<agent>:<n>" with n ≥ 1, e.g. "root:1"',
    );
    expect(ps.find((p) => p.path === 'kernelReplies["root:4"][0].error')?.message).toBe(
      'must be one of: fail, context_full (got "timeout")',
    );
  });

  it('a Range is an integer ≥ 0 or [min, max] with 0 ≤ min ≤ max', () => {
    for (const good of [0, 7, [0, 0], [3, 9]])
      expect(ok(doc({ model: { chunkMs: good } })).model.chunkMs).toEqual(good);
    for (const bad of [-1, 1.5, [2, 1], [1], [1, 2, 3], [-1, 2], '5', null]) {
      const ps = problems(doc({ model: { chunkMs: bad } }));
      expect(ps.map((p) => p.path)).toEqual(['model.chunkMs']);
      expect(ps[0]?.message).toMatch(
        /^must be an integer 0 … 1000000000000 or \[min, max\] with integers 0 ≤ min ≤ max ≤ 1000000000000, got /,
      );
    }
    expect(problems(doc({ tools: { t: {} } }))).toEqual([
      {
        path: 'tools.t.durationMs',
        message: 'required: an integer 0 … 1000000000000 or [min, max] with integers 0 ≤ min ≤ max ≤ 1000000000000',
      },
    ]);
  });

  it('tool names match [A-Za-z0-9_-]+; replies need at least one entry', () => {
    expect(paths(doc({ tools: { 'two words': { durationMs: 1 }, '': { durationMs: 1 } } }))).toEqual([
      'tools[""]',
      'tools["two words"]',
    ]);
    expect(paths(doc({ inputs: [{ id: 'a', class: 'queued', replies: [] }] }))).toEqual(['inputs[0].replies']);
  });

  it('channels, outputs, events, generate, faults and expect are validated fully', () => {
    expect(
      paths(
        doc({
          channels: [{ plugin: 'qq' }, { name: 'x', owner: 3 }],
          outputs: [{ name: 'qq', caps: 'text' }],
          events: [{ at: 0 }, { at: 1, destroy: { id: 'w', channels: 'burn' } }, { stopAgent: 'w' }],
          generate: { queued: 1.5, spacingMs: [5, 1], victimTimeoutMs: -1 },
          faults: { toolFailRate: -0.1, modelStalls: 1 },
          inputs: [{ id: 'a', class: 'queued' }],
          residents: [{ id: 'w' }],
          expect: {
            terminal: { a: 'finished' },
            tasks: { a: { preemptCount: { min: 3, max: 1 }, x: { mn: 1 } } },
            equal: [['root', 'root.resumed']],
            agents: { w: { state: 'asleep' } },
            exitCode: 5,
          },
        }),
      ),
    ).toEqual([
      'channels[0].name',
      'channels[1].owner',
      'events[0]',
      'events[1].destroy.channels',
      'events[2].at',
      'expect.agents.w.state',
      'expect.equal[0][0]',
      'expect.exitCode',
      'expect.tasks.a.preemptCount',
      'expect.tasks.a.x',
      'expect.tasks.a.x.mn',
      'expect.terminal.a',
      'faults.modelStalls',
      'faults.toolFailRate',
      'generate.queued',
      'generate.spacingMs',
      'generate.victimTimeoutMs',
      'outputs[0].caps',
    ]);
  });
});

describe('loadScenarioFile', () => {
  it('an unreadable file or invalid JSON is one problem at path "" naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-scenario-'));
    try {
      const missing = join(dir, 'missing.json');
      const r1 = loadScenarioFile(missing);
      expect(r1.ok).toBe(false);
      if (!r1.ok) {
        expect(r1.problems).toHaveLength(1);
        expect(r1.problems[0]?.path).toBe('');
        expect(r1.problems[0]?.message).toContain(missing);
      }
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, '{"version": 1,');
      const r2 = loadScenarioFile(broken);
      expect(r2.ok).toBe(false);
      if (!r2.ok) {
        expect(r2.problems).toHaveLength(1);
        expect(r2.problems[0]?.path).toBe('');
        expect(r2.problems[0]?.message).toMatch(/broken\.json is not valid JSON: /);
      }
      const invalid = join(dir, 'invalid.json');
      writeFileSync(invalid, JSON.stringify({ version: 1, name: 'x', inputs: [{ id: 'a' }] }));
      const r3 = loadScenarioFile(invalid);
      expect(r3.ok ? [] : r3.problems.map((p) => p.path)).toEqual(['inputs[0].class']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
