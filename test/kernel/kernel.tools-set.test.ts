/**
 * `tools.set` (docs/spec.md §11, §13.3): the ToolRunner's tools change while the kernel runs — an MCP
 * server listed new tools, came back or went away. Every agent offers the new list from its next model
 * call, a child created later too (narrowed by its grant), a call of a tool that is gone is refused, the
 * change is traced, and a snapshot carries it.
 */
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { ToolSpec } from '../../src/kernel/ports/provider.ts';
import type { Command, KernelInput } from '../../src/kernel/protocol.ts';
import { TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { KernelWorld, TEST_TOOLS } from '../support/kernel-world.ts';

const READ: ToolSpec = {
  name: 'files__read_file',
  description: 'read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  parallelSafe: true,
};
const SEARCH = TEST_TOOLS[0] as ToolSpec;

/** Every runner tool a test offers: the rest of a model's list are built-ins. */
const RUNNER = new Set([...TEST_TOOLS, READ].map((t) => t.name));

function runnerToolNames(tools: readonly ToolSpec[] | undefined): string[] {
  return (tools ?? []).map((t) => t.name).filter((n) => RUNNER.has(n));
}

describe('tools.set', () => {
  it('offers the new tools from the next model call; the call in flight keeps its list', () => {
    const w = new KernelWorld({ outputs: [] });
    w.queued('q1', 'first');
    const before = runnerToolNames(w.modelCall('q1').request.tools);
    expect(before).toEqual(['search', 'fetch', 'write']);
    w.feed({ type: 'tools.set', tools: [SEARCH, READ] });
    w.answer('q1', '', [{ name: 'files__read_file', args: '{"path":"/a"}' }]);
    expect(w.toolRun('q1').call.name).toBe('files__read_file');
    w.toolResult('q1', 'contents');
    expect(runnerToolNames(w.modelCall('q1').request.tools)).toEqual(['search', 'files__read_file']);
    expect(w.events('tools.set')).toMatchObject([{ agent: 'root', tools: ['search', 'files__read_file'] }]);
    expect(w.dump().tools).toContain('files__read_file');
    expect(w.dump().tools).not.toContain('write');
  });

  it('refuses a call of a tool that is gone without sending it', () => {
    const w = new KernelWorld({ outputs: [] });
    w.queued('q1', 'first');
    w.feed({ type: 'tools.set', tools: [SEARCH] });
    w.answer('q1', '', [{ name: 'write', args: '{}' }]);
    expect(w.toolRuns('q1')).toEqual([]);
    expect(w.events('tool.end')).toMatchObject([{ name: 'write', ok: false, result: 'unknown tool write' }]);
  });

  it('reaches children: a live one and one created later, each narrowed by its grant', () => {
    const w = new KernelWorld({ outputs: [] });
    expect(w.feed({ type: 'child.create', spec: { id: 'all' } })).toEqual({ kind: 'created' });
    expect(w.feed({ type: 'child.create', spec: { id: 'granted', tools: ['search'] } })).toEqual({ kind: 'created' });
    // A grant may name only tools the runner has now.
    expect(w.feed({ type: 'child.create', spec: { id: 'early', tools: ['files__read_file'] } })).toMatchObject({
      kind: 'refused',
    });
    w.feed({ type: 'tools.set', tools: [SEARCH, READ] });
    expect(w.feed({ type: 'child.create', spec: { id: 'late', tools: ['files__read_file'] } })).toEqual({
      kind: 'created',
    });
    const tools = (id: string): string[] =>
      (w.kernel.dump().agents.find((a) => a.id === id)?.tools ?? []).filter((n) => RUNNER.has(n));
    expect(tools('all')).toEqual(['search', 'files__read_file']);
    expect(tools('granted')).toEqual(['search']);
    expect(tools('late')).toEqual(['files__read_file']);
    expect(w.kernel.tools()).toEqual([SEARCH, READ]);
  });

  it('an empty list offers only the built-ins', () => {
    const w = new KernelWorld({ outputs: [] });
    w.feed({ type: 'tools.set', tools: [] });
    w.queued('q1', 'first');
    expect(runnerToolNames(w.modelCall('q1').request.tools)).toEqual([]);
  });
});

describe('tools.set and snapshots', () => {
  const config = { tools: TEST_TOOLS, verify: true, cooldownMs: 0 } as const;

  function run(kernel: Kernel, inputs: readonly KernelInput[], nowMs: number): Command[] {
    const log: Command[] = [];
    for (const input of inputs) {
      kernel.feed(input, nowMs);
      log.push(...kernel.takeCommands());
    }
    return log;
  }

  it('a snapshot without a tools.set has no tools field, as before', () => {
    const kernel = new Kernel(config, null);
    run(kernel, [{ type: 'submit', submission: { id: 'q1', cls: 'queued', text: 'hi', source: 'cli' } }], 0);
    expect(kernel.snapshot()).not.toHaveProperty('tools');
  });

  it('a restored kernel offers the tools set before the snapshot, to every agent', () => {
    const rec = new TraceRecorder();
    const kernel = new Kernel(config, rec);
    run(
      kernel,
      [
        { type: 'child.create', spec: { id: 'c1' } },
        { type: 'tools.set', tools: [READ] },
      ],
      0,
    );
    const snapshot = kernel.snapshot();
    expect(snapshot.tools).toEqual([READ]);
    const restored = Kernel.restore(snapshot, null);
    expect(restored.tools()).toEqual([READ]);
    expect(restored.snapshot()).toEqual(snapshot);
    const next: KernelInput[] = [
      { type: 'submit', submission: { id: 'q1', cls: 'queued', text: 'hi', source: 'cli' } },
      { type: 'submit', submission: { id: 'q2', cls: 'queued', text: 'hi', source: 'cli', agent: 'c1' } },
    ];
    const original = run(kernel, next, 5);
    const again = run(restored, next, 5);
    expect(again).toEqual(original);
    const offered = again.flatMap((c) => (c.type === 'model.start' ? [runnerToolNames(c.request.tools)] : []));
    expect(offered).toEqual([['files__read_file'], ['files__read_file']]);
  });
});
