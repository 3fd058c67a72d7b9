/** The providers configuration (docs/spec.md §13.1): schema, keys from the given environment, the fallback list. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, ProviderConfigError, providersSchema, type ProviderConfig } from '../../src/models/index.ts';
import { messageEnd, messageStart, textBlock } from './anthropic-wire.ts';
import { assemble, collect } from './collect.ts';
import { instantSleep } from './instant-sleep.ts';
import { answerJson, startEventStream, startLoopback, type Loopback } from './loopback.ts';
import { modelRequest } from './request.ts';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('createProvider', () => {
  it('builds the list in order, each adapter with the key of its apiKeyEnv', async () => {
    const openai = await startLoopback([({ res }) => answerJson(res, 401, { error: { message: 'bad key' } })]);
    const anthropic = await startLoopback(
      [
        ({ res }) => {
          startEventStream(res);
          res.end(messageStart() + textBlock(0, 'hello from the second') + messageEnd());
        },
      ],
      '',
    );
    servers.push(openai, anthropic);
    const configs: ProviderConfig[] = [
      { name: 'first', kind: 'openai', baseURL: openai.baseURL, model: 'gpt-test', apiKeyEnv: 'FIRST_KEY' },
      {
        name: 'second',
        kind: 'anthropic',
        baseURL: anthropic.baseURL,
        model: 'claude-test',
        apiKeyEnv: 'SECOND_KEY',
        maxTokens: 100,
      },
    ];
    const provider = createProvider(configs, {
      env: { FIRST_KEY: 'k1', SECOND_KEY: ' k2\n' },
      sleep: instantSleep().sleep,
    });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).text).toBe('hello from the second');
    expect(openai.requests[0]?.headers.authorization).toBe('Bearer k1');
    expect(anthropic.requests[0]?.headers.authorization).toBe('Bearer k2');
    expect(anthropic.requests[0]?.body).toMatchObject({ model: 'claude-test', max_tokens: 100 });
  });

  it('refuses, before any request, a key variable that is not set, or a public API without a key', () => {
    const base: ProviderConfig = { name: 'main', kind: 'openai', model: 'gpt-test', apiKeyEnv: 'MISSING_KEY' };
    expect(() => createProvider([base], { env: {} })).toThrow(
      new ProviderConfigError(
        'provider "main": environment variable MISSING_KEY (apiKeyEnv) is not set; export the API key in it',
      ),
    );
    expect(() => createProvider([{ name: 'main', kind: 'openai', model: 'gpt-test' }], { env: {} })).toThrow(
      /no apiKeyEnv for the openai API/,
    );
    expect(() =>
      createProvider([{ name: 'c', kind: 'anthropic', baseURL: 'http://127.0.0.1:1', model: 'm' }], { env: {} }),
    ).toThrow(/an anthropic provider needs a key/);
    expect(() => createProvider([], { env: {} })).toThrow(/--model demo/);
  });

  it('accepts a local server without keys', () => {
    expect(() =>
      createProvider([{ name: 'ollama', kind: 'openai', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2' }], {
        env: {},
      }),
    ).not.toThrow();
  });
});

describe('providersSchema', () => {
  it('accepts the spec shape and names the path of each problem', () => {
    expect(
      providersSchema.safeParse([
        { name: 'a', kind: 'openai', model: 'm', apiKeyEnv: 'OPENAI_API_KEY', maxTokens: 512 },
      ]).success,
    ).toBe(true);
    const bad = providersSchema.safeParse([
      { name: 'a', kind: 'gemini', model: 'm' },
      { name: 'a', kind: 'openai', model: 'm', apiKeyEnv: 'sk-abc123', baseURL: 'ftp://x', extra: 1 },
    ]);
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.')).sort();
    expect(paths).toEqual(['0.kind', '1', '1.apiKeyEnv', '1.baseURL']);
    expect(bad.error?.issues.find((i) => i.path.join('.') === '1.apiKeyEnv')?.message).toMatch(/not the key itself/);
  });

  it('refuses two providers of the same name', () => {
    const dup = providersSchema.safeParse([
      { name: 'a', kind: 'openai', model: 'm' },
      { name: 'a', kind: 'anthropic', model: 'm' },
    ]);
    expect(dup.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['1.name', 'duplicate provider name "a"; give each provider its own'],
    ]);
  });
});
