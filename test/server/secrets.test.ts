/**
 * docs/spec.md §13.1a (Secrets never leave): every configured secret — API keys, the token,
 * credentials inside a `baseURL` — is replaced by `[redacted]` in everything serve writes or sends.
 * An upstream whose error quotes the key it was sent is the classic leak: its message becomes the
 * failed task's reply, which is committed to the conversation and so sent to every provider after.
 *
 * Everything serve wrote is searched: HTTP answers (JSON and SSE), task lookups, status, the live
 * feed, the log, the journal, the trace file, and the requests the fake upstreams on 127.0.0.1
 * received (whose prompts carry the conversation).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerJson, startEventStream, startLoopback, type Loopback } from '../models/loopback.ts';
import { chatEnd, chatText } from '../models/openai-wire.ts';
import type { ProviderConfig } from '../../src/models/index.ts';
import { publicURL, Redactor, secretsOf, shortSecretWarnings } from '../../src/server/secrets.ts';
import type { ServeSettings } from '../../src/server/settings.ts';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const KEY_A = 'sk-alpha-0123456789abcdef';
const KEY_B = 'sk-bravo-fedcba9876543210';
const QUERY_KEY = 'q-secret-24680135';
const USER_PASSWORD = 'pw-secret-97531864';
const TOKEN = 'tok-secret-11223344';
const SECRETS = [KEY_A, KEY_B, QUERY_KEY, USER_PASSWORD, TOKEN];

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/**
 * The fake upstreams, told apart by path: `keyed` refuses every key, quoting it; `userinfo` is never
 * reached (fetch refuses a URL with credentials); `query` quotes its URL and key once, then answers.
 */
async function upstreams(): Promise<Loopback> {
  let queryCalls = 0;
  const s = await startLoopback(
    [
      ({ req, res }) => {
        const url = req.url ?? '';
        const auth = req.headers.authorization ?? '';
        if (url.startsWith('/keyed/'))
          return answerJson(res, 401, {
            error: { message: `Incorrect API key provided: ${auth.replace(/^Bearer /, '')}.`, code: 'invalid_api_key' },
          });
        if (url.startsWith('/query/') && (queryCalls += 1) === 1)
          return answerJson(res, 400, { error: { message: `no such deployment at ${url} for key ${auth}` } });
        startEventStream(res);
        res.end(chatText('all good now') + chatEnd());
      },
    ],
    '',
  );
  cleanup.push(() => s.close());
  return s;
}

function everything(s: TestServer, files: readonly string[], upstream: Loopback, answers: readonly string[]): string {
  return [
    ...answers,
    ...s.logs,
    ...files.map((f) => readFileSync(f, 'utf8')),
    ...upstream.requests.map((r) => JSON.stringify(r.body)),
  ].join('\n');
}

describe('serve: secrets never leave', () => {
  it('an upstream that quotes the key: redacted in replies, lookups, status, SSE, logs, journal, trace and later prompts', async () => {
    const upstream = await upstreams();
    const base = upstream.baseURL.replace(/\/$/, '');
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-secrets-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const journal = join(dir, 'journal.jsonl');
    const trace = join(dir, 'trace.jsonl');
    const providers: ProviderConfig[] = [
      { name: 'keyed', kind: 'openai', baseURL: `${base}/keyed/v1`, model: 'm', apiKeyEnv: 'KEY_A' },
      {
        name: 'userinfo',
        kind: 'openai',
        baseURL: `${base.replace('http://', `http://user:${USER_PASSWORD}@`)}/userinfo/v1`,
        model: 'm',
        apiKeyEnv: 'KEY_B',
      },
      {
        name: 'query',
        kind: 'openai',
        baseURL: `${base}/query/v1?api-key=${QUERY_KEY}`,
        model: 'm',
        apiKeyEnv: 'KEY_B',
      },
    ];
    const s = await startTestServer(
      { model: { kind: 'providers', providers }, token: TOKEN, journal, trace },
      undefined,
      { env: { KEY_A, KEY_B } },
    );
    cleanup.push(() => s.stop());
    const auth = { authorization: `Bearer ${TOKEN}` };
    const answers: string[] = [];

    const failed = await postJson(`${s.url}/v1/inputs`, { text: 'first question' }, auth);
    const failedBody = await failed.text();
    answers.push(failedBody);
    const task = String(failed.headers.get('homeagent-task'));
    expect(JSON.parse(failedBody)).toMatchObject({ terminal: 'failed' });
    expect(failedBody).toContain('[redacted]');

    const sse = await postJson(
      `${s.url}/v1/inputs`,
      { text: `second question, and my token is ${TOKEN}` },
      { ...auth, accept: 'text/event-stream' },
    );
    answers.push(await sse.text());
    expect(answers[1]).toContain('all good now');
    for (const path of [`/v1/tasks/${task}`, `/v1/tasks/${task}/events`, '/v1/status']) {
      answers.push(await (await fetch(`${s.url}${path}`, { headers: auth })).text());
    }
    const chat = await postJson(`${s.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }] }, auth);
    answers.push(await chat.text());
    await s.stop();

    const written = everything(s, [journal, trace], upstream, answers);
    for (const secret of SECRETS) expect(written, secret).not.toContain(secret);
    // The log is written, with the secrets replaced: not silenced.
    expect(serveLines(s.logs, 'start')).toEqual([
      expect.objectContaining({ model: 'keyed (openai m), then userinfo (openai m), then query (openai m)' }),
    ]);
    expect(s.logs.join('\n')).toContain('Incorrect API key provided: [redacted]');
    // The journal header still says where each provider is, without its credentials.
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '{}') as {
      config: { providers: { baseURL: string }[] };
    };
    expect(header.config.providers.map((p) => p.baseURL)).toEqual([
      `${base}/keyed/v1`,
      `${base.replace('http://', 'http://[redacted]@')}/userinfo/v1`,
      `${base}/query/v1?api-key=[redacted]`,
    ]);
    // The journal holds what the kernel saw, so it replays to the same trace hash.
    const replayed = replayJournal(journal, HOMEAGENT_VERSION);
    expect(replayed.kind === 'replayed' && replayed.result.ok).toBe(true);
    // The prompt of the second call carries the first one's failure, redacted.
    const prompts = upstream.requests.map((r) => JSON.stringify(r.body));
    expect(prompts.some((p) => p.includes('processing error: model call failed') && p.includes('[redacted]'))).toBe(
      true,
    );
  });

  it('a secret shorter than 8 characters is warned about at start (it is not searched for in text)', async () => {
    const s = await startTestServer({ token: 'short12' });
    cleanup.push(() => s.stop());
    const warning = s.logs.find((l) => l.includes('serve.warning'));
    expect(warning).toContain('the token');
    expect(warning).not.toContain('short12');
  });
});

describe('secrets.ts', () => {
  const settings = (baseURL: string, token: string | null = null): ServeSettings =>
    ({
      token,
      mcpServers: [],
      model: { kind: 'providers', providers: [{ name: 'p', kind: 'openai', model: 'm', baseURL, apiKeyEnv: 'K' }] },
    }) as unknown as ServeSettings;

  it('publicURL keeps where a provider is and drops its credentials', () => {
    expect(publicURL('https://user:pa%40ss@api.example.com:8443/v1?api-key=abc&deployment=x&Token=t#f')).toBe(
      'https://[redacted]@api.example.com:8443/v1?api-key=[redacted]&deployment=x&Token=[redacted]#f',
    );
    expect(publicURL('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
  });

  it('finds the key in the environment, the token, userinfo (decoded too) and secret query values', () => {
    const found = secretsOf(settings('http://me:pa%40ss-word-1@h/v1?key=query-secret-1&x=1', 'the-token-1'), {
      K: ' env-key-12345 \n',
    });
    expect(found.map((s) => s.value)).toEqual([
      'the-token-1',
      'env-key-12345',
      'me',
      'pa@ss-word-1',
      'pa%40ss-word-1',
      'query-secret-1',
    ]);
    // Where each is configured, for the warning about a short one (never the value).
    expect(found.map((s) => s.where)).toEqual([
      'the token',
      'the key in K',
      'providers "p" baseURL userinfo',
      'providers "p" baseURL userinfo',
      'providers "p" baseURL userinfo',
      'providers "p" baseURL key',
    ]);
    // An empty key is no key.
    expect(secretsOf(settings('http://h/v1'), { K: ' \n' })).toEqual([]);
  });

  it('warns of each place whose secret is shorter than 8 characters, once; 8 are enough', () => {
    expect(
      shortSecretWarnings([
        { where: 'the token', value: '1234567' },
        { where: 'the key in K', value: '12345678' },
        { where: 'the token', value: 'abcdefg' },
      ]),
    ).toEqual([
      'the token is shorter than 8 characters: it is never written by itself, but text that quotes it is not redacted; use a longer one',
    ]);
  });

  it('publicURL hides a user name alone and a password alone', () => {
    expect(publicURL('http://someone@h:1/v1')).toBe('http://[redacted]@h:1/v1');
    expect(publicURL('http://:pass-word@h:1/v1')).toBe('http://[redacted]@h:1/v1');
  });

  it('of two secrets of one length that overlap in a text, the first in code-point order is redacted', () => {
    const r = new Redactor([
      { where: 'b', value: 'bcdefghi' },
      { where: 'a', value: 'abcdefgh' },
    ]);
    expect(r.redact('abcdefghi')).toBe('[redacted]i');
    expect(r.redact('xbcdefghi')).toBe('x[redacted]');
  });

  it('redacts streamed text, and a tool list whose description alone or schema key alone holds a secret', () => {
    const r = new Redactor([{ where: 'k', value: 'key/12345' }]);
    const chunk = { type: 'model.chunk', callId: 'c', chunk: { type: 'text', text: 'it is key/12345' } } as const;
    expect(r.input(chunk)).toEqual({ ...chunk, chunk: { type: 'text', text: 'it is [redacted]' } });
    const described = { name: 'd', description: 'key/12345', parameters: { type: 'object' }, parallelSafe: false };
    const keyed = { name: 'k', description: 'plain', parameters: { 'key/12345': 'x' }, parallelSafe: false };
    expect(r.input({ type: 'tools.set', tools: [described, keyed] })).toEqual({
      type: 'tools.set',
      tools: [
        { ...described, description: '[redacted]' },
        { ...keyed, parameters: { '[redacted]': 'x' } },
      ],
    });
  });

  it('redacts every text input at the door, as written and percent-encoded, and leaves the rest as it is', () => {
    const r = new Redactor([{ where: 'k', value: 'key/12345' }]);
    expect(r.redact('a key/12345 and key%2F12345.')).toBe('a [redacted] and [redacted].');
    const output = { type: 'tool.done', callId: 'c', result: { ok: true, output: 'env: key/12345' } } as const;
    expect(r.input(output)).toEqual({ ...output, result: { ok: true, output: 'env: [redacted]' } });
    const clean = { type: 'model.chunk', callId: 'c', chunk: { type: 'text', text: 'nothing here' } } as const;
    expect(r.input(clean)).toBe(clean);
    expect(new Redactor([{ where: 'k', value: 'short' }]).active).toBe(false);
  });

  it('redacts an MCP tool list at the door: descriptions and every string of the schemas, keys too', () => {
    const r = new Redactor([{ where: 'k', value: 'key/12345' }]);
    const clean = { name: 'srv__a', description: 'reads', parameters: { type: 'object' }, parallelSafe: false };
    const leaky = {
      name: 'srv__b',
      description: 'uses key/12345',
      parameters: { type: 'object', properties: { 'key/12345': { enum: ['x', 'key/12345'] } } },
      parallelSafe: true,
    };
    const input = { type: 'tools.set', tools: [clean, leaky] } as const;
    const screened = r.input(input);
    expect(screened).toEqual({
      type: 'tools.set',
      tools: [
        clean,
        {
          ...leaky,
          description: 'uses [redacted]',
          parameters: { type: 'object', properties: { '[redacted]': { enum: ['x', '[redacted]'] } } },
        },
      ],
    });
    if (screened.type !== 'tools.set') throw new Error('not a tools.set');
    expect(screened.tools[0]).toBe(clean);
    const untouched = { type: 'tools.set', tools: [clean] } as const;
    expect(r.input(untouched)).toBe(untouched);
  });
});
