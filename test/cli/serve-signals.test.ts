/**
 * docs/spec.md §13.1: SIGHUP (a closed terminal, `kill -HUP`, a process manager's reload) shuts
 * `serve` down like SIGTERM — the open request is answered (a durable server pauses: 503 with its task
 * and state), the journal gets its
 * trailer, the `trace` line is printed — and the process exits 129. Spawned as a user runs it, with a
 * loopback provider whose stream holds until the client goes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { startEventStream, startLoopback, type Exchange } from '../models/loopback.ts';
import { chatEvent, chatText } from '../models/openai-wire.ts';
import { SPAWN_TIMEOUT_MS, startBin } from './run-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-serve-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function holding(exchange: Exchange): Promise<void> {
  startEventStream(exchange.res);
  exchange.res.write(chatEvent({ role: 'assistant', content: '' }));
  exchange.res.write(chatText('waiting'));
  await exchange.closed;
}

describe('homeagent serve and SIGHUP', () => {
  it(
    'SIGHUP shuts down like SIGTERM: the open request is answered, the journal gets its trailer, exit 129',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const upstream = await startLoopback([holding]);
      const config = join(dir, 'config.json');
      const journal = join(dir, 'journal.jsonl');
      writeFileSync(
        config,
        JSON.stringify({
          dataDir: join(dir, 'data'),
          providers: [{ name: 'loop', kind: 'openai', baseURL: upstream.baseURL, model: 'test-model' }],
        }),
      );
      const { child, exited } = startBin([
        'serve',
        '--config',
        config,
        '--port',
        '0',
        '--no-terminal',
        '--journal',
        journal,
      ]);
      const stdout: string[] = [];
      const lines = createInterface({ input: child.stdout ?? process.stdin });
      const listening = new Promise<string>((resolve) =>
        lines.on('line', (line) => {
          stdout.push(line);
          const m = /^listening on (http:\/\/\S+)$/.exec(line);
          if (m !== null) resolve(m[1] ?? '');
        }),
      );
      try {
        const url = await listening;
        const open = fetch(`${url}/v1/inputs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'wait for me' }),
        });
        await upstream.exchange(0);
        child.kill('SIGHUP');
        expect(await (await open).json()).toMatchObject({ task: 'http-1', state: 'running' });
        const { code, stderr } = await exited;
        expect(code, stderr).toBe(129);
        expect(stdout.at(-1)).toMatch(/^trace [0-9a-f]{64} \(\d+ events\)$/);
        const last = readFileSync(journal, 'utf8').trimEnd().split('\n').at(-1) ?? '';
        expect(JSON.parse(last)).toMatchObject({ type: 'journal.trailer' });
      } finally {
        child.kill('SIGKILL');
        await upstream.close();
      }
    },
  );
});
