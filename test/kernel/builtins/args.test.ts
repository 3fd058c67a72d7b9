/**
 * How the built-ins read a model's untrusted arguments (docs/spec.md §9.1, §10.3, §10.6, §8.3): empty, blank,
 * `null` and absent arguments are "no arguments"; anything else that is not a JSON object is a tool
 * error showing an example; a field of the wrong type is a tool error naming the field. Nothing
 * throws, and a well-formed request reaches the control plane exactly as the model wrote it.
 */
import { describe, expect, it } from 'vitest';
import { BuiltinTools, type BuiltinContext } from '../../../src/kernel/builtins/builtins.ts';
import { runChildTool, type ChildOps } from '../../../src/kernel/builtins/child-tools.ts';
import { runInputChannelsTool } from '../../../src/kernel/builtins/input-channels.ts';
import { runResidentAgents } from '../../../src/kernel/builtins/resident-agents.ts';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import type { ChildControl } from '../../../src/kernel/children/control.ts';
import type { ToolResult } from '../../../src/kernel/ports/tool-runner.ts';

/** A control plane that records every request it is handed and answers "ok <action>". */
class RecordingControl implements ChildControl {
  readonly calls: unknown[][] = [];

  private answer(action: string, ...args: unknown[]): ToolResult {
    this.calls.push([action, ...args]);
    return { ok: true, output: `ok ${action}` };
  }

  list(): ToolResult {
    return this.answer('list');
  }
  create(spec: unknown, nowMs: number): ToolResult {
    return this.answer('create', spec, nowMs);
  }
  send(id: string, text: string, nowMs: number): ToolResult {
    return this.answer('send', id, text, nowMs);
  }
  inspect(id: string): ToolResult {
    return this.answer('inspect', id);
  }
  compress(id: string, nowMs: number): ToolResult {
    return this.answer('compress', id, nowMs);
  }
  reclaim(id: string, keep: readonly number[] | undefined, disposal: unknown, nowMs: number): ToolResult {
    return this.answer('reclaim', id, keep, disposal, nowMs);
  }
  destroy(id: string, disposal: unknown, nowMs: number): ToolResult {
    return this.answer('destroy', id, disposal, nowMs);
  }
}

const RA_SHAPE = 'resident_agents arguments must be a JSON object such as {"action":"list"}';
const RA_UNKNOWN =
  'resident_agents: unknown action null; valid actions: list, create, send, inspect, compress, reclaim, destroy';

function ra(raw: unknown): { result: ToolResult; calls: unknown[][] } {
  const control = new RecordingControl();
  const result = runResidentAgents(control, raw, 7);
  return { result, calls: control.calls };
}

const refused = (output: string): ToolResult => ({ ok: false, output });

describe('resident_agents reads its arguments (docs/spec.md §10.6)', () => {
  it.each([
    ['empty JSON text', ''],
    ['blank JSON text', '  \n '],
    ['the JSON null', 'null'],
    ['null', null],
    ['no arguments at all', undefined],
    ['an empty object', {}],
  ])('%s is a request without an action', (_what, raw) => {
    expect(ra(raw)).toEqual({ result: refused(RA_UNKNOWN), calls: [] });
  });

  it.each([
    ['JSON text that does not parse', '{"action":'],
    ['a JSON array', '[{"action":"list"}]'],
    ['a JSON number', '5'],
    ['an array', [{ action: 'list' }]],
    ['a string value', 'list'],
  ])('%s is not an object: the error shows an example', (_what, raw) => {
    expect(ra(raw)).toEqual({ result: refused(RA_SHAPE), calls: [] });
  });

  it('an id must be a non-blank string', () => {
    expect(ra({ action: 'inspect', id: '   ' }).result).toEqual(
      refused('resident_agents inspect: id must be a non-empty string'),
    );
    expect(ra({ action: 'inspect', id: 3 }).result).toEqual(
      refused('resident_agents inspect: id must be a non-empty string'),
    );
    expect(ra('{"action":"inspect","id":"kid"}')).toEqual({
      result: { ok: true, output: 'ok inspect' },
      calls: [['inspect', 'kid']],
    });
  });

  it('send needs a non-blank text, and passes it on as written', () => {
    expect(ra({ action: 'send', id: 'kid' })).toEqual({
      result: refused('resident_agents send: text must be a non-empty string'),
      calls: [],
    });
    expect(ra({ action: 'send', id: 'kid', text: ' \t' }).result).toEqual(
      refused('resident_agents send: text must be a non-empty string'),
    );
    expect(ra({ action: 'send', id: 'kid', text: ' hi ' }).calls).toEqual([['send', 'kid', ' hi ', 7]]);
  });

  it('create: every list field must be an array of strings', () => {
    for (const field of ['input_chs', 'allowed_outputs', 'tools']) {
      for (const bad of [['qq/a', 1], 'qq/a', [null]]) {
        expect(ra({ action: 'create', id: 'kid', [field]: bad })).toEqual({
          result: refused(`resident_agents create: ${field} must be an array of strings`),
          calls: [],
        });
      }
    }
  });

  it('create: kind and task_prompt must be strings', () => {
    expect(ra({ action: 'create', id: 'kid', kind: 5 }).result).toEqual(
      refused('resident_agents create: kind must be a string'),
    );
    expect(ra({ action: 'create', id: 'kid', task_prompt: ['watch'] }).result).toEqual(
      refused('resident_agents create: task_prompt must be a string'),
    );
  });

  it('create: capacity must be an integer of at least 1', () => {
    for (const bad of [0, -5, 1.5, '4096']) {
      expect(ra({ action: 'create', id: 'kid', capacity: bad })).toEqual({
        result: refused('resident_agents create: capacity must be an integer >= 1'),
        calls: [],
      });
    }
    expect(ra({ action: 'create', id: 'kid', capacity: 1 }).calls).toEqual([['create', { id: 'kid', capacity: 1 }, 7]]);
  });

  it('create: a full spec (docs/spec.md §9.1 names) reaches the control plane field for field, an empty one carries only the id', () => {
    const full = {
      action: 'create',
      id: 'kid',
      kind: 'rt',
      input_chs: ['qq/a', 'qq/b'],
      allowed_outputs: ['chat'],
      tools: ['search'],
      task_prompt: 'watch qq',
      capacity: 8,
    };
    expect(ra(JSON.stringify(full)).calls).toEqual([
      [
        'create',
        {
          id: 'kid',
          kind: 'rt',
          inputChs: ['qq/a', 'qq/b'],
          allowedOutputs: ['chat'],
          tools: ['search'],
          taskPrompt: 'watch qq',
          capacity: 8,
        },
        7,
      ],
    ]);
    expect(ra({ action: 'create', id: 'kid', input_chs: [] }).calls).toEqual([
      ['create', { id: 'kid', inputChs: [] }, 7],
    ]);
  });

  it('docs/spec.md §10.6: a key that is not one of §9.1 is refused before anything else, naming it, a likely intended key and the accepted ones', () => {
    const accepted =
      '(accepted: action, id, kind, task_prompt, input_chs, allowed_outputs, tools, capacity, text, residual, channels, keep)';
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'create', id: 'kid', taskPrompt: 'x' }, "'taskPrompt'; did you mean 'task_prompt'?"],
      [{ action: 'create', id: 'kid', Input_Chs: [] }, "'Input_Chs'; did you mean 'input_chs'?"],
      [{ action: 'create', id: 'kid', allowed_output: [] }, "'allowed_output'; did you mean 'allowed_outputs'?"],
      [{ action: 'create', id: 'kid', contextWindowTokens: 100 }, "'contextWindowTokens'"],
      [{ action: 'send', id: 'kid', text: 'hi', message: 'hi' }, "'message'"],
      [{ action: 'bogus', colour: 'red' }, "'colour'"],
      [{ acton: 'list' }, "'acton'; did you mean 'action'?"],
    ];
    for (const [args, named] of cases) {
      expect(ra(args), JSON.stringify(args)).toEqual({
        result: refused(`resident_agents: unknown argument ${named} ${accepted}`),
        calls: [],
      });
    }
  });

  it('destroy and reclaim: a residual policy and a channel disposition are passed on; others are refused', () => {
    expect(ra({ action: 'destroy', id: 'kid', residual: 'drop', channels: 'keep' }).calls).toEqual([
      ['destroy', 'kid', { residual: 'drop', channels: 'keep' }, 7],
    ]);
    expect(ra({ action: 'destroy', id: 'kid', channels: 'handback' }).calls).toEqual([
      ['destroy', 'kid', { channels: 'handback' }, 7],
    ]);
    expect(ra({ action: 'reclaim', id: 'kid', residual: 'keep', keep: [0, 2] }).calls).toEqual([
      ['reclaim', 'kid', [0, 2], { residual: 'keep' }, 7],
    ]);
    expect(ra({ action: 'destroy', id: 'kid', residual: 'later' }).result).toEqual(
      refused('resident_agents destroy: residual must be one of keep, drop'),
    );
    expect(ra({ action: 'reclaim', id: 'kid', channels: 'give' }).result).toEqual(
      refused('resident_agents reclaim: channels must be one of release, keep, handback'),
    );
  });
});

describe('the child-only tools read their arguments (docs/spec.md §10.3, §10.4)', () => {
  function child(tool: 'notify_parent' | 'inputch_note', raw: unknown): { result: ToolResult; seen: string[] } {
    const seen: string[] = [];
    const ops: ChildOps = { notifyParent: (t) => seen.push(`notify ${t}`), note: (t) => seen.push(`note ${t}`) };
    return { result: runChildTool(tool, ops, raw), seen };
  }

  it('arguments that are not an object are refused with an example, and nothing reaches the parent', () => {
    for (const raw of ['["hi"]', 'hi', 5]) {
      expect(child('notify_parent', raw)).toEqual({
        result: refused('notify_parent arguments must be a JSON object such as {"text":"..."}'),
        seen: [],
      });
    }
  });

  it('no arguments, or a blank text, is refused naming the field', () => {
    for (const raw of ['', ' ', 'null', undefined, { text: '  ' }, { text: 1 }]) {
      expect(child('inputch_note', raw)).toEqual({
        result: refused('inputch_note: text must be a non-empty string'),
        seen: [],
      });
    }
  });

  it('a text reaches the parent or the table as written', () => {
    expect(child('notify_parent', '{"text":"look"}')).toEqual({
      result: { ok: true, output: 'parent notified' },
      seen: ['notify look'],
    });
    expect(child('inputch_note', { text: ' done ' })).toEqual({
      result: { ok: true, output: 'noted' },
      seen: ['note  done '],
    });
  });
});

describe('input_channels reads its arguments (docs/spec.md §8.3)', () => {
  const registry = new ChannelRegistry();
  registry.register({ name: 'qq/a', plugin: 'qq' });
  const ALL = 'all registered inputchs (1):\n  - qq/a (plugin qq)\n      owner: unassigned (root / kernel default)';

  it.each([
    ['blank JSON text', '   '],
    ['the JSON null', 'null'],
    ['null', null],
    ['no arguments at all', undefined],
    ['an object without a view', {}],
    ['an object with only a name', { name: 'qq/a' }],
  ])('%s shows the default view', (_what, raw) => {
    expect(runInputChannelsTool(registry, 'root', raw)).toEqual({ ok: true, output: ALL });
  });

  it('view=detail with an empty name asks for the name', () => {
    expect(runInputChannelsTool(registry, 'root', { view: 'detail', name: '' })).toEqual(
      refused('view=detail needs the name argument (an inputch name); see view=all for the names'),
    );
  });

  it('a cleaner or a pruning policy given as an empty string is no flag', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'a', policy: { cleaner: '', contextPolicy: '' } });
    r.register({ name: 'b', policy: { cleaner: 'strip', contextPolicy: 'recent' } });
    expect(
      runInputChannelsTool(r, 'root', '{"view":"all"}')
        .output.split('\n')
        .filter((l) => l.startsWith('  - ')),
    ).toEqual(['  - a', '  - b [cleaner/prune:recent]']);
  });
});

describe('BuiltinTools: which built-ins an agent is offered and can run (docs/spec.md §8.4, §10.6)', () => {
  const ctx = (control: ChildControl | null): BuiltinContext => ({
    agent: 'kid',
    task: 't1',
    registry: new ChannelRegistry(),
    devices: [{ name: 'chat', caps: ['text'] }],
    allowedOutputs: [],
    memory: null,
    nowMs: 0,
    send: () => undefined,
    committed: () => undefined,
    child: null,
    control,
  });
  const call = (name: string, args = '{}') => ({ id: 'c1', name, args });

  it('an agent that may only read memory is offered memory_recall and cannot run memory_write', () => {
    const tools = new BuiltinTools({ devices: [], allowedOutputs: [], hasMemory: true, memoryWrites: false });
    expect(tools.specs.map((s) => s.name)).toEqual(['input_channels', 'output_list_channels', 'memory_recall']);
    expect(tools.lookup('memory_write')).toBeUndefined();
  });

  it('resident_agents is refused where it was not granted, even with a control plane at hand', () => {
    const tools = new BuiltinTools({ devices: [], allowedOutputs: [], hasMemory: false });
    const control = new RecordingControl();
    const run = tools.lookup('resident_agents');
    expect(run?.(ctx(control), call('resident_agents', '{"action":"list"}'))).toEqual(
      refused('resident_agents is offered to the root agent only'),
    );
    expect(control.calls).toEqual([]);
  });

  it('every output_send__<name> resolves to the send tool; the bare prefix and other unknown names do not', () => {
    const tools = new BuiltinTools({
      devices: [{ name: 'chat', caps: ['text'] }],
      allowedOutputs: [],
      hasMemory: false,
    });
    expect(tools.lookup('output_send__')).toBeUndefined();
    expect(tools.lookup('no_such_tool_at_all')).toBeUndefined();
    expect(tools.lookup('output_send')).toBeUndefined();
    const unlisted = tools.lookup('output_send__speaker');
    expect(unlisted?.(ctx(null), call('output_send__speaker', '{"text":"hi"}'))).toEqual(
      refused('no output channel named "speaker"; see output_list_channels'),
    );
  });
});
