/**
 * The step machine at its edges, through the whole kernel (docs/spec.md §3.2, §3.6–§3.9): tool arguments that
 * are blank or not an object, a refusal and a built-in panic inside a parallel batch, the overflow
 * line and its pruning target, a task that comes back to Prepare with its own progress, and what a
 * consolidation reads and does when its memory is missing or fails.
 */
import { describe, expect, it } from 'vitest';
import { MemoryError, type GraphMemory, type MemoryPorts } from '../../../src/kernel/ports/graph-memory.ts';
import { PLACEHOLDER_CONTINUE } from './placeholders.ts';
import { memoryPorts } from '../../../src/memory/parsers.ts';
import { KernelWorld, tailAfterInput, userMsg } from '../../support/kernel-world.ts';

/** A graph memory whose calls fail: recall throws a plain error (a bug: a panic), commit a MemoryError (an outcome). */
function failingMemory(): MemoryPorts {
  const store: GraphMemory = {
    recall: () => {
      throw new Error('recall index corrupt');
    },
    commit: () => {
      throw new MemoryError('database is locked');
    },
    exportTriples: () => [],
  };
  return memoryPorts(store);
}

const toolMessages = (h: KernelWorld, task: string, request: number): string[] =>
  (h.requests(task)[request]?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);

describe('tool arguments (docs/spec.md §3.8)', () => {
  it('blank arguments mean none: the tool runs', () => {
    const h = new KernelWorld();
    h.queued('q', 'look');
    h.answer('q', '', [{ name: 'write', args: ' \n\t ' }]);
    expect(h.toolRuns('q').map((c) => c.call.args)).toEqual([' \n\t ']);
  });

  it.each(['null', '[1, 2]', '5', '"text"', 'true'])(
    'JSON that is not an object (%s) is a tool error, never a run',
    (args) => {
      const h = new KernelWorld();
      h.queued('q', 'look');
      h.answer('q', '', [{ name: 'write', args }]);
      expect(h.toolRuns('q')).toEqual([]);
      expect(toolMessages(h, 'q', 1)).toEqual(['error: invalid arguments for write: expected a JSON object']);
    },
  );

  it('in a parallel-safe batch a refused call is recorded in its place and the others still run', () => {
    const h = new KernelWorld();
    h.queued('q', 'look');
    h.answer('q', '', [
      { name: 'search', args: '[]', id: 'a' },
      { name: 'fetch', args: '{"url":"x"}', id: 'b' },
    ]);
    expect(h.stepsOf('q')).toContain('ToolBatch');
    expect(h.toolRuns('q').map((c) => c.call.id)).toEqual(['b']);
    h.toolResult('q', 'page');
    expect(toolMessages(h, 'q', 1)).toEqual(['error: invalid arguments for search: expected a JSON object', 'page']);
  });

  it('a built-in that throws inside a parallel batch is a panic: traced as one, and the task fails', () => {
    const h = new KernelWorld({}, { memory: failingMemory() });
    h.queued('q', 'remember');
    h.answer('q', '', [
      { name: 'memory_recall', args: '{"keywords":["alice"]}', id: 'm' },
      { name: 'search', id: 's' },
    ]);
    expect(h.events('tool.end').filter((e) => e.callId === 'm')).toMatchObject([
      { name: 'memory_recall', ok: false, panicked: true, result: 'recall index corrupt' },
    ]);
    h.toolResult('q', 'found');
    expect(h.terminalOf('q').kind).toBe('failed');
  });
});

describe('the request after a mixed batch (docs/spec.md §3.6)', () => {
  it('a batch with an output send and another tool asks the model to continue, not to finish', () => {
    const h = new KernelWorld();
    h.queued('q', 'tell and look');
    h.answer('q', '', [{ name: 'output_send__chat', args: '{"text":"hi"}' }, { name: 'write' }]);
    h.toolResult('q', 'written');
    expect(h.modelCall('q').request.messages.at(-1)).toEqual(userMsg(PLACEHOLDER_CONTINUE));
  });
});

describe('root overflow (docs/spec.md §3.9)', () => {
  /** Window 400: the line is 500 accumulated tokens (1.25 ×), the pruning target 320 (0.8 ×). */
  function filledTo500(): KernelWorld {
    const h = new KernelWorld({ contextWindowTokens: 400 });
    // A turn's tokens are its input's and its reply's code points: 200, 210, then ten of 9.
    h.queued('big1', 'a'.repeat(150));
    h.answer('big1', 'b'.repeat(50));
    h.queued('big2', 'c'.repeat(160));
    h.answer('big2', 'd'.repeat(50));
    for (const letter of 'efghijklmn') {
      h.queued(`s${letter}`, `small ${letter}`);
      h.answer(`s${letter}`, 'ok');
    }
    expect(h.events('context.overflow')).toEqual([]);
    return h;
  }

  it('at exactly 1.25 × the window the context overflows, and pruning stops at 0.8 × the window', () => {
    const h = filledTo500();
    h.queued('q', 'next');
    // Dropping big1 leaves 300 ≤ 320: one event pruned, eleven kept (more than the ten always kept).
    expect(h.events('context.overflow')).toMatchObject([{ task: 'q', pruned: 1, count: 1 }]);
    expect(h.dump().context.map((e) => e.task)).toEqual([
      'big2',
      'se',
      'sf',
      'sg',
      'sh',
      'si',
      'sj',
      'sk',
      'sl',
      'sm',
      'sn',
    ]);
  });

  it('the kernel notice says how many events were pruned, and an overflow found before the call spends no turn', () => {
    const h = filledTo500();
    h.queued('q', 'next');
    const notice = h.requests('root:1')[0]?.messages.at(-1)?.content ?? '';
    expect(
      notice.endsWith('[kernel] context overflow: pruned 1 old events; pruned content must be queried explicitly'),
    ).toBe(true);
    h.answer('root:1', 'ack');
    expect(
      h
        .events('model.start')
        .filter((e) => e.task === 'q')
        .map((e) => e.turn),
    ).toEqual([0]);
  });

  it('a task sent back to Prepare by an upstream overflow keeps its own tool turns in the next request', () => {
    const h = new KernelWorld();
    h.queued('q', 'dig');
    h.answer('q', 'looking', [{ name: 'search', args: '{"q":"x"}', id: 'c1' }]);
    h.toolResult('q', 'found x');
    const own = tailAfterInput(h.modelCall('q').request.messages, userMsg('dig'));
    h.failModel('q', 'window exceeded', 'context_full');
    h.answer('root:1', 'noted the overflow');
    const again = tailAfterInput(h.modelCall('q').request.messages, userMsg('dig'));
    expect(own.map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(again).toEqual(own);
  });
});

describe('consolidation (docs/spec.md §3.7)', () => {
  it('reads the last N committed turns, N being consolidateEveryTurns, and nothing older', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1 });
    h.queued('q1', 'alice likes tea');
    h.answer('q1', 'noted one');
    h.answer('root:1', '{"triples": []}');
    h.queued('q2', 'bob works at acme');
    h.answer('q2', 'noted two');
    const messages = h.requests('root:2')[0]?.messages ?? [];
    expect(messages[0]?.role).toBe('system');
    expect(messages.slice(1, -1).map((m) => m.content)).toEqual(['bob works at acme', 'noted two']);
  });

  it('asks, as its system message, for the JSON shape that the kernel parses, and for nothing else', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1 });
    h.queued('q1', 'alice likes tea');
    h.answer('q1', 'noted');
    const [system, ...rest] = h.requests('root:1')[0]?.messages ?? [];
    expect(system?.role).toBe('system');
    expect(rest.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const prompt = system?.content ?? '';
    expect(prompt).toMatch(/^Extract durable facts from the conversation below as JSON: \{/);
    expect(prompt).toMatch(/\}\. Answer with the JSON object only\.$/);
    // The example in the prompt is an answer the consolidation parser accepts, field for field.
    const example = prompt.slice(prompt.indexOf('{'), prompt.lastIndexOf('}') + 1);
    expect(memoryPorts(failingMemory().store).parsers.consolidationAnswer(example)).toEqual({
      ok: true,
      value: [{ subject: '...', relation: '...', object: '...', sentence: '...' }],
    });
  });

  it('without a graph memory it commits nothing, says so in the trace, and ends done', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1 });
    h.queued('q1', 'alice likes tea');
    h.answer('q1', 'noted');
    h.answer('root:1', '{"triples":[{"subject":"Alice","relation":"likes","object":"tea"}]}');
    expect(h.events('memory.consolidate')).toMatchObject([
      { task: 'root:1', added: 0, skipped: 0, malformed: 'no graph memory' },
    ]);
    expect(h.replyOf('root:1')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
  });

  it('a store that refuses the commit fails the consolidation with the memory error, and the agent goes on', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1 }, { memory: failingMemory() });
    h.queued('q1', 'alice likes tea');
    h.answer('q1', 'noted');
    h.answer('root:1', '{"triples":[{"subject":"Alice","relation":"likes","object":"tea"}]}');
    expect(h.replyOf('root:1')).toEqual({
      kind: 'failed',
      reply: 'processing error: memory error: database is locked',
    });
    h.queued('q2', 'next');
    h.answer('q2', 'fine');
    expect(h.replyOf('q2')).toEqual({ kind: 'done', reply: 'fine' });
  });
});
