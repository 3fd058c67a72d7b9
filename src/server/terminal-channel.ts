/**
 * The interactive terminal channel (docs/spec.md §13): each line typed is a queued input from the source
 * `terminal`, and its reply is printed when its task ends; `/stop` presses the stop button (an
 * interrupt without text: the running task and the queue are cancelled). It shares the one root agent
 * and its conversation with every other channel.
 *
 * The end of the input (Ctrl-D, or a closed pipe) closes the channel only; the server runs on until
 * it is signalled, so `serve < /dev/null` under a service manager is a server without a terminal.
 */
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Submission, SubmitResult, Terminal } from '../kernel/index.ts';
import type { Unavailable } from './http-io.ts';

export const TERMINAL_SOURCE = 'terminal';
export const STOP_COMMAND = '/stop';

export interface TerminalPorts {
  readonly input: Readable;
  readonly output: Writable;
  submit(sub: Submission): SubmitResult;
  nextId(prefix: string): string;
  /** Why no new input is accepted now, or null; asked before every line. */
  unavailable?(): Unavailable | null;
  /** Resolves with the task's terminal event. */
  terminal(task: string): Promise<Terminal>;
}

export class TerminalChannel {
  private readline: Interface | null = null;

  constructor(private readonly ports: TerminalPorts) {}

  start(): void {
    const rl = createInterface({ input: this.ports.input, terminal: false });
    rl.on('line', (line) => this.line(line.trim()));
    rl.on('close', () => {
      this.readline = null;
    });
    this.readline = rl;
  }

  close(): void {
    this.readline?.close();
    this.readline = null;
  }

  private line(text: string): void {
    if (text === '') return;
    const down = this.ports.unavailable?.() ?? null;
    if (down !== null) {
      this.print(`< [not accepted: ${down.message}; try again later]`);
      return;
    }
    const id = this.ports.nextId(TERMINAL_SOURCE);
    const stop = text === STOP_COMMAND;
    const sub: Submission = stop
      ? { id, cls: 'interrupt', text: '', source: TERMINAL_SOURCE, stop: true }
      : { id, cls: 'queued', text, source: TERMINAL_SOURCE };
    const result = this.ports.submit(sub);
    if (result.kind === 'stopped') {
      this.print(`stopped${result.cancelled.length === 0 ? '' : ` (cancelled ${result.cancelled.join(', ')})`}`);
      return;
    }
    void this.ports.terminal(id).then((terminal) => this.print(replyLine(id, terminal)));
  }

  private print(text: string): void {
    this.ports.output.write(`${text}\n`);
  }
}

function replyLine(task: string, terminal: Terminal): string {
  if (terminal.kind === 'done') return `< ${terminal.reply ?? ''}`;
  const why = terminal.reason === undefined ? '' : ` (${terminal.reason})`;
  return `< [${task} ${terminal.kind}${why}]${terminal.reply === undefined || terminal.reply === '' ? '' : ` ${terminal.reply}`}`;
}
