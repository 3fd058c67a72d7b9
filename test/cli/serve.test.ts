/**
 * End to end: `homeagent serve` (spawned, as a user runs it) with a loopback
 * OpenAI-compatible provider started here; inputs, SSE streaming and a stop interrupt over HTTP; an
 * open request answered by the SIGTERM shutdown; then `homeagent sim replay` of the journal gives the
 * hash `serve` printed. Plus the start-up refusals (exit 2). Loopback only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { pause, startEventStream, startLoopback, type Exchange } from '../models/loopback.ts';
import { chatEnd, chatEvent, chatText } from '../models/openai-wire.ts';
import { parseSse } from '../server/support.ts';
import { REPO_ROOT, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const TOKEN = 'e2e-token';
const dir = mkdtempSync(join(tmpdir(), 'homeagent-serve-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The provider: "wait…" streams one chunk and then holds until the client goes; the rest stream three chunks. */
async function provider(exchange: Exchange): Promise<void> {
  const messages = (exchange.body as { messages: { role: string; content: string }[] }).messages;
  const said = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  startEventStream(exchange.res);
  exchange.res.write(chatEvent({ role: 'assistant', content: '' }));
  if (said.startsWith('wait')) {
    exchange.res.write(chatText('waiting'));
    await exchange.closed;
    return;
  }
  for (const piece of ['Hello ', 'from ', 'loopback']) {
    exchange.res.write(chatText(piece));
    await pause(5);
  }
  exchange.res.end(chatEnd());
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify(body),
  });
}

describe('homeagent serve, end to end', () => {
  it(
    'serves inputs, SSE and a stop over HTTP; SIGTERM pauses, answering open requests; sim replay gives the printed hash',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const upstream = await startLoopback([provider]);
      const config = join(dir, 'config.json');
      const journal = join(dir, 'journal.jsonl');
      const trace = join(dir, 'trace.jsonl');
      writeFileSync(
        config,
        JSON.stringify({
          dataDir: join(dir, 'data'),
          providers: [{ name: 'loop', kind: 'openai', baseURL: upstream.baseURL, model: 'test-model' }],
        }),
      );
      const child = spawn(
        process.execPath,
        [
          'bin/homeagent.js',
          'serve',
          '--config',
          config,
          '--port',
          '0',
          '--no-terminal',
          '--journal',
          journal,
          '--trace',
          trace,
        ],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, HOMEAGENT_TOKEN: TOKEN },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const stdout: string[] = [];
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const lines = createInterface({ input: child.stdout });
      const listening = new Promise<string>((resolve) =>
        lines.on('line', (line) => {
          stdout.push(line);
          const m = /^listening on (http:\/\/\S+)$/.exec(line);
          if (m !== null) resolve(m[1] ?? '');
        }),
      );
      try {
        const url = await listening;
        expect(stdout).toEqual([`listening on ${url}`]);
        expect((await fetch(`${url}/v1/status`)).status).toBe(401);

        // SSE: a delta per upstream text chunk, then the terminal, ids 1, 2, 3 …
        const sse = parseSse(
          await (await post(`${url}/v1/inputs`, { text: 'hi' }, { accept: 'text/event-stream' })).text(),
        );
        expect(sse.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'terminal']);
        expect(sse.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
        expect(JSON.parse(sse[3]?.data ?? '')).toMatchObject({ terminal: 'done', reply: 'Hello from loopback' });

        // A stop interrupt cancels the running task, whose request answers with its terminal.
        const held = post(`${url}/v1/inputs`, { text: 'wait for me' });
        await upstream.exchange(1);
        const stop = await post(`${url}/v1/interrupts`, { stop: true });
        expect(await stop.json()).toMatchObject({
          task: null,
          terminal: 'done',
          reply: 'stopped',
          cancelled: ['http-2'],
        });
        expect(await (await held).json()).toMatchObject({ task: 'http-2', terminal: 'cancelled', reason: 'user_stop' });
        expect(await (await post(`${url}/v1/interrupts`, { text: 'and now?', level: 'L2' })).json()).toMatchObject({
          terminal: 'done',
        });

        // SIGTERM with a request still open: a durable server pauses, and the request is answered 503
        // with its task and state, for the client to ask again after the restart.
        const open = post(`${url}/v1/inputs`, { text: 'wait again' });
        await upstream.exchange(3);
        child.kill('SIGTERM');
        const paused = await open;
        expect(paused.status).toBe(503);
        expect(paused.headers.get('retry-after')).toBe('5');
        expect(await paused.json()).toMatchObject({ task: 'http-5', state: 'running' });
        expect(await exited).toBe(143);
      } finally {
        child.kill('SIGKILL');
        await upstream.close();
      }
      const printed = /^trace ([0-9a-f]{64}) \((\d+) events\)$/.exec(stdout.at(-1) ?? '');
      expect(printed, `${stdout.join('\n')}\n${stderr}`).not.toBeNull();
      expect(stderr).toContain('"type":"serve.start"');
      expect(readFileSync(journal, 'utf8')).not.toContain(TOKEN);

      const replayed = join(dir, 'replayed.jsonl');
      const replay = await runBin(['sim', 'replay', journal, '--json', '--trace', replayed]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(JSON.parse(replay.stdout)).toMatchObject({
        ok: true,
        matches: true,
        traceHash: printed?.[1],
        events: Number(printed?.[2]),
      });
      // Line for line the production trace, after each file's own header line.
      const body = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n').slice(1);
      expect(body(replayed)).toEqual(body(trace));
      expect(body(trace)).toHaveLength(Number(printed?.[2]));

      // The exit codes of sim replay: another version 2, a trailer mismatch 1, a cut last line 0 with a warning.
      const journalLines = readFileSync(journal, 'utf8').trimEnd().split('\n');
      const write = (name: string, text: string): string => {
        writeFileSync(join(dir, name), text);
        return join(dir, name);
      };
      const other = write(
        'other.jsonl',
        `${[(journalLines[0] ?? '').replace('"homeagent":"', '"homeagent":"9.'), ...journalLines.slice(1)].join('\n')}\n`,
      );
      const mismatch = write(
        'mismatch.jsonl',
        `${[...journalLines.slice(0, -1), JSON.stringify({ type: 'journal.trailer', traceHash: 'f'.repeat(64), events: 1 })].join('\n')}\n`,
      );
      const cut = write(
        'cut.jsonl',
        `${journalLines.slice(0, -2).join('\n')}\n${(journalLines.at(-2) ?? '').slice(0, 15)}`,
      );
      const [otherRun, mismatchRun, cutRun] = await Promise.all([
        runBin(['sim', 'replay', other]),
        runBin(['sim', 'replay', mismatch]),
        runBin(['sim', 'replay', cut]),
      ]);
      expect(otherRun.code).toBe(2);
      expect(otherRun.stderr).toContain('replay it with the version that wrote it');
      expect(mismatchRun.code).toBe(1);
      expect(mismatchRun.stdout).toContain('trailer: MISMATCH');
      expect(cutRun.code, cutRun.stderr).toBe(0);
      expect(cutRun.stderr).toContain('is cut short');
    },
  );

  it(
    'refuses unusable settings with exit 2: a non-loopback host without a token, a bad config file',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const config = join(dir, 'bad.json');
      writeFileSync(
        config,
        JSON.stringify({
          providers: [{ name: 'x', kind: 'openai', model: 'm', apiKeyEnv: 'HOMEAGENT_E2E_UNSET_KEY' }],
          htp: {},
        }),
      );
      const unsetKey = join(dir, 'unset-key.json');
      writeFileSync(
        unsetKey,
        JSON.stringify({
          dataDir: join(dir, 'data2'),
          providers: [{ name: 'x', kind: 'openai', model: 'm', apiKeyEnv: 'HOMEAGENT_E2E_UNSET_KEY' }],
        }),
      );
      const [open, bad, key] = await Promise.all([
        runBin(['serve', '--model', 'demo', '--host', '0.0.0.0', '--no-terminal'], { env: { HOMEAGENT_TOKEN: '' } }),
        runBin(['serve', '--config', config, '--no-terminal']),
        runBin(['serve', '--config', unsetKey, '--no-terminal', '--port', '0']),
      ]);
      expect(open.code).toBe(2);
      expect(open.stderr).toContain('--host: 0.0.0.0 is not a loopback address');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('htp: unknown field');
      expect(key.code).toBe(2);
      expect(key.stderr).toContain('HOMEAGENT_E2E_UNSET_KEY');
    },
  );
});
