/**
 * An MCP tool call before anything is sent (docs/spec.md §13.3): `<server>__<tool>` split at the first
 * separator, a call refused at once when no configured server owns it, when its server is away (the
 * server's own text) or does not offer the tool, or when its arguments do not match the schema; and the
 * exact tool-error texts serve and the simulator share.
 */
import { describe, expect, it } from 'vitest';
import { SchemaCompiler } from '../../../src/tools/mcp/mcp-arguments.ts';
import {
  admitCall,
  CONNECTION_LOST,
  notOffered,
  splitName,
  stoppedDuringCall,
  timedOut,
  unavailableText,
  type CallableServer,
} from '../../../src/tools/mcp/mcp-call.ts';

interface FakeServer extends CallableServer {
  readonly id: string;
}

function server(name: string, tools: readonly string[], away = 'it is starting'): FakeServer {
  const { validate } = new SchemaCompiler().compile({
    type: 'object',
    properties: { n: { type: 'number' } },
    additionalProperties: false,
  });
  return {
    id: `server ${name}`,
    name,
    tools: () => tools.map((t) => ({ name: t, validate: t === 'free' ? null : validate })),
    unavailable: () => unavailableText(name, away),
  };
}

const files = server('files', ['read', 'free', 'a__b']);
const down = server('down', [], 'it failed: boom');
const servers = new Map<string, FakeServer>([
  ['files', files],
  ['down', down],
  ['files_x', server('files_x', ['read'])],
]);

describe('splitName', () => {
  it('splits at the first separator into a configured server and its tool', () => {
    expect(splitName('files__read', servers)).toEqual({ server: files, tool: 'read' });
    expect(splitName('files__a__b', servers)).toEqual({ server: files, tool: 'a__b' });
    expect(splitName('files___x', servers)).toEqual({ server: files, tool: '_x' });
    expect(splitName('files__', servers)).toEqual({ server: files, tool: '' });
    expect(splitName('files_x__read', servers)?.server.id).toBe('server files_x');
  });

  it('is null without a separator, with nothing before it, or for a server not configured', () => {
    expect(splitName('files', servers)).toBeNull();
    expect(splitName('files_read', servers)).toBeNull();
    expect(splitName('other__read', servers)).toBeNull();
    expect(splitName('Files__read', servers)).toBeNull();
    expect(splitName('', servers)).toBeNull();
    // A name that starts with the separator names no server, even one keyed by the empty name.
    const unnamed = new Map<string, FakeServer>([['', server('', ['read'])]]);
    expect(splitName('__read', unnamed)).toBeNull();
  });
});

describe('admitCall', () => {
  const call = (name: string, args = '{}'): ReturnType<typeof admitCall<FakeServer>> =>
    admitCall({ id: 'c1', name, args }, servers);

  it('sends a listed tool with arguments that match, as an object', () => {
    expect(call('files__read', '{"n":2}')).toEqual({ kind: 'send', server: files, tool: 'read', args: { n: 2 } });
    expect(call('files__read', '')).toEqual({ kind: 'send', server: files, tool: 'read', args: {} });
    expect(call('files__a__b')).toEqual({ kind: 'send', server: files, tool: 'a__b', args: {} });
  });

  it('sends the arguments of a tool without a validator unchecked', () => {
    expect(call('files__free', '{"n":"x","m":1}')).toEqual({
      kind: 'send',
      server: files,
      tool: 'free',
      args: { n: 'x', m: 1 },
    });
  });

  it('refuses a name no configured server owns', () => {
    expect(call('other__read')).toEqual({ kind: 'refused', output: 'tool "other__read" is not an MCP server\'s' });
    expect(call('read')).toEqual({ kind: 'refused', output: 'tool "read" is not an MCP server\'s' });
  });

  it('refuses a tool the server does not offer', () => {
    expect(call('files__write')).toEqual({
      kind: 'refused',
      output: 'MCP server "files" does not offer the tool "write"',
    });
  });

  it('refuses every call of a server that offers no tools with its own text', () => {
    expect(call('down__read')).toEqual({
      kind: 'refused',
      output: 'MCP server "down" is not available (it failed: boom); serve retries it, try again later',
    });
  });

  it('refuses arguments that do not match, naming the offered tool', () => {
    expect(call('files__read', '{"n":"two"}')).toEqual({
      kind: 'refused',
      output: 'invalid arguments for files__read: /n must be number',
    });
    expect(call('files__free', '[1]')).toEqual({
      kind: 'refused',
      output: 'invalid arguments for files__free: must be object',
    });
  });
});

describe('the tool-error texts', () => {
  it('say what happened and name the server and the offered tool', () => {
    expect(CONNECTION_LOST).toBe('the connection closed (the server exited or hung up)');
    expect(unavailableText('files', 'serve is stopping')).toBe(
      'MCP server "files" is not available (serve is stopping); serve retries it, try again later',
    );
    expect(notOffered('files', 'rm')).toBe('MCP server "files" does not offer the tool "rm"');
    expect(stoppedDuringCall('files', 'read')).toBe('MCP server "files" stopped during the call of files__read');
    expect(timedOut('files', 'read', 250)).toBe('files__read timed out after 250 ms');
  });
});
