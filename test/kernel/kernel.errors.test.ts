import { describe, expect, it } from 'vitest';
import { AssertionError, assertNever, fail } from '../../src/kernel/assert.ts';
import { ContextFullError } from '../../src/kernel/ports/provider.ts';
import { lazySnapshot } from '../../src/kernel/task/lazy-snapshot.ts';
import { encodeTimerKey } from '../../src/kernel/timers.ts';
import { TaskTable } from '../../src/kernel/task/table.ts';
import { newFrame } from '../../src/kernel/task/task.ts';

const fields = { id: 't1', source: 'terminal', channel: 'terminal', text: 'hi', kernel: false } as const;

describe('error classes', () => {
  it('name themselves, so a log or a caught error says what it is', () => {
    expect(new AssertionError('x').name).toBe('AssertionError');
    expect(String(new AssertionError('STACK: broken'))).toBe('AssertionError: STACK: broken');
    expect(new ContextFullError('full').name).toBe('ContextFullError');
    expect(String(new ContextFullError('full'))).toBe('ContextFullError: full');
    expect(() => fail('LIFO: x')).toThrow(new AssertionError('LIFO: x'));
  });

  it('assertNever says the value was unexpected', () => {
    expect(() => assertNever('bogus' as never, 'timer key')).toThrow('unreachable: unexpected timer key: "bogus"');
  });

  it('a timer key of no known kind fails loudly, naming it', () => {
    expect(() => encodeTimerKey({ kind: 'bogus' } as never)).toThrow(
      'unreachable: unexpected timer key: {"kind":"bogus"}',
    );
  });
});

describe('lazySnapshot errors', () => {
  it('names the SNAPSHOT rule and the sizes when more items are asked than the source has', () => {
    expect(() => lazySnapshot(['a'], 2)).toThrow('SNAPSHOT: 2 items asked of an array of 1');
  });

  it('says a snapshot is read-only when written', () => {
    const snap = lazySnapshot(['a'], 1) as string[];
    expect(() => snap.push('b')).toThrow('a snapshot is read-only: copy it (slice) to change it');
  });
});

describe('TaskTable', () => {
  it('classes a task with no level as queued and one with a level as an interrupt', () => {
    const table = new TaskTable('root');
    expect(table.add({ ...fields, id: 'q', level: null }).cls).toBe('queued');
    expect(table.add({ ...fields, id: 'i', level: 2 }).cls).toBe('interrupt');
  });

  it('names the O1 rule, the task and the agent when asked for a task it does not hold', () => {
    const table = new TaskTable('root');
    expect(() => table.get('t9')).toThrow('O1: the scheduler knows t9 but the agent root has no frame for it');
  });

  it('starts a task with an empty frame: nothing written, no tools used, at Prepare', () => {
    const frame = newFrame();
    expect(frame.step).toBe('Prepare');
    expect(frame.messages).toEqual([]);
    expect(frame.assistantWritten).toBe(false);
    expect(frame.toolsUsed).toEqual([]);
    expect(frame.lastText).toBe('');
  });
});
