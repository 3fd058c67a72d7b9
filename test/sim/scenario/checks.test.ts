/**
 * The cross-field pass of the scenario reader (docs/spec.md §12.1, §12.2): each rule broken on its own, with
 * the exact problem it reports, and the edge cases it must accept or leave to the shape pass.
 */
import { describe, expect, it } from 'vitest';
import { COUNTER_NAMES, TASK_FIELDS } from '../../../src/sim/scenario/expect-names.ts';
import { doc, ok, problems } from './helpers.ts';

const queued = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  class: 'queued',
  ...extra,
});
const totalMessage = (got: number, inFile: number, generated: number): string =>
  `inputs plus generated inputs must be ≤ 1000000, got ${got} (${inFile} in inputs, ${generated} generated); split the scenario`;

describe('scenario cross-field rules: inputs', () => {
  it('stop on a queued input is refused with the fix: make it an interrupt with a level', () => {
    expect(problems(doc({ inputs: [queued('a', { stop: true })] }))).toEqual([
      {
        path: 'inputs[0].stop',
        message: 'allowed only on interrupts: remove it, or set class to "interrupt" with a level',
      },
    ]);
  });

  it("an empty agent is the shape pass's problem only, not also an unknown agent", () => {
    expect(problems(doc({ inputs: [queued('a', { agent: '' })] }))).toEqual([
      { path: 'inputs[0].agent', message: 'must not be empty' },
    ]);
  });

  it("an empty trigger target is the shape pass's problem only, not also an unknown task", () => {
    expect(problems(doc({ inputs: [queued('a', { afterTerminal: '' })] }))).toEqual([
      { path: 'inputs[0].afterTerminal', message: 'must not be empty' },
    ]);
    expect(problems(doc({ inputs: [queued('a', { when: { task: '', step: 'Model' } })] }))).toEqual([
      { path: 'inputs[0].when.task', message: 'must not be empty' },
    ]);
  });
});

describe('scenario cross-field rules: residents and events', () => {
  it('a duplicate resident id is reported at the second one, naming the first', () => {
    expect(problems(doc({ residents: [{ id: 'a' }, { id: 'w' }, { id: 'w' }] }))).toEqual([
      { path: 'residents[2].id', message: "duplicate resident id 'w' (first declared at residents[1])" },
    ]);
  });

  it('a resident named "root" is not listed among the declared residents of an unknown-agent message', () => {
    const ps = problems(doc({ residents: [{ id: 'root' }, { id: 'w' }], inputs: [queued('a', { agent: 'ghost' })] }));
    expect(ps.find((p) => p.path === 'inputs[0].agent')?.message).toBe(
      `unknown agent 'ghost': must be "root" or a declared resident id (declared residents: w)`,
    );
  });

  it('an event that does nothing names the actions it could take', () => {
    expect(problems(doc({ events: [{ at: 3 }] }))).toEqual([
      {
        path: 'events[0]',
        message: 'an event needs at least one of: registerChannel, unregisterChannel, destroy, stopAgent, crash',
      },
    ]);
  });
});

describe('scenario cross-field rules: crashes (docs/spec.md §12.2 events[].crash)', () => {
  it('a crash while the process is still down from another is a problem at the later one', () => {
    const events = [
      { at: 100, crash: { restartAfterMs: 50 } },
      { at: 150, crash: { restartAfterMs: 10 } },
      { at: 151, crash: { restartAfterMs: 10 } },
    ];
    expect(problems(doc({ events }))).toEqual([
      {
        path: 'events[1].crash',
        message:
          'a crash at 150 falls while the process is down (events[0] crashes it at 100 until 150); crash after 150',
      },
      {
        path: 'events[2].crash',
        message:
          'a crash at 151 falls while the process is down (events[1] crashes it at 150 until 160); crash after 160',
      },
    ]);
  });
});

describe('scenario cross-field rules: inputs plus generated inputs ≤ 1 000 000 (docs/spec.md §12.2 Bounds)', () => {
  it('every generated count adds to the total: queued and each of L1..L4', () => {
    const generate = { queued: 200_000, interrupts: { L1: 200_000, L2: 200_000, L3: 200_000, L4: 200_000 } };
    expect(ok(doc({ generate })).generate?.queued).toBe(200_000);
    expect(problems(doc({ inputs: [queued('a')], generate }))).toEqual([
      { path: 'generate', message: totalMessage(1_000_001, 1, 1_000_000) },
    ]);
  });

  it('a count of exactly 1 000 000 is a valid count and counts in full', () => {
    expect(problems(doc({ inputs: [queued('a')], generate: { queued: 1_000_000 } }))).toEqual([
      { path: 'generate', message: totalMessage(1_000_001, 1, 1_000_000) },
    ]);
  });

  it('a count the shape pass refuses (fractional, negative) adds nothing to the total', () => {
    // Counted, 1.5 or −1 would tip the total over or under the bound and add a second, misleading problem.
    expect(problems(doc({ generate: { queued: 1.5, interrupts: { L1: 1_000_000 } } })).map((p) => p.path)).toEqual([
      'generate.queued',
    ]);
    expect(problems(doc({ inputs: [queued('a')], generate: { queued: -1, interrupts: { L1: 1_000_000 } } }))).toEqual([
      { path: 'generate', message: totalMessage(1_000_001, 1, 1_000_000) },
      { path: 'generate.queued', message: 'must be ≥ 0, got -1' },
    ]);
  });

  it(
    'the total problem is at inputs when the file alone is over the bound, else at generate',
    { timeout: 120_000 },
    () => {
      const million = Array.from({ length: 1_000_000 }, (_, i) => queued(`q${i}`));
      expect(problems(doc({ inputs: million, generate: { queued: 1 } }))).toEqual([
        { path: 'generate', message: totalMessage(1_000_001, 1_000_000, 1) },
      ]);
      million.push(queued('last'));
      expect(problems(doc({ inputs: million }))).toEqual([
        { path: 'inputs', message: totalMessage(1_000_001, 1_000_001, 0) },
      ]);
    },
  );
});

describe('scenario cross-field rules: names inside expect', () => {
  it("an unknown agent's counters are not checked: the agent is the one problem", () => {
    expect(problems(doc({ expect: { counters: { nobody: { suspendd: 0 } } } }))).toEqual([
      {
        path: 'expect.counters.nobody',
        message: `unknown agent 'nobody': must be "root" or a declared resident id (no residents are declared)`,
      },
    ]);
  });

  it('an equal reference names a declared agent and a known counter', () => {
    expect(problems(doc({ expect: { equal: [['ghost.suspended', 'root.zzzzzzzz']] } }))).toEqual([
      {
        path: 'expect.equal[0][0]',
        message: `unknown agent 'ghost': must be "root" or a declared resident id (no residents are declared)`,
      },
      { path: 'expect.equal[0][1]', message: `unknown counter 'zzzzzzzz' (known: ${COUNTER_NAMES.join(', ')})` },
    ]);
  });

  it('a name close to no known one gets no suggestion, only the known list', () => {
    expect(problems(doc({ inputs: [queued('a')], expect: { tasks: { a: { zzzzzzzz: 1 } } } }))).toEqual([
      { path: 'expect.tasks.a.zzzzzzzz', message: `unknown task field 'zzzzzzzz' (known: ${TASK_FIELDS.join(', ')})` },
    ]);
  });

  it('every level 1..4 of a per-level counter may be referenced', () => {
    const equal = ['1', '2', '3', '4'].map((l) => [`root.preemptsByLevel.${l}`, `root.interruptsByLevel.${l}`]);
    expect(ok(doc({ expect: { equal } })).expect.equal).toEqual(equal);
  });
});

describe('scenario cross-field rules trust nothing about the JSON', () => {
  const mustBe = (path: string, what: string, got: string) => ({ path, message: `must be ${what}, got ${got}` });

  it('residents that are not objects, or whose ids are not strings, are the shape pass’s problems only', () => {
    const residents = [null, { id: 7 }, { id: 7 }, { id: 'r', inputChs: [5, null] }];
    expect(problems(doc({ residents }))).toEqual([
      mustBe('residents[0]', 'an object', 'null'),
      mustBe('residents[1].id', 'a string', '7'),
      mustBe('residents[2].id', 'a string', '7'),
      mustBe('residents[3].inputChs[0]', 'a string', '5'),
      mustBe('residents[3].inputChs[1]', 'a string', 'null'),
    ]);
  });

  it('counter references that are not strings, and task fields that are not objects, add no problem of their own', () => {
    expect(problems(doc({ inputs: [queued('a')], expect: { equal: [[5, null]], tasks: { a: 5 } } }))).toEqual([
      mustBe('expect.equal[0][0]', 'a string', '5'),
      mustBe('expect.equal[0][1]', 'a string', 'null'),
      mustBe('expect.tasks.a', 'an object', '5'),
    ]);
  });

  it('MCP servers, tool lists and downtimes that are not objects are the shape pass’s problems only', () => {
    const mcpServers = { s: 5, t: { tools: 5 }, u: { tools: {}, down: [null, { at: 'x' }, 5] } };
    expect(problems(doc({ mcpServers }))).toEqual([
      mustBe('mcpServers.s', 'an object', '5'),
      mustBe('mcpServers.t.tools', 'an object', '5'),
      mustBe('mcpServers.u.down[0]', 'an object', 'null'),
      mustBe('mcpServers.u.down[1].at', 'a number', '"x"'),
      mustBe('mcpServers.u.down[2]', 'an object', '5'),
    ]);
  });

  it('events that are not objects, or crashes that are not, are the shape pass’s problems only', () => {
    expect(problems(doc({ events: [null, { at: 5, crash: 5 }, 7] }))).toEqual([
      mustBe('events[0]', 'an object', 'null'),
      mustBe('events[1].crash', 'an object', '5'),
      mustBe('events[2]', 'an object', '7'),
    ]);
  });

  it('crashes are related by time, not by their order in the file; at one instant the later entry is the one down', () => {
    const later = [
      { at: 300, crash: { restartAfterMs: 10 } },
      { at: 100, crash: { restartAfterMs: 250 } },
    ];
    expect(problems(doc({ events: later }))).toEqual([
      {
        path: 'events[0].crash',
        message:
          'a crash at 300 falls while the process is down (events[1] crashes it at 100 until 350); crash after 350',
      },
    ]);
    const together = [
      { at: 100, crash: { restartAfterMs: 10 } },
      { at: 100, crash: { restartAfterMs: 500 } },
    ];
    expect(problems(doc({ events: together }))).toEqual([
      {
        path: 'events[1].crash',
        message:
          'a crash at 100 falls while the process is down (events[0] crashes it at 100 until 110); crash after 110',
      },
    ]);
  });
});
