/** The reference MCP servers the tests start over stdio, and config helpers. */
import { join } from 'node:path';
import type { McpServerConfig } from '../../../src/tools/mcp/mcp-config.ts';

const modules = join(import.meta.dirname, '../../../node_modules/@modelcontextprotocol');
export const EVERYTHING = join(modules, 'server-everything/dist/index.js');
export const FILESYSTEM = join(modules, 'server-filesystem/dist/index.js');
export const CRASHING = join(import.meta.dirname, 'fixtures/crashing-server.mjs');

export function stdio(name: string, args: readonly string[], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name,
    transport: { kind: 'stdio', command: process.execPath, args, env: {}, cwd: null },
    tools: null,
    parallelSafe: false,
    timeoutMs: 10_000,
    ...extra,
  };
}

export function http(name: string, url: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name,
    transport: { kind: 'http', url, headers: {} },
    tools: null,
    parallelSafe: false,
    timeoutMs: 10_000,
    ...extra,
  };
}
