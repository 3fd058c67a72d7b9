/**
 * The built-in tools as the model sees them (docs/spec.md §8.3, §8.4, §9.1, §10.3, §10.6, §3.8): each one's
 * name, its parameter schema (types, enums, required fields), whether its calls may run together in
 * one ToolBatch, and a description that names what it does. The schemas are written out here, so a
 * changed field, enum or flag fails a test; the kernel-level tests below show the flag at work.
 */
import { describe, expect, it } from 'vitest';
import { BuiltinTools, type BuiltinGrants } from '../../../src/kernel/builtins/builtins.ts';
import { RESIDENT_AGENTS_ARGS } from '../../../src/kernel/builtins/resident-agents.ts';
import type { GraphMemory, MemoryPorts } from '../../../src/kernel/ports/graph-memory.ts';
import type { ToolSpec } from '../../../src/kernel/ports/provider.ts';
import { memoryPorts } from '../../../src/memory/parsers.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

/** Every built-in granted: a text device, memory with writes, both child tools, resident_agents. */
const FULL: BuiltinGrants = {
  devices: [{ name: 'chat', caps: ['text'] }],
  allowedOutputs: [],
  hasMemory: true,
  childTools: ['notify_parent', 'inputch_note'],
  residentAgents: true,
};

function specOf(name: string, grants: BuiltinGrants = FULL): ToolSpec {
  const spec = new BuiltinTools(grants).specs.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no built-in ${name} in ${JSON.stringify(grants)}`);
  return spec;
}

const TEXT_ONLY = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
};

describe('which built-ins an agent is offered, in order (docs/spec.md §8.3, §8.4, §10.3, §10.6)', () => {
  it('every grant: the inputch and output tools, the memory tools, the child tools, resident_agents; each one runs', () => {
    const tools = new BuiltinTools(FULL);
    expect(tools.specs.map((s) => s.name)).toEqual([
      'input_channels',
      'output_list_channels',
      'output_send__chat',
      'memory_recall',
      'memory_write',
      'notify_parent',
      'inputch_note',
      'resident_agents',
    ]);
    for (const spec of tools.specs) expect(tools.lookup(spec.name), spec.name).toBeTypeOf('function');
  });

  it('no grant: only the two read-only channel tools are listed, and the tree tools still answer with a refusal', () => {
    const tools = new BuiltinTools({ devices: [], allowedOutputs: [], hasMemory: false });
    expect(tools.specs.map((s) => s.name)).toEqual(['input_channels', 'output_list_channels']);
    for (const name of ['notify_parent', 'inputch_note', 'resident_agents'])
      expect(tools.lookup(name), name).toBeTypeOf('function');
    expect(tools.lookup('memory_recall')).toBeUndefined();
    expect(tools.lookup('memory_write')).toBeUndefined();
  });

  it('only the reading tools are parallel-safe: the inputch views, the output list and memory_recall', () => {
    const flags = new BuiltinTools(FULL).specs.map((s) => [s.name, s.parallelSafe]);
    expect(flags).toEqual([
      ['input_channels', true],
      ['output_list_channels', true],
      ['output_send__chat', false],
      ['memory_recall', true],
      ['memory_write', false],
      ['notify_parent', false],
      ['inputch_note', false],
      ['resident_agents', false],
    ]);
  });
});

describe('the memory tools (docs/spec.md §3.8)', () => {
  it('memory_recall takes keywords (required, strings) and a numeric depth', () => {
    const spec = specOf('memory_recall');
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: { keywords: { type: 'array', items: { type: 'string' } }, depth: { type: 'number' } },
      required: ['keywords'],
    });
    expect(spec.description).toBe('Recall entities and relations from graph memory matching keywords.');
  });

  it('memory_write takes triples (required), each with a required subject, relation and object and an optional sentence', () => {
    const spec = specOf('memory_write');
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: {
        triples: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              subject: { type: 'string' },
              relation: { type: 'string' },
              object: { type: 'string' },
              sentence: { type: 'string' },
            },
            required: ['subject', 'relation', 'object'],
          },
        },
      },
      required: ['triples'],
    });
    expect(spec.description).toBe('Write facts to graph memory as triples {subject, relation, object, sentence?}.');
  });
});

describe('the child tools (docs/spec.md §10.3, §10.4)', () => {
  it('notify_parent takes one required text and reaches the parent', () => {
    const spec = specOf('notify_parent');
    expect(spec.parameters).toEqual(TEXT_ONLY);
    expect(spec.description).toMatch(/^Tell your parent agent .*\(an interrupt on the parent\)\.$/);
  });

  it("inputch_note takes one required text and writes the round's record in the processing table", () => {
    const spec = specOf('inputch_note');
    expect(spec.parameters).toEqual(TEXT_ONLY);
    expect(spec.description).toMatch(/^Write this round's record in your processing table/);
  });
});

describe('resident_agents (docs/spec.md §10.6)', () => {
  const actions = ['list', 'create', 'send', 'inspect', 'compress', 'reclaim', 'destroy'];

  it('requires an action from the seven, types every field an action reads, and allows no other (docs/spec.md §9.1)', () => {
    const strings = { type: 'array', items: { type: 'string' } };
    expect(specOf('resident_agents').parameters).toEqual({
      type: 'object',
      properties: {
        action: { type: 'string', enum: actions },
        id: { type: 'string' },
        kind: { type: 'string' },
        task_prompt: { type: 'string' },
        input_chs: strings,
        allowed_outputs: strings,
        tools: strings,
        capacity: { type: 'number' },
        text: { type: 'string' },
        residual: { type: 'string', enum: ['keep', 'drop'] },
        channels: { type: 'string', enum: ['release', 'keep', 'handback'] },
        keep: { type: 'array', items: { type: 'number' } },
      },
      required: ['action'],
      additionalProperties: false,
    });
    // The schema's keys are the tool's argument names (docs/spec.md §9.1), in that order.
    expect(Object.keys(specOf('resident_agents').parameters.properties as object)).toEqual([...RESIDENT_AGENTS_ARGS]);
  });

  it('its description names every action with the fields it takes', () => {
    const { description } = specOf('resident_agents');
    expect(description).toMatch(/^Manage your resident child agents\. Actions: list; /);
    expect(description).toContain('create {id, kind?, input_chs?, allowed_outputs?, tools?, task_prompt?, capacity?}');
    expect(description).toContain('send {id, text}; inspect {id}; compress {id}; ');
    expect(description).toContain('reclaim {id, keep?: [indexes], residual?, channels?}');
    expect(description).toContain('destroy {id, residual?: keep|drop, channels?: release|keep|handback}.');
    for (const action of actions) expect(description).toMatch(new RegExp(`\\b${action}\\b`));
  });
});

describe('the output list tool (docs/spec.md §8.4)', () => {
  it('takes no argument and tells the model how to send', () => {
    const spec = specOf('output_list_channels');
    expect(spec.parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(spec.description).toBe(
      'List the output channels this agent may send on, with their capabilities and bound targets. Send with output_send__<channel>.',
    );
  });
});

/** A graph memory that remembers nothing and accepts every write. */
function emptyMemory(): MemoryPorts {
  const store: GraphMemory = {
    recall: () => ({ entities: [], relations: [] }),
    commit: (triples) => ({ added: triples.length, skipped: 0 }),
    exportTriples: () => [],
  };
  return memoryPorts(store);
}

describe('parallelSafe at work: the Model step batches only parallel-safe calls (docs/spec.md §3.2)', () => {
  const recall = { name: 'memory_recall', args: '{"keywords":["tea"]}' };
  const write = { name: 'memory_write', args: '{"triples":[{"subject":"a","relation":"likes","object":"tea"}]}' };

  it('two memory_recall calls run as one ToolBatch', () => {
    const h = new KernelWorld({}, { memory: emptyMemory() });
    h.queued('q', 'what do I like');
    h.answer('q', '', [recall, recall]);
    expect(h.stepsOf('q')).toEqual(['Prepare', 'Model', 'ToolBatch', 'TurnEnd', 'Model']);
  });

  it('two memory_write calls run one by one', () => {
    const h = new KernelWorld({}, { memory: emptyMemory() });
    h.queued('q', 'remember this');
    h.answer('q', '', [write, write]);
    expect(h.stepsOf('q')).toEqual([
      'Prepare',
      'Model',
      'ToolBegin',
      'ToolExec',
      'ToolAfter',
      'ToolBegin',
      'ToolExec',
      'ToolAfter',
      'ToolBegin',
      'TurnEnd',
      'Model',
    ]);
  });
});
