/**
 * Each problem serve's settings can have, with its exact path and message (docs/config.md, docs/cli.md):
 * the model flags, a configuration file that cannot be read, the demo pace, a configuration file's
 * tools, residents, timers, allowed hosts and MCP server names. serve prints them all at start and does
 * not start; each says what to do.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings, type ServeFlags } from '../../src/server/settings.ts';
import { configFiles } from '../support/config-files.ts';

const configFile = configFiles('homeagent-settings-problems-');

const PROVIDERS = [{ name: 'local', kind: 'openai', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3' }];

function problemsOf(flags: ServeFlags): { path: string; message: string }[] {
  const r = resolveSettings(flags, {});
  return r.ok ? [] : r.problems;
}

const withConfig = (extra: Record<string, unknown>): { path: string; message: string }[] =>
  problemsOf({ config: configFile({ providers: PROVIDERS, ...extra }) });

describe('serve settings: the model flags', () => {
  it('--model names only "demo"; real models are configured under providers', () => {
    expect(problemsOf({ model: 'gpt-4o' })).toEqual([
      {
        path: '--model',
        message: 'only "demo" is a model name here, got "gpt-4o"; configure real models under "providers" in --config',
      },
    ]);
  });

  it('a file without providers, and no file at all, each say how to give a model', () => {
    expect(problemsOf({ config: configFile({}) })).toEqual([
      {
        path: 'providers',
        message: 'required: list at least one provider (kind "openai" or "anthropic"), or run with --model demo',
      },
    ]);
    expect(problemsOf({})).toEqual([
      {
        path: '--config',
        message: 'no model to talk to: give --config FILE with "providers", or run with --model demo',
      },
    ]);
  });

  it('a configuration file that cannot be read, or is not JSON, is one problem naming the file', () => {
    const missing = `${configFile({})}.missing`;
    expect(problemsOf({ config: missing })).toEqual([
      {
        path: '--config',
        message: `cannot read ${missing}: ENOENT: no such file or directory, open '${missing}'`,
      },
    ]);
    const broken = configFile('{"providers": ');
    expect(problemsOf({ config: broken })).toEqual([
      { path: '', message: expect.stringMatching(new RegExp(`^${broken} is not JSON: [A-Z]`)) as string },
    ]);
  });

  it('--demo-chunk-ms: 0 to 10 000 whole milliseconds, and only with --model demo', () => {
    for (const [text, ms] of [
      ['0', 0],
      ['10000', 10_000],
    ] as const) {
      const r = resolveSettings({ model: 'demo', demoChunkMs: text }, {});
      expect(r.ok && r.settings.model).toEqual({ kind: 'demo', chunkMs: ms });
    }
    for (const text of ['10001', '1.5', '-1', 'fast', ''])
      expect(problemsOf({ model: 'demo', demoChunkMs: text }), text).toEqual([
        {
          path: '--demo-chunk-ms',
          message: `must be a whole number of milliseconds 0 … 10000 (0 streams without pausing), got ${JSON.stringify(text)}`,
        },
      ]);
    expect(problemsOf({ config: configFile({ providers: PROVIDERS }), demoChunkMs: '5' })).toEqual([
      { path: '--demo-chunk-ms', message: 'sets the pace of the demo model; use it with --model demo' },
    ]);
  });
});

describe('serve settings: the configuration file', () => {
  const tool = (over: Record<string, unknown>) => ({
    name: 'shout',
    description: '',
    parameters: {},
    command: ['echo'],
    ...over,
  });

  it('a tool: its name, a built-in name, its command, and a duplicate', () => {
    expect(withConfig({ tools: [tool({ name: 'no spaces' })] })).toEqual([
      { path: 'tools[0].name', message: 'must be 1 to 64 letters, digits, "_" or "-"' },
    ]);
    expect(withConfig({ tools: [tool({ name: 'memory_recall' })] })).toEqual([
      { path: 'tools[0].name', message: 'is the name of a built-in tool; choose another name' },
    ]);
    expect(withConfig({ tools: [tool({ command: [] })] })).toEqual([
      { path: 'tools[0].command', message: 'must name the program to run, then its arguments (no shell is used)' },
    ]);
    expect(withConfig({ tools: [tool({}), tool({ command: ['true'] })] })).toEqual([
      { path: 'tools[1].name', message: 'duplicate tool name "shout"; give each tool its own' },
    ]);
  });

  it("a resident's id names a directory and a channel", () => {
    expect(withConfig({ residents: [{ id: 'Worker' }] })).toEqual([
      { path: 'residents[0].id', message: 'must match [a-z0-9][a-z0-9-]* (it names a directory and a channel)' },
    ]);
  });

  it("a timer's name, and a repeat of at least a second", () => {
    expect(withConfig({ timers: [{ name: 'tea time', text: 'tea', everyMs: 999 }] })).toEqual([
      { path: 'timers[0].name', message: 'must be 1 to 64 letters, digits, "_" or "-"' },
      { path: 'timers[0].everyMs', message: 'must be at least 1000 (a timer firing more often floods the agent)' },
    ]);
  });

  it('an allowed host is a name, without scheme or port', () => {
    expect(withConfig({ http: { allowedHosts: ['http://agent.home.arpa'] } })).toEqual([
      { path: 'http.allowedHosts[0]', message: 'must be a host name, like agent.home.arpa (no scheme, no port)' },
    ]);
  });

  it('an MCP server name leaves room for its tools: letters and digits with single "_" or "-", at most 32', () => {
    const message =
      'the name must be 1 to 32 letters and digits, with single "_" or "-" between them: the model calls its tools <name>__<tool>';
    for (const name of ['two__parts', 'x'.repeat(33), '-lead'])
      expect(withConfig({ mcpServers: { [name]: { url: 'http://127.0.0.1:9/mcp' } } }), name).toEqual([
        { path: `mcpServers.${name}`, message },
      ]);
    expect(withConfig({ mcpServers: { ['x'.repeat(32)]: { url: 'http://127.0.0.1:9/mcp' } } })).toEqual([]);
  });
});
