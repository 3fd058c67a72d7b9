import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstInvalidOffset } from '../../../src/validation/utf8.ts';
import { loadScenarioFile, parseScenario } from '../../../src/sim/scenario/index.ts';
import { paths, problems } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-scenario-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const VALID =
  '{"version": 1,\n "name": "enc",\n "inputs": [{"id": "a", "class": "queued", "text": "caf\u00e9 \u{1F600}"}]}';

describe('issue-7 item 13: scenario file encoding', () => {
  it('accepts a UTF-8 BOM at the start of the file', () => {
    const r = loadScenarioFile(file('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)])));
    expect(r.ok ? r.scenario.inputs[0]?.text : r.problems).toBe('caf\u00e9 \u{1F600}');
  });

  it('refuses bytes that are not UTF-8, naming the byte, its offset and its line', () => {
    const bytes = Buffer.from(VALID);
    const at = bytes.indexOf('caf') + 3; // replaces the first byte of "é" with a lone continuation byte
    bytes[at] = 0xff;
    const path = file('latin.json', bytes);
    const r = loadScenarioFile(path);
    expect(r.ok ? [] : r.problems).toEqual([
      { path: '', message: `scenario file ${path} is not valid UTF-8: byte 0xff at offset ${at} (line 3)` },
    ]);
  });

  it('names UTF-16 as the likely cause when the file starts with its BOM', () => {
    const path = file('utf16.json', Buffer.from(`\ufeff${VALID}`, 'utf16le'));
    const r = loadScenarioFile(path);
    expect(r.ok ? '' : r.problems[0]?.message).toBe(
      `scenario file ${path} is not valid UTF-8: byte 0xff at offset 0 (line 1); the file looks like UTF-16: save it as UTF-8`,
    );
  });

  it('finds the first ill-formed sequence: overlong, surrogate, above U+10FFFF, truncated', () => {
    const at = (...b: number[]): number => firstInvalidOffset(Uint8Array.from([0x41, ...b, 0x41]));
    expect(at(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80)).toBe(11); // é € 😀: all well formed
    expect(at(0xc0, 0xaf)).toBe(1); // overlong "/"
    expect(at(0xe0, 0x80, 0xaf)).toBe(1); // overlong, three bytes
    expect(at(0xed, 0xa0, 0x80)).toBe(1); // a surrogate
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(1); // above U+10FFFF
    expect(at(0xc3, 0xa9, 0xe2, 0x82)).toBe(3); // "€" cut short by the final "A"
    expect(firstInvalidOffset(Uint8Array.from([0x41, 0xe2, 0x82]))).toBe(1); // cut short by the end
  });
});

describe('issue-7 item 13: unknown names and bad values inside expect are schema problems', () => {
  const inputs = [
    { id: 'a', class: 'queued' },
    { id: 'b', class: 'interrupt', level: 'L2' },
  ];
  const withExpect = (
    expect: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    version: 1,
    name: 'exp',
    inputs,
    ...extra,
    expect,
  });

  it('accepts task ids of inputs, generated inputs and kernel tasks, declared agents, known counters and fields', () => {
    const r = parseScenario(
      withExpect(
        {
          terminal: { a: 'done', gq1: 'done', 'root:1': 'done', 'w:2': 'done' },
          replyContains: { b: 'ok' },
          tasks: { a: { modelCalls: 1, toolCalls: [], reply: 'ok a', preemptCount: { min: 0 } } },
          suspendOrder: ['a'],
          resumeOrder: ['a'],
          finishOrder: ['b', 'a', 'gi2-1'],
          counters: { root: { suspended: 1, preemptsByLevel: { '2': 1 } }, w: { executed: 0 } },
          countersMin: { root: { interruptsByLevel: { '1': 0 } } },
          equal: [
            ['root.suspended', 'root.resumed'],
            ['root.preemptsByLevel.2', 'w.interruptsByLevel.4'],
          ],
          outputs: { speaker: [{ task: 'a', text: 'hi' }], nowhere: [] },
          agents: { root: { state: 'stopped' }, w: { tableSize: 0 } },
          violations: ['DRAIN', 'RUNTIME', 'LIMIT'],
          maxStackDepth: 4,
        },
        { residents: [{ id: 'w' }], generate: { queued: 1, interrupts: { L2: 1 } } },
      ),
    );
    expect(r.ok ? [] : r.problems).toEqual([]);
  });

  it('an unknown task id, anywhere a task is named, is a problem at its path', () => {
    expect(
      paths(
        withExpect({
          terminal: { c: 'done' },
          replyContains: { 'ghost:1': 'x' },
          tasks: { gq1: { modelCalls: 1 } },
          suspendOrder: ['a', 'zz'],
          outputs: { speaker: [{ task: 'nobody' }] },
        }),
      ),
    ).toEqual([
      'expect.outputs.speaker[0].task',
      'expect.replyContains["ghost:1"]',
      'expect.suspendOrder[1]',
      'expect.tasks.gq1',
      'expect.terminal.c',
    ]);
  });

  it('unknown agents, counters and task fields are problems, with a suggestion when one is close', () => {
    const ps = problems(
      withExpect({
        tasks: { a: { modelCals: 1 } },
        counters: { root: { suspendd: 0 }, nobody: { suspended: 0 } },
        agents: { helper: { state: 'running' } },
      }),
    );
    expect(ps.map((p) => p.path)).toEqual([
      'expect.agents.helper',
      'expect.counters.nobody',
      'expect.counters.root.suspendd',
      'expect.tasks.a.modelCals',
    ]);
    expect(ps[2]?.message).toMatch(
      /^unknown counter 'suspendd'; did you mean 'suspended'\? \(known: enqueued, executed, /,
    );
    expect(ps[3]?.message).toMatch(
      /^unknown task field 'modelCals'; did you mean 'modelCalls'\? \(known: agent, movedFrom, /,
    );
    expect(ps[0]?.message).toBe(
      `unknown agent 'helper': must be "root" or a declared resident id (no residents are declared)`,
    );
  });

  it('a per-level counter takes levels and any other counter a number, in counters and in equal', () => {
    expect(
      problems(
        withExpect({
          counters: { root: { preemptsByLevel: 3, suspended: { '1': 1 } } },
          equal: [
            ['root.suspended.1', 'root.preemptsByLevel.5'],
            ['root.a.b.c', 'root.resumed'],
          ],
        }),
      ),
    ).toEqual([
      {
        path: 'expect.counters.root.preemptsByLevel',
        message: `'preemptsByLevel' is counted per level: write {"1": n, …, "4": n} with the levels to check`,
      },
      { path: 'expect.counters.root.suspended', message: `'suspended' is not counted per level: write a number` },
      { path: 'expect.equal[0][0]', message: `'suspended' is not counted per level: write "root.suspended"` },
      { path: 'expect.equal[0][1]', message: 'the level must be 1, 2, 3 or 4, got "5"' },
      {
        path: 'expect.equal[1][0]',
        message: 'must be "<agent>.<counter>" or "<agent>.<counter>.<level>", got "root.a.b.c"',
      },
    ]);
  });

  it('an unknown invariant name or a stack depth the stack can never reach is a problem', () => {
    expect(problems(withExpect({ violations: ['DRAINN'], maxStackDepth: 5 }))).toEqual([
      { path: 'expect.maxStackDepth', message: 'must be 0 … 4: the suspend stack never holds more' },
      {
        path: 'expect.violations[0]',
        message: expect.stringMatching(/^must be one of: I1, I2, .*DRAIN.* \(got "DRAINN"\)$/) as unknown as string,
      },
    ]);
  });
});
