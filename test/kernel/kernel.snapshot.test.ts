/**
 * Kernel.snapshot() / Kernel.restore() (docs/spec.md §13.2): the snapshot is plain JSON data in a
 * versioned format; snapshot → restore → snapshot is a fixed point; a restored kernel accepts the facts
 * of the calls in flight at the snapshot and continues with the same commands and the same trace,
 * `seq` included; a snapshot it cannot read is refused with an error that says why.
 */
import { describe, expect, it } from 'vitest';
import { RESIDENT_KIND } from '../../src/kernel/children/kind.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { ChildMemory, ChildMemoryFactory } from '../../src/kernel/ports/graph-memory.ts';
import type { Command, KernelInput } from '../../src/kernel/protocol.ts';
import { SnapshotError, type KernelSnapshot } from '../../src/kernel/snapshot/format.ts';
import { TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { TEST_OUTPUTS, TEST_TOOLS } from '../support/kernel-world.ts';

const CONFIG = { tools: TEST_TOOLS, outputs: TEST_OUTPUTS, verify: true, cooldownMs: 0 } as const;

/** A kernel fed `inputs` in order at `nowMs`, with every command it gave. */
function fed(inputs: readonly KernelInput[], nowMs: number, kernel: Kernel, log: Command[]): void {
  for (const input of inputs) {
    kernel.feed(input, nowMs);
    log.push(...kernel.takeCommands());
  }
}

function modelStart(log: readonly Command[], task: string): Extract<Command, { type: 'model.start' }> {
  const found = log.filter((c): c is Extract<Command, { type: 'model.start' }> => c.type === 'model.start');
  const start = found.filter((c) => c.task === task).pop();
  if (start === undefined) throw new Error(`no model.start for ${task}`);
  return start;
}

/**
 * A kernel mid-run: a resident with an inputch and an rt child, a root task streaming its answer
 * (one chunk in, a tool call half streamed), a queued task behind it, and a resident task waiting.
 */
function midRun(childMemory: ChildMemoryFactory | null = null): {
  kernel: Kernel;
  rec: TraceRecorder;
  log: Command[];
  callId: string;
} {
  const rec = new TraceRecorder();
  const kernel = new Kernel(CONFIG, rec, { childMemory });
  const log: Command[] = [];
  fed(
    [
      { type: 'channel.register', channel: { name: 'ch-1', plugin: 'test' } },
      { type: 'child.create', spec: { id: 'r1', inputChs: ['ch-1'], taskPrompt: 'watch ch-1' } },
      { type: 'child.create', spec: { id: 'rt1', kind: 'rt' } },
      { type: 'submit', submission: { id: 'q1', cls: 'queued', text: 'hello', source: 'cli' } },
      { type: 'submit', submission: { id: 'q2', cls: 'queued', text: 'later', source: 'cli' } },
      { type: 'submit', submission: { id: 'c1', cls: 'queued', text: 'on the channel', source: 'ch-1' } },
      { type: 'submit.after', task: 'q1', submission: { id: 'a1', cls: 'queued', text: 'after', source: 'cli' } },
    ],
    10,
    kernel,
    log,
  );
  const callId = modelStart(log, 'q1').callId;
  fed(
    [
      { type: 'model.chunk', callId, chunk: { type: 'text', text: 'let me ' } },
      {
        type: 'model.chunk',
        callId,
        chunk: { type: 'tool_call', index: 0, id: 'x1', name: 'search', argsDelta: '{"q"' },
      },
    ],
    20,
    kernel,
    log,
  );
  return { kernel, rec, log, callId };
}

describe('Kernel snapshot (docs/spec.md §13.2)', () => {
  it('is plain JSON data in format version 1, and snapshot → restore → snapshot is a fixed point', () => {
    const { kernel } = midRun();
    const snapshot = kernel.snapshot();
    expect(snapshot.snapshotVersion).toBe(1);
    expect(JSON.parse(JSON.stringify(snapshot))).toStrictEqual(snapshot);
    expect(snapshot.agents.map((a) => [a.id, a.parent, a.seat?.kind ?? 'root'])).toEqual([
      ['root', null, 'root'],
      ['r1', 'root', 'resident'],
      ['rt1', 'root', 'rt'],
    ]);
    const root = snapshot.agents[0];
    expect(root?.waiting).toMatchObject({ kind: 'model', task: 'q1' });
    const restored = Kernel.restore(snapshot, new TraceRecorder());
    expect(restored.snapshot()).toStrictEqual(snapshot);
    expect(restored.dump()).toStrictEqual(kernel.dump());
  });

  it('shares nothing with the kernel it was taken from or given to', () => {
    const { kernel } = midRun();
    const snapshot = kernel.snapshot();
    const before = JSON.stringify(snapshot);
    const restored = Kernel.restore(snapshot, null);
    restored.feed({ type: 'submit', submission: { id: 'q9', cls: 'queued', text: 'more', source: 'cli' } }, 30);
    kernel.feed({ type: 'submit', submission: { id: 'q8', cls: 'queued', text: 'more', source: 'cli' } }, 30);
    expect(JSON.stringify(snapshot)).toBe(before);
  });

  it('a restored kernel takes the rest of the call in flight and continues exactly as the original', () => {
    const original = midRun();
    const recAfter = new TraceRecorder();
    const restored = Kernel.restore(JSON.parse(JSON.stringify(original.kernel.snapshot())), recAfter);
    const cut = original.rec.events.length;
    const callId = original.callId;
    const rest: KernelInput[] = [
      { type: 'model.chunk', callId, chunk: { type: 'tool_call', index: 0, argsDelta: ':"x"}' } },
      { type: 'model.done', callId, usage: { inputTokens: 5, outputTokens: 3 } },
    ];
    const logA: Command[] = [];
    const logB: Command[] = [];
    fed(rest, 30, original.kernel, logA);
    fed(rest, 30, restored, logB);
    expect(logB).toEqual(logA);
    const tool = logA.find((c) => c.type === 'tool.run');
    expect(tool).toMatchObject({ task: 'q1', call: { id: 'x1', name: 'search', args: '{"q":"x"}' } });
    const more: KernelInput[] = [
      {
        type: 'tool.done',
        callId: (tool as Extract<Command, { type: 'tool.run' }>).callId,
        result: { ok: true, output: 'found' },
      },
    ];
    fed(more, 40, original.kernel, logA);
    fed(more, 40, restored, logB);
    expect(logB).toEqual(logA);
    // The trace continues the original's sequence: the same events with the same seq.
    expect(recAfter.events).toEqual(original.rec.events.slice(cut));
    expect(recAfter.events[0]?.seq).toBe(cut + 1);
    expect(restored.snapshot()).toStrictEqual(original.kernel.snapshot());
  });

  it('refuses a snapshot of another format version, naming both versions', () => {
    const snapshot = midRun().kernel.snapshot();
    const other = { ...snapshot, snapshotVersion: 2 } as unknown as KernelSnapshot;
    expect(() => Kernel.restore(other)).toThrow(SnapshotError);
    expect(() => Kernel.restore(other)).toThrow(/snapshotVersion 2: this kernel reads snapshotVersion 1 only/);
    const { snapshotVersion: _v, ...unversioned } = snapshot;
    expect(() => Kernel.restore(unversioned as unknown as KernelSnapshot)).toThrow(/no snapshotVersion/);
  });

  it('refuses a snapshot with a child kind it was not given', () => {
    const snapshot = midRun().kernel.snapshot();
    expect(() => Kernel.restore(snapshot, null, { childKinds: [RESIDENT_KIND] })).toThrow(
      /child rt1 is of kind "rt", which this kernel was not given; known kinds: resident/,
    );
  });

  it('gives a restored child its light memory back through the port, and refuses when the port cannot', () => {
    const made = new Map<string, ChildMemory>();
    const store = (): ChildMemory => ({
      recall: () => ({ entities: [], relations: [] }),
      commit: (triples) => ({ added: triples.length, skipped: 0 }),
      exportTriples: () => [],
      promote: () => ({ added: 0, skipped: 0 }),
      discard: () => undefined,
    });
    const create = (child: string): ChildMemory => {
      const m = store();
      made.set(child, m);
      return m;
    };
    const snapshot = midRun({ create }).kernel.snapshot();
    expect(snapshot.agents.filter((a) => a.seat?.hasMemory === true).map((a) => a.id)).toEqual(['r1', 'rt1']);
    const reopened: string[] = [];
    const reopen = (child: string): ChildMemory => {
      reopened.push(child);
      return made.get(child) as ChildMemory;
    };
    expect(Kernel.restore(snapshot, null, { childMemory: { create, reopen } }).snapshot()).toStrictEqual(snapshot);
    expect(reopened).toEqual(['r1', 'rt1']);
    expect(() => Kernel.restore(snapshot, null, { childMemory: { create } })).toThrow(
      /child r1 has a light memory, but this kernel's childMemory port cannot reopen one/,
    );
  });
});

describe('a kernel whose task ids count from a base (serve, docs/spec.md §13.1a)', () => {
  it('is restored, and numbers its next kernel task after the ones it made', () => {
    const config = { ...CONFIG, kernelTaskSeqBase: 500 };
    const kernel = new Kernel(config, new TraceRecorder());
    const log: Command[] = [];
    fed([{ type: 'child.create', spec: { id: 'r1', taskPrompt: 'first' } }], 10, kernel, log);
    const restored = Kernel.restore(kernel.snapshot(), new TraceRecorder());
    const rec = new TraceRecorder();
    const again = Kernel.restore(restored.snapshot(), rec);
    fed([{ type: 'child.create', spec: { id: 'r2', taskPrompt: 'second' } }], 20, again, log);
    const submitted = rec.events.filter((e) => e.type === 'task.submitted').map((e) => e.task);
    expect(submitted).toEqual(['r2:501']);
    expect(modelStart(log, 'r1:501').task).toBe('r1:501');
  });
});
