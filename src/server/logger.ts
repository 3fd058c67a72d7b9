/**
 * The server's log on stderr (docs/spec.md §13.1): one line per trace event — its canonical JSON line, or with
 * `--log-format text` the readable line of STYLE.md — plus the server's own lines: start, shutdown,
 * violations (counted), and operational notes. Without the flag, the format follows the reader: text
 * for a person at a terminal, JSON for whatever collects a pipe or a file (a log driver, journald). The simulator, the monitors and this log share the
 * one trace vocabulary, so a production log reads like a simulated trace.
 *
 * Server lines in JSON have `type` `serve.<what>` and the time `t`, so one parser reads both
 * kinds of line. Text lines carry what clients sent (a source, a channel, a reply) as it came, so their
 * control characters are escaped: a newline in a source must not start a forged line, and an escape
 * sequence must not reach the terminal that shows the log. JSON escapes them by itself.
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
    this.out(this.format === 'json' ? canonicalLine(e) : escapeControls(formatTraceLine(e)));
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
    this.out(escapeControls(`t=${this.now()}ms serve.${what}  ${message}${extra === '' ? '' : `  ${extra}`}`));
  }
}

/** C0 and C1 control characters and DEL, which a terminal may act on. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\n`, `\r` and `\t` as those two characters, every other control character as `\u00XX`. */
export function escapeControls(line: string): string {
  return line.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
