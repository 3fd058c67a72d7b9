/**
 * The log format of `serve` (docs/spec.md §13.1): without `--log-format`, readable text when stderr is a
 * terminal and JSON lines otherwise; the flag chooses either way. Whether stderr is a terminal is an
 * argument of the settings, so no pseudo-terminal is needed to test the choice.
 */
import { describe, expect, it } from 'vitest';
import { defaultLogFormat, Logger } from '../../src/server/logger.ts';
import { resolveSettings } from '../../src/server/settings.ts';

function logFormat(flag: string | undefined, stderrIsTerminal: boolean): string {
  const r = resolveSettings(
    { model: 'demo', ...(flag === undefined ? {} : { logFormat: flag }) },
    {},
    stderrIsTerminal,
  );
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  return r.settings.logFormat;
}

describe('serve: log format', () => {
  it('defaults to text on a terminal and to JSON anywhere else (a pipe, a file, a log driver)', () => {
    expect(defaultLogFormat(true)).toBe('text');
    expect(defaultLogFormat(false)).toBe('json');
    expect(logFormat(undefined, true)).toBe('text');
    expect(logFormat(undefined, false)).toBe('json');
    // Settings resolved without saying where stderr goes keep the machine-readable default.
    const r = resolveSettings({ model: 'demo' }, {});
    expect(r.ok && r.settings.logFormat).toBe('json');
  });

  it('--log-format json|text wins over the terminal check, both ways', () => {
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('text', false)).toBe('text');
    expect(logFormat('text', true)).toBe('text');
    expect(logFormat('json', false)).toBe('json');
  });

  it('refuses another format whatever stderr is', () => {
    for (const terminal of [true, false]) {
      const r = resolveSettings({ model: 'demo', logFormat: 'yaml' }, {}, terminal);
      expect(r.ok ? [] : r.problems).toEqual([{ path: '--log-format', message: 'must be json or text, got "yaml"' }]);
    }
  });

  it('writes a server line as JSON with its type and time, or as one readable line', () => {
    const lines: string[] = [];
    const now = (): number => 1500;
    new Logger('json', (l) => lines.push(l), now).server('start', 'listening on http://127.0.0.1:8787', {
      version: '0.1.0',
    });
    new Logger('text', (l) => lines.push(l), now).server('start', 'listening on http://127.0.0.1:8787', {
      version: '0.1.0',
    });
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      type: 'serve.start',
      t: 1500,
      message: 'listening on http://127.0.0.1:8787',
      version: '0.1.0',
    });
    expect(lines[1]).toBe('t=1500ms serve.start  listening on http://127.0.0.1:8787  version=0.1.0');
  });

  it('escapes control characters in text lines: a newline cannot forge a line, an escape cannot reach the terminal', () => {
    const lines: string[] = [];
    const logger = new Logger(
      'text',
      (l) => lines.push(l),
      () => 1500,
    );
    const forged = 'http\nt=1ms #1 root  task.terminal     http-9 done "forged"\u001b[2J\u0007\u009b31m\r';
    logger.emit({
      seq: 1,
      t: 1500,
      agent: 'root',
      type: 'task.submitted',
      task: 'http-1',
      class: 'queued',
      level: null,
      kernel: false,
      source: forged,
      channel: 'http',
    });
    logger.server('output', forged, { channel: forged });
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(line).toContain('http\\nt=1ms');
      expect(line).toContain('\\u001b[2J\\u0007\\u009b31m\\r');
    }
    // JSON lines escape them already, as JSON does.
    const json: string[] = [];
    new Logger(
      'json',
      (l) => json.push(l),
      () => 1500,
    ).server('output', forged);
    expect(json[0]?.split('\n')).toHaveLength(1);
  });

  it('a violation in the trace is written as the trace line, then a serve.violation line with the running count', () => {
    const lines: string[] = [];
    const logger = new Logger(
      'json',
      (l) => lines.push(l),
      () => 1500,
    );
    const violation = (seq: number, task: string | null) =>
      ({
        seq,
        t: 1400,
        agent: 'root',
        type: 'invariant.violation',
        invariant: 'I1',
        task,
        message: 'two tasks ran at once',
        cause: seq - 1,
      }) as const;
    logger.emit(violation(7, 't1'));
    logger.emit(violation(9, null));
    expect(logger.violations).toBe(2);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      violation(7, 't1'),
      { type: 'serve.violation', t: 1500, message: 'I1: two tasks ran at once', invariant: 'I1', task: 't1', count: 1 },
      violation(9, null),
      { type: 'serve.violation', t: 1500, message: 'I1: two tasks ran at once', invariant: 'I1', task: null, count: 2 },
    ]);
  });

  it('writes list fields of a text line in brackets', () => {
    const lines: string[] = [];
    new Logger(
      'text',
      (l) => lines.push(l),
      () => 5,
    ).server('shutdown', 'stopped', { agents: ['worker', 'helper'], drained: true });
    expect(lines).toEqual(['t=5ms serve.shutdown  stopped  agents=[worker,helper] drained=true']);
  });
});
