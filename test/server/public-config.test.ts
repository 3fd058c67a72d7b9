/**
 * The configuration a journal header records (src/server/public-config.ts, docs/config.md "journal.header"): every
 * setting serve ran with, field by field, with each provider's and MCP server's options present only
 * when set, and never a secret — the token is `auth: "bearer"`, URLs lose their credentials, and an MCP
 * server's variables and headers and the collector's headers are recorded by name.
 */
import { describe, expect, it } from 'vitest';
import { publicConfig } from '../../src/server/public-config.ts';
import type { ServeSettings } from '../../src/server/settings.ts';
import type { OtlpTarget } from '../../src/telemetry/index.ts';
import { testSettings } from './support.ts';

describe('publicConfig', () => {
  it('records a demo server with its defaults, and no telemetry when none is configured', () => {
    const settings = testSettings('/srv');
    expect(publicConfig(settings)).toEqual({
      model: 'demo',
      providers: [],
      http: { host: '127.0.0.1', port: 0, auth: 'none', bodyTimeoutMs: 2000, maxWatchers: 16, allowedHosts: [] },
      dataDir: '/srv/data',
      journal: null,
      trace: null,
      logFormat: 'json',
      terminal: false,
      tools: [],
      mcpServers: [],
      timers: [],
      channels: [],
      outputs: [],
      kernel: {},
    });
  });

  it('records providers, tools, MCP servers and the collector without a secret, optional fields only when set', () => {
    const settings: ServeSettings = testSettings('/srv', {
      token: 'the-token-1234',
      allowedHosts: ['agent.home.arpa'],
      model: {
        kind: 'providers',
        providers: [
          {
            name: 'main',
            kind: 'openai',
            model: 'gpt',
            baseURL: 'https://u:p@api.example/v1?api-key=k-123456&x=1',
            apiKeyEnv: 'OPENAI_KEY',
            maxTokens: 512,
            firstChunkTimeoutMs: 9000,
          },
          { name: 'spare', kind: 'anthropic', model: 'claude' },
        ],
      } as ServeSettings['model'],
      tools: [
        { name: 'shout', description: 'd', parameters: {}, command: ['echo'], timeoutMs: 500, parallelSafe: true },
        { name: 'quiet', description: 'd', parameters: {}, command: ['true'] },
      ] as unknown as ServeSettings['tools'],
      mcpServers: [
        {
          name: 'files',
          transport: {
            kind: 'stdio',
            command: 'mcp-files',
            args: ['/data'],
            env: { TOKEN: 'env-secret-1' },
            cwd: null,
          },
          tools: ['read'],
          parallelSafe: true,
          timeoutMs: 1000,
        },
        {
          name: 'web',
          transport: {
            kind: 'http',
            url: 'https://me:pw@mcp.example/mcp?token=t-123456',
            headers: { authorization: 'Bearer header-secret' },
          },
          tools: null,
          parallelSafe: false,
          timeoutMs: 60_000,
        },
      ],
      telemetry: {
        endpoint: 'https://collector.example:4318?api_key=otlp-1234',
        headers: { 'x-team': 'team-secret-1' },
      } as unknown as OtlpTarget,
    });
    const recorded = publicConfig(settings);
    expect(recorded).toMatchObject({
      model: 'providers',
      providers: [
        {
          name: 'main',
          kind: 'openai',
          model: 'gpt',
          baseURL: 'https://[redacted]@api.example/v1?api-key=[redacted]&x=1',
          apiKeyEnv: 'OPENAI_KEY',
          maxTokens: 512,
          firstChunkTimeoutMs: 9000,
        },
        { name: 'spare', kind: 'anthropic', model: 'claude' },
      ],
      http: { auth: 'bearer', allowedHosts: ['agent.home.arpa'] },
      tools: [
        { name: 'shout', command: ['echo'], timeoutMs: 500, parallelSafe: true },
        { name: 'quiet', command: ['true'], timeoutMs: null, parallelSafe: false },
      ],
      mcpServers: [
        {
          name: 'files',
          command: 'mcp-files',
          args: ['/data'],
          env: ['TOKEN'],
          cwd: null,
          tools: ['read'],
          parallelSafe: true,
          timeoutMs: 1000,
        },
        {
          name: 'web',
          url: 'https://[redacted]@mcp.example/mcp?token=[redacted]',
          headers: ['authorization'],
          tools: null,
          parallelSafe: false,
          timeoutMs: 60_000,
        },
      ],
      telemetry: { otlp: { endpoint: 'https://collector.example:4318/?api_key=[redacted]', headers: ['x-team'] } },
    });
    const providers = recorded.providers as Record<string, unknown>[];
    expect(Object.keys(providers[1] ?? {})).toEqual(['name', 'kind', 'model']);
    const text = JSON.stringify(recorded);
    for (const secret of [
      'the-token-1234',
      'k-123456',
      'env-secret-1',
      't-123456',
      'header-secret',
      'otlp-1234',
      'team-secret-1',
      ':pw@',
      ':p@',
    ])
      expect(text).not.toContain(secret);
  });
});
