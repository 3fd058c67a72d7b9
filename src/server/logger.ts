/**
 * The server's log on stderr (docs/spec.md §13.1): one line per trace event — its canonical JSON line, or with
 * `--log-format text` the readable line of STYLE.md — plus the server's own lines: start, shutdown,
 * violations (counted), and operational notes. Without the flag, the format follows the reader: text
 * for a person at a terminal, JSON for whatever collects a pipe or a file (a log driver, journald). The simulator, the monitors and this log share the
 * one trace vocabulary, so a production log reads like a simulated trace.
 *
 * Server lines in JSON have `type` `serve.<what>` and the wall time `t`, so one parser reads both
 * kinds of line.
 */
import type { TraceEvent, TraceSink } from '../kernel/index.ts';
import { canonicalLine, formatTraceLine } from '../trace-file/index.ts';

export type LogFormat = 'json' | 'text';

/** The format when `--log-format` is not given: readable on a terminal, JSON lines anywhere else. */
export function defaultLogFormat(stderrIsTerminal: boolean): LogFormat {
  return stderrIsTerminal ? 'text' : 'json';
}

/** Where log lines go: stderr in `serve`, a buffer in tests, nothing in the benchmark. */
export type LogOutput = (line: string) => void;

export type ServerLogFields = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

export class Logger implements TraceSink {
  private violationCount = 0;

  constructor(
    private readonly format: LogFormat,
    private readonly out: LogOutput,
    private readonly now: () => number,
  ) {}

  emit(e: TraceEvent): void {
    this.out(this.format === 'json' ? canonicalLine(e) : formatTraceLine(e));
    if (e.type === 'invariant.violation') {
      this.violationCount += 1;
      this.server('violation', `${e.invariant}: ${e.message}`, {
        invariant: e.invariant,
        task: e.task,
        count: this.violationCount,
      });
    }
  }

  get violations(): number {
    return this.violationCount;
  }

  /** A line of the server's own: `what` names it (start, shutdown, violation, …), `message` says it. */
  server(what: string, message: string, fields: ServerLogFields = {}): void {
    if (this.format === 'json') {
      this.out(JSON.stringify({ type: `serve.${what}`, t: this.now(), message, ...fields }));
      return;
    }
    const extra = Object.entries(fields)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : String(v)}`)
      .join(' ');
    this.out(`t=${this.now()}ms serve.${what}  ${message}${extra === '' ? '' : `  ${extra}`}`);
  }
}
