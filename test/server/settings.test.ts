/**
 * `serve`'s settings (docs/spec.md §13.1): the config file validated with every problem named by its path,
 * flags over the file, `--token` over HOMEAGENT_TOKEN over `http.token`, `--model demo` without any
 * configuration, and a non-loopback bind without a token refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLoopbackHost, resolveSettings, type Resolved } from '../../src/server/settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function configFile(value: unknown): string {
  files += 1;
  const path = join(dir, `config-${files}.json`);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

const PROVIDERS = [{ name: 'local', kind: 'openai', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3' }];

function problems(r: Resolved): { path: string; message: string }[] {
  return r.ok ? [] : r.problems;
}

describe('serve: settings', () => {
  it('--model demo runs with no configuration at all, on 127.0.0.1:8787 by default', () => {
    const r = resolveSettings({ model: 'demo' }, {});
    expect(r.ok && r.settings).toMatchObject({
      model: { kind: 'demo' },
      host: '127.0.0.1',
      port: 8787,
      token: null,
      terminal: true,
      logFormat: 'json',
    });
  });

  it('without a model there is nothing to talk to; only "demo" is a model flag', () => {
    expect(problems(resolveSettings({}, {}))).toEqual([
      { path: '--config', message: expect.stringContaining('--model demo') as string },
    ]);
    expect(problems(resolveSettings({ model: 'gpt-4o' }, {}))[0]?.path).toBe('--model');
    expect(problems(resolveSettings({ config: configFile({ dataDir: dir }) }, {}))[0]?.path).toBe('providers');
  });

  it('the token: --token over HOMEAGENT_TOKEN over http.token', () => {
    const config = configFile({ providers: PROVIDERS, http: { token: 'from-file' } });
    const token = (flags: { token?: string }, env: Record<string, string>): string | null => {
      const r = resolveSettings({ config, ...flags }, env);
      return r.ok ? r.settings.token : 'refused';
    };
    expect(token({}, {})).toBe('from-file');
    expect(token({}, { HOMEAGENT_TOKEN: 'from-env' })).toBe('from-env');
    expect(token({ token: 'from-flag' }, { HOMEAGENT_TOKEN: 'from-env' })).toBe('from-flag');
  });

  it('flags override the file', () => {
    const config = configFile({ providers: PROVIDERS, dataDir: '/from/file', http: { host: '127.0.0.2', port: 9000 } });
    const r = resolveSettings({ config, port: '9100', dataDir: '/from/flag', model: 'demo', terminal: false }, {});
    expect(r.ok && r.settings).toMatchObject({
      host: '127.0.0.2',
      port: 9100,
      dataDir: '/from/flag',
      model: { kind: 'demo' },
      terminal: false,
    });
  });

  it('a non-loopback host without a token is refused at start', () => {
    const [refused] = problems(resolveSettings({ model: 'demo', host: '0.0.0.0' }, {}));
    expect(refused?.path).toBe('--host');
    expect(refused?.message).toContain('set --token or HOMEAGENT_TOKEN, or bind to 127.0.0.1');
    expect(resolveSettings({ model: 'demo', host: '0.0.0.0' }, { HOMEAGENT_TOKEN: 't' }).ok).toBe(true);
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '192.168.1.2', '::', 'example.org']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('defaults: ~/.homeagent, durable, no allowed hosts or built-in plugins; --no-journal turns durability off', () => {
    const r = resolveSettings({ model: 'demo' }, {});
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.settings).toMatchObject({
      dataDir: join(homedir(), '.homeagent'),
      durable: true,
      allowedHosts: [],
      builtinPlugins: [],
      token: null,
    });
    const off = resolveSettings({ model: 'demo', journal: false }, {});
    expect(off.ok && off.settings.durable).toBe(false);
  });

  it('a non-loopback host needs a token, and an empty HOMEAGENT_TOKEN is none; an empty host is one problem', () => {
    expect(problems(resolveSettings({ model: 'demo', host: '0.0.0.0' }, { HOMEAGENT_TOKEN: '' }))).toEqual([
      {
        path: '--host',
        message:
          '0.0.0.0 is not a loopback address, and without a token anyone who reaches it can talk to the agent; set --token or HOMEAGENT_TOKEN, or bind to 127.0.0.1',
      },
    ]);
    expect(problems(resolveSettings({ model: 'demo', host: '' }, {}))).toEqual([
      { path: '--host', message: 'must name a host, like 127.0.0.1' },
    ]);
    expect(problems(resolveSettings({ model: 'demo', token: 'tab\there' }, {}))).toEqual([
      {
        path: '--token',
        message:
          'must be printable ASCII (letters, digits, punctuation; spaces only inside): an HTTP header carries nothing else, so no client could send this token',
      },
    ]);
  });

  it('loopback in every form the resolver reads, and nothing one past it', () => {
    const loopback = [
      '127.1',
      '0x7f.1',
      '0X7F.0.0.1',
      '0177.0.0.1',
      '2130706433',
      '0x7f000001',
      '127.0.65535',
      '127.16777215',
      '127.255.255.255',
      'LOCALHOST',
      'localhost.',
      '[::ffff:127.0.0.1]',
      '::ffff:7f00:1',
      '0:0:0:0:0:0:0:1',
    ];
    for (const host of loopback) expect(isLoopbackHost(host), host).toBe(true);
    const elsewhere = [
      '127.0.0.256',
      '127.256.0.1',
      '127.0.65536',
      '127.16777216',
      '4294967296',
      '127.0.0.1.1',
      '127.0.0.1.0',
      'ab0x7f.0.0.1',
      '0177x.0.0.1',
      '08.0.0.1',
      '0x7g.0.0.1',
      'x0x7f.0.0.1',
      '127.0.0.1x',
      '1127.0.0.1',
      '0127.0.0.1',
      '128.0.0.1',
      '::ffff:8000:1',
      '::ffff:7f00:1:0',
      '::2',
      '[localhost]x',
      '',
    ];
    for (const host of elsewhere) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('config problems are all reported, each with its path and what to do', () => {
    const config = configFile({
      providers: [{ name: 'a', kind: 'openai', model: 'm', apiKey: 'sk-secret' }],
      http: { port: '80' },
      tools: [
        { name: 'memory_write', description: '', parameters: {}, command: ['x'] },
        { name: 'ok', description: '', parameters: {}, command: [] },
      ],
      residents: [{ id: 'R1' }],
      kernel: { maxQueue: 0, bogus: true },
    });
    const found = problems(resolveSettings({ config }, {}));
    const byPath = Object.fromEntries(found.map((p) => [p.path, p.message]));
    expect(byPath['providers[0].apiKey']).toContain('unknown field');
    expect(byPath['http.port']).toBe('must be a number, got "80"');
    expect(byPath['tools[0].name']).toContain('built-in tool');
    expect(byPath['tools[1].command']).toContain('no shell');
    expect(byPath['residents[0].id']).toContain('[a-z0-9]');
    expect(byPath['kernel.maxQueue']).toBe('must be ≥ 1, got 0');
    expect(byPath['kernel.bogus']).toContain('maxQueue, cooldownMs');
  });

  it('an unreadable or non-JSON file, a bad port, a bad log format, a duplicate tool', () => {
    expect(problems(resolveSettings({ config: join(dir, 'absent.json') }, {}))[0]?.path).toBe('--config');
    expect(problems(resolveSettings({ config: configFile('{nope') }, {}))[0]).toMatchObject({
      path: '',
      message: expect.stringContaining('not JSON') as string,
    });
    expect(problems(resolveSettings({ model: 'demo', port: '70000' }, {}))[0]?.path).toBe('--port');
    expect(problems(resolveSettings({ model: 'demo', logFormat: 'xml' }, {}))[0]?.path).toBe('--log-format');
    expect(problems(resolveSettings({ model: 'demo', journal: 'run.jsonl', trace: './run.jsonl' }, {}))[0]?.path).toBe(
      '--trace',
    );
    const tool = { name: 'same', description: '', parameters: {}, command: ['true'] };
    expect(
      problems(resolveSettings({ config: configFile({ providers: PROVIDERS, tools: [tool, tool] }) }, {}))[0]?.path,
    ).toBe('tools[1].name');
  });

  it('an empty --host or --token is refused naming the flag; an empty HOMEAGENT_TOKEN is no token', () => {
    expect(problems(resolveSettings({ model: 'demo', host: '' }, {}))).toEqual([
      { path: '--host', message: 'must name a host, like 127.0.0.1' },
    ]);
    expect(problems(resolveSettings({ model: 'demo', token: '' }, {}))).toEqual([
      { path: '--token', message: 'must not be empty; leave it out for no token' },
    ]);
    const r = resolveSettings({ model: 'demo' }, { HOMEAGENT_TOKEN: '' });
    expect(r.ok && r.settings.token).toBeNull();
  });

  it("a non-loopback host from the file without a token is refused naming the file's field", () => {
    const config = configFile({ providers: PROVIDERS, http: { host: '192.168.1.2' } });
    expect(problems(resolveSettings({ config }, {})).map((p) => p.path)).toEqual(['http.host']);
  });

  it('--port: 0 to 65535 in decimal digits; anything else is refused with what was given', () => {
    for (const [text, port] of [
      ['0', 0],
      ['65535', 65_535],
      ['08080', 8080],
    ] as const) {
      const r = resolveSettings({ model: 'demo', port: text }, {});
      expect(r.ok && r.settings.port, text).toBe(port);
    }
    for (const text of ['65536', '123456', '1e3', '0x50', ' 80', '', '-1'])
      expect(problems(resolveSettings({ model: 'demo', port: text }, {})), text).toEqual([
        {
          path: '--port',
          message: `must be a port number 0 … 65535 (0 picks a free one), got ${JSON.stringify(text)}`,
        },
      ]);
  });

  it("an MCP server's transport and options take their defaults when the file leaves them out", () => {
    const config = configFile({
      providers: PROVIDERS,
      mcpServers: { web: { url: 'http://127.0.0.1:9/mcp' }, files: { command: 'mcp-files' } },
    });
    const r = resolveSettings({ config }, {});
    expect(r.ok && r.settings.mcpServers).toEqual([
      {
        name: 'web',
        transport: { kind: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} },
        tools: null,
        parallelSafe: false,
        timeoutMs: 60_000,
      },
      {
        name: 'files',
        transport: { kind: 'stdio', command: 'mcp-files', args: [], env: {}, cwd: null },
        tools: null,
        parallelSafe: false,
        timeoutMs: 60_000,
      },
    ]);
  });

  it('a token must be printable ASCII, wherever it comes from: no client could send another', () => {
    for (const bad of ['caf\u00e9', 'tab\there', ' padded', 'line\nbreak']) {
      const flag = problems(resolveSettings({ model: 'demo', token: bad }, {}));
      expect(flag, JSON.stringify(bad)).toEqual([
        { path: '--token', message: expect.stringContaining('printable ASCII') as string },
      ]);
      expect(problems(resolveSettings({ model: 'demo' }, { HOMEAGENT_TOKEN: bad }))[0]?.path).toBe('HOMEAGENT_TOKEN');
      const file = configFile({ providers: PROVIDERS, http: { token: bad } });
      expect(problems(resolveSettings({ config: file }, {}))[0]?.path).toBe('http.token');
    }
    // The message never repeats the token itself.
    expect(problems(resolveSettings({ model: 'demo', token: 'secr\u00e9t' }, {}))[0]?.message).not.toContain('secr');
    expect(resolveSettings({ model: 'demo', token: 'a-Z_0.9~+/=!' }, {}).ok).toBe(true);
  });

  it('a config file that cannot be used is one problem about the file, not also "providers: required"', () => {
    const absent = join(dir, 'absent.json');
    expect(problems(resolveSettings({ config: absent }, {}))).toEqual([
      { path: '--config', message: expect.stringContaining(absent) as string },
    ]);
    expect(problems(resolveSettings({ config: configFile('{nope') }, {}))).toHaveLength(1);
    // A file with providers and one unknown key: that key is the problem, the providers are there.
    const typo = problems(resolveSettings({ config: configFile({ providers: PROVIDERS, htp: {} }) }, {}));
    expect(typo.map((p) => p.path)).toEqual(['htp']);
    // Without providers, that is said too.
    const both = problems(resolveSettings({ config: configFile({ htp: {} }) }, {}));
    expect(both.map((p) => p.path)).toEqual(['htp', 'providers']);
  });

  it('--host accepts every loopback form without a token: 127.1, 0x7f.1, ::ffff:127.0.0.1, LOCALHOST …', () => {
    for (const host of [
      '127.1',
      '127.0.1',
      '0x7f.1',
      '0177.0.0.1',
      '2130706433',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
      '0:0:0:0:0:0:0:1',
      'LOCALHOST',
      'localhost.',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
      expect(resolveSettings({ model: 'demo', host }, {}).ok, host).toBe(true);
    }
    for (const host of [
      '128.0.0.1',
      '127.0.0.1.example.org',
      '1.127.0.0',
      '::2',
      '0x80.1',
      '4294967296',
      'localhost.org',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
