/**
 * The interactive terminal channel (src/server/terminal-channel.ts) on in-memory streams: each typed line,
 * trimmed, is a queued input from `terminal` and its reply is printed when its task ends, in the exact
 * shape of each kind of end; `/stop` is a stop interrupt whose cancelled tasks are printed; blank lines
 * are ignored; a line typed while inputs are refused is answered with the reason and not submitted; after
 * `close` no line is read.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Submission, SubmitResult, Terminal } from '../../src/kernel/index.ts';
import type { Unavailable } from '../../src/server/http-io.ts';
import { STOP_COMMAND, TERMINAL_SOURCE, TerminalChannel } from '../../src/server/terminal-channel.ts';

interface Harness {
  readonly channel: TerminalChannel;
  readonly input: PassThrough;
  readonly submitted: Submission[];
  readonly prefixes: string[];
  /** Everything printed so far. */
  printed(): string;
  /** Ends task `id` with `terminal`. */
  end(id: string, terminal: Terminal): Promise<void>;
  /** Types `text` and lets the channel read it. */
  type(text: string): Promise<void>;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function harness(
  result: (sub: Submission) => SubmitResult = () => ({ kind: 'accepted' }),
  unavailable?: () => Unavailable | null,
): Harness {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const submitted: Submission[] = [];
  const prefixes: string[] = [];
  const ends = new Map<string, (t: Terminal) => void>();
  let n = 0;
  const channel = new TerminalChannel({
    input,
    output,
    submit: (sub) => {
      submitted.push(sub);
      return result(sub);
    },
    nextId: (prefix) => {
      prefixes.push(prefix);
      n += 1;
      return `${prefix}-${n}`;
    },
    ...(unavailable === undefined ? {} : { unavailable }),
    terminal: (task) => new Promise((resolve) => ends.set(task, resolve)),
  });
  channel.start();
  return {
    channel,
    input,
    submitted,
    prefixes,
    printed: () => printed,
    end: async (id, terminal) => {
      const resolve = ends.get(id);
      if (resolve === undefined) throw new Error(`no terminal awaited for ${id}`);
      resolve(terminal);
      await settle();
    },
    type: async (text) => {
      input.write(text);
      await settle();
    },
  };
}

describe('TerminalChannel', () => {
  it('submits each line, trimmed, as a queued input from the terminal, and prints its reply when it ends', async () => {
    const h = harness();
    await h.type('  hello there  \n\t\nsecond\n');
    expect(TERMINAL_SOURCE).toBe('terminal');
    expect(h.prefixes).toEqual(['terminal', 'terminal']);
    expect(h.submitted).toEqual([
      { id: 'terminal-1', cls: 'queued', text: 'hello there', source: 'terminal' },
      { id: 'terminal-2', cls: 'queued', text: 'second', source: 'terminal' },
    ]);
    expect(h.printed()).toBe('');
    await h.end('terminal-2', { kind: 'done', reply: 'two' });
    await h.end('terminal-1', { kind: 'done', reply: 'one' });
    expect(h.printed()).toBe('< two\n< one\n');
    h.channel.close();
  });

  it('prints each kind of end: the reply of a done task, else the task, its kind, its reason and any reply', async () => {
    const h = harness();
    await h.type('a\nb\nc\nd\ne\n');
    await h.end('terminal-1', { kind: 'done' });
    await h.end('terminal-2', { kind: 'failed', reason: 'too_large', reply: 'the text is too long' });
    await h.end('terminal-3', { kind: 'cancelled', reason: 'user_stop', reply: '' });
    await h.end('terminal-4', { kind: 'skipped' });
    await h.end('terminal-5', { kind: 'dropped', reply: 'partial' });
    expect(h.printed().split('\n')).toEqual([
      '< ',
      '< [terminal-2 failed (too_large)] the text is too long',
      '< [terminal-3 cancelled (user_stop)]',
      '< [terminal-4 skipped]',
      '< [terminal-5 dropped] partial',
      '',
    ]);
    h.channel.close();
  });

  it('a task that ended at submission is printed as any other end', async () => {
    const h = harness(() => ({ kind: 'ended', terminal: { kind: 'skipped', reason: 'duplicate', reply: '' } }));
    await h.type('again\n');
    await h.end('terminal-1', { kind: 'skipped', reason: 'duplicate', reply: '' });
    expect(h.printed()).toBe('< [terminal-1 skipped (duplicate)]\n');
    h.channel.close();
  });

  it('/stop presses the stop button and prints what it cancelled', async () => {
    const cancelled: string[][] = [[], ['http-4', 'terminal-1']];
    const h = harness((sub) =>
      sub.cls === 'interrupt' ? { kind: 'stopped', cancelled: cancelled.shift() ?? [] } : { kind: 'accepted' },
    );
    expect(STOP_COMMAND).toBe('/stop');
    await h.type('/stop\n  /stop \n/stopped\n');
    expect(h.submitted).toEqual([
      { id: 'terminal-1', cls: 'interrupt', text: '', source: 'terminal', stop: true },
      { id: 'terminal-2', cls: 'interrupt', text: '', source: 'terminal', stop: true },
      { id: 'terminal-3', cls: 'queued', text: '/stopped', source: 'terminal' },
    ]);
    expect(h.printed()).toBe('stopped\nstopped (cancelled http-4, terminal-1)\n');
    // A stop's own id is never awaited.
    await expect(h.end('terminal-1', { kind: 'done' })).rejects.toThrow('no terminal awaited for terminal-1');
    h.channel.close();
  });

  it('a line typed while inputs are refused gets the reason and is not submitted; one typed after is', async () => {
    let down: Unavailable | null = {
      code: 'journal_unwritable',
      message: 'the journal cannot be written',
      retryAfterS: 5,
    };
    const h = harness(undefined, () => down);
    await h.type('lost\n');
    expect(h.printed()).toBe('< [not accepted: the journal cannot be written; try again later]\n');
    expect(h.submitted).toEqual([]);
    expect(h.prefixes).toEqual([]);
    down = null;
    await h.type('kept\n');
    expect(h.submitted).toEqual([{ id: 'terminal-1', cls: 'queued', text: 'kept', source: 'terminal' }]);
    h.channel.close();
  });

  it('blank lines are not asked about, submitted or answered', async () => {
    let asked = 0;
    const h = harness(undefined, () => {
      asked += 1;
      return { code: 'x', message: 'refused', retryAfterS: 1 };
    });
    await h.type('\n   \n\t\n');
    expect(asked).toBe(0);
    expect(h.printed()).toBe('');
    h.channel.close();
  });

  it('after close no line is read; closing again, or after the input ended, does nothing', async () => {
    const h = harness();
    await h.type('one\n');
    h.channel.close();
    await h.type('two\n');
    expect(h.submitted.map((s) => s.text)).toEqual(['one']);
    h.channel.close();

    const ended = harness();
    ended.input.end('last\n');
    await settle();
    expect(ended.submitted.map((s) => s.text)).toEqual(['last']);
    ended.channel.close();
  });
});
