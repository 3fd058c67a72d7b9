/**
 * The other channels of `serve` (docs/spec.md §13): the terminal (a line is a queued input, its reply is
 * printed — a task that did not end done with its kind and reason — and `/stop` presses the stop
 * button), the timer plugin (L3 interrupts from `timer/<name>`), and the log in both formats.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function until<T>(probe: () => T | undefined, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('not seen in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('serve: terminal, timers, logs', () => {
  it('the terminal: each line is an input and its reply is printed; /stop stops', async () => {
    const s = await startTestServer({ terminal: true });
    servers.push(s);
    let printed = '';
    s.stdout.setEncoding('utf8').on('data', (d: string) => (printed += d));
    s.stdin.write('good morning\n');
    await until(() => (printed.includes('\n') ? printed : undefined));
    expect(printed).toMatch(/^< \[demo model\] You said: "good morning"\./);
    s.stdin.write('/stop\n');
    await until(() => (printed.includes('stopped') ? printed : undefined));
    const events = s.logs.map((l) => JSON.parse(l) as { type: string; source?: string; task?: string });
    expect(events.filter((e) => e.type === 'task.submitted').map((e) => e.source)).toEqual(['terminal']);
    expect(events.filter((e) => e.type === 'stop').map((e) => e.task)).toEqual(['terminal-2']);
  });

  it('the terminal prints a stopped task with its kind and reason', async () => {
    const provider = new ScriptedProvider();
    const s = await startTestServer({ terminal: true }, provider);
    servers.push(s);
    let printed = '';
    s.stdout.setEncoding('utf8').on('data', (d: string) => (printed += d));
    s.stdin.write('hold on\n');
    await until(() => (provider.calls > 0 ? true : undefined));
    s.stdin.write('/stop\n');
    await until(() => (printed.includes('< [') ? printed : undefined));
    expect(printed.split('\n')).toEqual([
      'stopped (cancelled terminal-1)',
      '< [terminal-1 cancelled (user_stop)] cancelled (user stop)',
      '',
    ]);
  });

  it('a timer fires an L3 interrupt from timer/<name>; the log can be the readable trace line', async () => {
    const s = await startTestServer({
      timers: [{ name: 'ping', text: 'time to stretch', afterMs: 0 }],
      logFormat: 'text',
    });
    servers.push(s);
    const line = await until(() => s.logs.find((l) => l.includes('task.terminal') && l.includes('timer-1')));
    expect(line).toMatch(/^t=\d+ms #\d+ root  task.terminal\s+timer-1 done/);
    expect(s.logs.find((l) => l.includes('task.submitted'))).toContain('timer-1 L3 src=timer/ping ch=timer');
    expect(s.logs.some((l) => l.includes('serve.start') && l.includes('demo model'))).toBe(true);
    expect(s.logs.filter((l) => l.includes('serve.timer'))).toEqual([
      expect.stringMatching(/^t=\d+ms serve\.timer {2}timer ping fired as timer-1$/),
    ]);
  });
});
