/**
 * The names of a scenario file (docs/spec.md §12.2): the scenario name and input ids, tool names, resident
 * ids, kernel task keys and counter references. Each pattern covers the whole string, so every test
 * below pairs a name that must be accepted with names that differ from it only at the start, in the
 * middle or at the end.
 */
import { describe, expect, it } from 'vitest';
import { CHILD_ID_PATTERN } from '../../../src/kernel/index.ts';
import { formatPath, parseScenario } from '../../../src/sim/scenario/index.ts';
import { doc, ok } from './helpers.ts';

/** The messages of the problems at `path`; [] when the file parses or has none there. */
function messagesAt(json: unknown, path: string): string[] {
  const r = parseScenario(json);
  return r.ok ? [] : r.problems.filter((p) => p.path === path).map((p) => p.message);
}

const ID_MESSAGE = 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-", not starting with "-")';
const NAME_MESSAGE = 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-")';
const TOOL_MESSAGE = 'invalid key: a tool name must match [A-Za-z0-9_-]+';
const RESIDENT_MESSAGE =
  'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-", not starting with "-"), the rule the kernel creates children by';
const KERNEL_TASK_MESSAGE = 'invalid key: must be "<agent>:<n>" with n ≥ 1, e.g. "root:1"';
const COUNTER_REF_MESSAGE = 'must be "<agent>.<counter>", e.g. "root.suspended"';

// Not starting with "-", no capitals, no "_" or other characters anywhere in the name.
const LOWERCASE_ACCEPTED = ['a', '7', 'a-b-1', 'x--', '9lives'];
const LOWERCASE_REFUSED = ['', '-a', 'Ab', 'aB', 'a_b', 'ab.', '.ab', 'a b'];

describe('scenario names (docs/spec.md §12.2): name and input ids match [a-z0-9][a-z0-9-]*', () => {
  it('accepts lowercase letters, digits and "-" after the first character, as name and as id', () => {
    for (const name of LOWERCASE_ACCEPTED) {
      expect(ok({ version: 1, name }).name).toBe(name);
      expect(ok(doc({ inputs: [{ id: name, class: 'queued' }] })).inputs[0]?.id).toBe(name);
    }
  });

  it('refuses a leading "-", capitals and other characters anywhere, with the rule in the message', () => {
    for (const name of LOWERCASE_REFUSED) {
      expect(messagesAt({ version: 1, name }, 'name'), name).toEqual([NAME_MESSAGE]);
      expect(messagesAt(doc({ inputs: [{ id: name, class: 'queued' }] }), 'inputs[0].id'), name).toEqual([ID_MESSAGE]);
    }
  });

  it('an id starting with "gq" or "gi" is reserved for generated inputs; "g" alone or "gx" is not', () => {
    const reserved = 'ids starting with "gq" or "gi" are reserved for generated inputs; choose another id';
    for (const id of ['gq', 'gi', 'gq1', 'gi4-1', 'giraffe']) {
      expect(messagesAt(doc({ inputs: [{ id, class: 'queued' }] }), 'inputs[0].id'), id).toEqual([reserved]);
    }
    for (const id of ['g', 'gx', 'qg1', 'ig'])
      expect(ok(doc({ inputs: [{ id, class: 'queued' }] })).inputs[0]?.id).toBe(id);
  });
});

describe('scenario names (docs/spec.md §12.2): tool names match [A-Za-z0-9_-]+', () => {
  it('accepts letters of both cases, digits, "_" and "-", one or more', () => {
    for (const name of ['x', 'Fetch_weather-2', '_', '-run', '42']) {
      expect(ok(doc({ tools: { [name]: { durationMs: 1 } } })).tools.map((t) => t.name)).toEqual([name]);
    }
  });

  it('refuses the empty name and any other character at the start, in the middle or at the end', () => {
    for (const name of ['', '.ab', 'a.b', 'ab.', 'two words', 'tool/x']) {
      expect(messagesAt(doc({ tools: { [name]: { durationMs: 1 } } }), formatPath(['tools', name])), name).toEqual([
        TOOL_MESSAGE,
      ]);
    }
  });
});

describe("scenario names (docs/spec.md §12.2): resident ids match the kernel's child id rule [a-z0-9][a-z0-9-]*", () => {
  it('accepts a lowercase letter or digit first, then lowercase letters, digits and "-"', () => {
    for (const id of ['w', '9lives', 'watcher-2-b', 'w--']) {
      expect(ok(doc({ residents: [{ id }] })).residents[0]?.id).toBe(id);
      expect(CHILD_ID_PATTERN.test(id), id).toBe(true);
    }
  });

  it('refuses what the kernel would refuse at run time: capitals, "_", a leading "-", and ".", ":" or "/" anywhere', () => {
    for (const id of ['', 'Gardener', 'W', 'watcher_2', '_w', '-w', '.ab', 'a.b', 'ab.', 'a:1', 'child/w', 'a b']) {
      expect(messagesAt(doc({ residents: [{ id }] }), 'residents[0].id'), id).toEqual([RESIDENT_MESSAGE]);
      expect(CHILD_ID_PATTERN.test(id), id).toBe(false);
    }
  });

  it('refuses "root", the root agent, with its own message', () => {
    expect(messagesAt(doc({ residents: [{ id: 'root' }] }), 'residents[0].id')).toEqual([
      '"root" is the root agent; choose another resident id',
    ]);
  });
});

describe('scenario names (docs/spec.md §12.2): kernelReplies keys are "<agent>:<n>" with n ≥ 1', () => {
  it('accepts an agent id, ":" and a number without leading zeros, of one or more digits', () => {
    const keys = ['root:1', 'root:10', 'root:109', 'w-x-1:2'];
    const replies = Object.fromEntries(keys.map((k) => [k, [{ text: k }]]));
    const s = ok(doc({ residents: [{ id: 'w-x-1' }], kernelReplies: replies }));
    expect(Object.keys(s.kernelReplies)).toEqual(keys);
  });

  it('refuses a key with anything before the agent, after the number, a bad agent or a bad number', () => {
    for (const key of [
      '.root:1',
      'root:1x',
      'root:1\n',
      'root:0',
      'root:01',
      'root:',
      ':1',
      '_w:1',
      'ro.ot:1',
      'root',
      'root:-1',
    ]) {
      expect(messagesAt(doc({ kernelReplies: { [key]: [{}] } }), formatPath(['kernelReplies', key])), key).toEqual([
        KERNEL_TASK_MESSAGE,
      ]);
    }
  });
});

describe('scenario names (docs/spec.md §12.2): expect.equal names counters "<agent>.<counter>"', () => {
  it('accepts an agent and a counter separated by "."', () => {
    const pair = ['root.suspended', 'root.resumed'];
    expect(ok(doc({ expect: { equal: [pair] } })).expect.equal).toEqual([pair]);
  });

  it('refuses a reference without ".", with nothing before it or after it, or with a line break at the end', () => {
    for (const ref of ['root', '.root.suspended', 'root.', 'root.suspended\n']) {
      expect(messagesAt(doc({ expect: { equal: [[ref, 'root.resumed']] } }), 'expect.equal[0][0]'), ref).toContain(
        COUNTER_REF_MESSAGE,
      );
    }
  });
});
