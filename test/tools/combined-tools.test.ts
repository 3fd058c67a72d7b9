/**
 * serve's combined ToolRunner: the specs of every source in order, a call routed to the first source
 * that owns its name (and to no other), and a call no source owns answered with the configured tools.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCall, ToolContext, ToolResult, ToolSpec } from '../../src/kernel/index.ts';
import { CombinedToolRunner } from '../../src/tools/combined-tools.ts';
import type { ToolSource } from '../../src/tools/tool-source.ts';

function spec(name: string): ToolSpec {
  return { name, description: name, parameters: { type: 'object' }, parallelSafe: false };
}

/** A source that lists `listed`, owns `owned` and answers with its own label and the call's name. */
function source(label: string, listed: readonly string[], owned: readonly string[], calls: string[]): ToolSource {
  return {
    specs: () => listed.map(spec),
    owns: (name) => owned.includes(name),
    run: (call: ToolCall, ctx: ToolContext): Promise<ToolResult> => {
      calls.push(`${label}:${call.name}:${ctx.task}`);
      return Promise.resolve({ ok: true, output: `${label} ran ${call.name}` });
    },
  };
}

const ctx: ToolContext = { agent: 'root', task: 't1', signal: new AbortController().signal, deadlineMs: 0 };

describe('CombinedToolRunner', () => {
  it('lists the specs of every source, in source order', () => {
    const runner = new CombinedToolRunner([
      source('a', ['x', 'y'], [], []),
      source('b', [], [], []),
      source('c', ['z'], [], []),
    ]);
    expect(runner.specs()).toEqual([spec('x'), spec('y'), spec('z')]);
  });

  it('owns a name when any source owns it, listed or not', () => {
    const runner = new CombinedToolRunner([source('a', ['x'], ['x'], []), source('b', [], ['gone'], [])]);
    expect(runner.owns('x')).toBe(true);
    expect(runner.owns('gone')).toBe(true);
    expect(runner.owns('y')).toBe(false);
    expect(new CombinedToolRunner([]).owns('x')).toBe(false);
  });

  it('routes a call to the first source that owns it, and runs it nowhere else', async () => {
    const calls: string[] = [];
    const runner = new CombinedToolRunner([source('a', ['x'], ['x'], calls), source('b', ['y'], ['y', 'x'], calls)]);
    expect(await runner.run({ id: 'c1', name: 'y', args: '{}' }, ctx)).toEqual({ ok: true, output: 'b ran y' });
    expect(await runner.run({ id: 'c2', name: 'x', args: '{}' }, ctx)).toEqual({ ok: true, output: 'a ran x' });
    expect(calls).toEqual(['b:y:t1', 'a:x:t1']);
  });

  it('answers a call no source owns with the configured tools, and runs nothing', async () => {
    const calls: string[] = [];
    const runner = new CombinedToolRunner([
      source('a', ['x', 'y'], ['x', 'y'], calls),
      source('b', ['z'], ['z'], calls),
    ]);
    expect(await runner.run({ id: 'c1', name: 'rm', args: '{}' }, ctx)).toEqual({
      ok: false,
      output: 'tool "rm" is not configured; configured tools: x, y, z',
    });
    expect(calls).toEqual([]);
  });

  it('says only that the tool is not configured when no tool is', async () => {
    const runner = new CombinedToolRunner([source('a', [], ['hidden'], [])]);
    expect(await runner.run({ id: 'c1', name: 'rm', args: '{}' }, ctx)).toEqual({
      ok: false,
      output: 'tool "rm" is not configured',
    });
    expect(await new CombinedToolRunner([]).run({ id: 'c1', name: 'rm', args: '{}' }, ctx)).toEqual({
      ok: false,
      output: 'tool "rm" is not configured',
    });
  });
});
