/**
 * docs/spec.md §13.2, end to end: `homeagent serve` spawned as a user runs it, with a loopback provider
 * whose first answer to a task streams a chunk and then hangs. The process is killed (SIGKILL: a crash)
 * in the middle of that answer, started again with the same flags, and recovers: the recovery line
 * comes before the listening line, the task keeps its id and is answered by the re-sent call (the
 * dead attempt's chunk is not part of the reply, its stream says `reset` / `restart`), the next id is
 * new, and after a clean shutdown (a pause) and a third start, `sim replay` of the journal directory
 * gives the hash the last run printed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { pause, startEventStream, startLoopback, type Exchange } from '../models/loopback.ts';
import { chatEnd, chatEvent, chatText } from '../models/openai-wire.ts';
import { parseSse } from '../server/support.ts';
import { runBin, SPAWN_TIMEOUT_MS, startBin } from './run-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-durable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first call streams "doomed " and hangs; every later call streams the whole answer. */
let calls = 0;
async function provider(exchange: Exchange): Promise<void> {
  calls += 1;
  startEventStream(exchange.res);
  exchange.res.write(chatEvent({ role: 'assistant', content: '' }));
  if (calls === 1) {
    exchange.res.write(chatText('doomed '));
    await exchange.closed;
    return;
  }
  for (const piece of ['the ', 'whole ', 'answer']) {
    exchange.res.write(chatText(piece));
    await pause(2);
  }
  exchange.res.end(chatEnd());
}

interface Started {
  readonly url: string;
  readonly stdout: string[];
  readonly child: ReturnType<typeof startBin>['child'];
  readonly exited: ReturnType<typeof startBin>['exited'];
}

async function start(config: string): Promise<Started> {
  const { child, exited } = startBin(['serve', '--config', config, '--port', '0', '--no-terminal']);
  const stdout: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((e) => reject(new Error(`serve exited ${e.code}: ${e.stderr}`)));
    createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
      stdout.push(line);
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
  });
  return { url, stdout, child, exited };
}

async function answerOf(url: string, task: string): Promise<Record<string, unknown>> {
  for (;;) {
    const view = (await (await fetch(`${url}/v1/tasks/${task}`)).json()) as Record<string, unknown>;
    if (view.state === 'ended') return view;
    await pause(20);
  }
}

describe('durable serve across a crash and a restart', () => {
  it(
    'recovers the task in flight, re-sends its call, keeps ids apart, and the journal replays to the printed hash',
    { timeout: SPAWN_TIMEOUT_MS * 2 },
    async () => {
      const upstream = await startLoopback([provider]);
      const dataDir = join(dir, 'data');
      const config = join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          dataDir,
          providers: [{ name: 'loop', kind: 'openai', baseURL: upstream.baseURL, model: 'test-model' }],
        }),
      );
      const running: Started[] = [];
      try {
        const first = await start(config);
        running.push(first);
        expect(first.stdout).toEqual([`listening on ${first.url}`]);
        // Streamed, so the kill comes once the first chunk has reached the server (and its journal).
        const open = await fetch(`${first.url}/v1/inputs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ text: 'tell me everything' }),
        });
        expect(open.headers.get('homeagent-task')).toBe('http-1');
        const reader = open.body?.getReader();
        let seen = '';
        while (!seen.includes('event: delta')) {
          const part = await reader?.read();
          if (part === undefined || part.done) break;
          seen += new TextDecoder().decode(part.value);
        }
        expect(seen).toContain('doomed');
        first.child.kill('SIGKILL');
        await first.exited;
        await reader?.cancel().catch(() => undefined);

        const second = await start(config);
        running.push(second);
        expect(second.stdout).toHaveLength(2);
        expect(second.stdout[0]).toMatch(/^recovered \d+ events from start in \d+ ms; 1 tasks pending$/);
        expect(await answerOf(second.url, 'http-1')).toMatchObject({ terminal: 'done', reply: 'the whole answer' });
        const events = parseSse(
          await (
            await fetch(`${second.url}/v1/tasks/http-1/events`, { headers: { accept: 'text/event-stream' } })
          ).text(),
        );
        expect(events.map((e) => e.event)).toEqual(['delta', 'reset', 'delta', 'delta', 'delta', 'terminal']);
        expect(JSON.parse(events[1]?.data ?? '')).toEqual({ reason: 'restart' });
        const next = await fetch(`${second.url}/v1/inputs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'and then?' }),
        });
        const nextId = next.headers.get('homeagent-task');
        expect(await next.json()).toMatchObject({ terminal: 'done' });
        expect(nextId).not.toBe('http-1');
        second.child.kill('SIGTERM');
        expect((await second.exited).code).toBe(143);

        // After a clean shutdown (a pause) nothing was pending: the third start recovers with 0, from
        // the snapshot the shutdown wrote.
        // It covers every line of the second run's segment but the trailer written after it.
        const segmentLines = readFileSync(join(dataDir, 'journal', 'segment-000002.jsonl'), 'utf8')
          .trim()
          .split('\n').length;
        expect(readdirSync(join(dataDir, 'journal')).filter((f) => f.startsWith('snapshot-'))).toEqual([
          `snapshot-000002-${String(segmentLines - 1).padStart(9, '0')}.json`,
        ]);
        const third = await start(config);
        running.push(third);
        expect(third.stdout[0]).toMatch(/^recovered \d+ events from snapshot in \d+ ms; 0 tasks pending$/);
        expect(await answerOf(third.url, nextId ?? '')).toMatchObject({ terminal: 'done' });
        third.child.kill('SIGTERM');
        expect((await third.exited).code).toBe(143);
        const printed = /^trace ([0-9a-f]{64}) \((\d+) events\)$/.exec(third.stdout.at(-1) ?? '');
        expect(printed, third.stdout.join('\n')).not.toBeNull();

        const replay = await runBin(['sim', 'replay', join(dataDir, 'journal'), '--json']);
        expect(replay.code, replay.stderr).toBe(0);
        expect(JSON.parse(replay.stdout)).toMatchObject({
          ok: true,
          traceHash: printed?.[1],
          events: Number(printed?.[2]),
        });
      } finally {
        for (const r of running) r.child.kill('SIGKILL');
        await upstream.close();
      }
    },
  );
});
