/**
 * `mcpServers` in serve's config file (docs/spec.md §13.3): the shape other MCP hosts use, checked with
 * each problem named by its path; defaults (`timeoutMs` 60 000, every tool, not parallel-safe); names the
 * model can call; and the values of `env` and `headers` counted as secrets (§13.1a) that the journal
 * header never records.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publicConfig } from '../../src/server/public-config.ts';
import { secretsOf } from '../../src/server/secrets.ts';
import { resolveSettings, type Resolved } from '../../src/server/settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-mcp-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function resolve(config: Record<string, unknown>): Resolved {
  files += 1;
  const path = join(dir, `config-${files}.json`);
  writeFileSync(path, JSON.stringify(config));
  return resolveSettings({ config: path, model: 'demo', dataDir: join(dir, 'data') }, {});
}

function problems(r: Resolved): string[] {
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

const FILES = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/notes'] };

describe('serve: mcpServers settings', () => {
  it('takes stdio and Streamable HTTP servers in config order, with the defaults', () => {
    const r = resolve({
      mcpServers: {
        files: { ...FILES, env: { NOTES_TOKEN: 'notes-secret-1234' }, tools: ['read_text_file'] },
        search: {
          url: 'https://mcp.example/mcp',
          headers: { Authorization: 'Bearer search-secret-99' },
          timeoutMs: 5000,
          parallelSafe: true,
        },
      },
    });
    expect(problems(r)).toEqual([]);
    if (!r.ok) return;
    expect(r.settings.mcpServers).toEqual([
      {
        name: 'files',
        transport: {
          kind: 'stdio',
          command: 'npx',
          args: FILES.args,
          env: { NOTES_TOKEN: 'notes-secret-1234' },
          cwd: null,
        },
        tools: ['read_text_file'],
        parallelSafe: false,
        timeoutMs: 60_000,
      },
      {
        name: 'search',
        transport: {
          kind: 'http',
          url: 'https://mcp.example/mcp',
          headers: { Authorization: 'Bearer search-secret-99' },
        },
        tools: null,
        parallelSafe: true,
        timeoutMs: 5000,
      },
    ]);
    const secrets = secretsOf(r.settings, {}).map((s) => `${s.where}=${s.value}`);
    expect(secrets).toEqual([
      'mcpServers "files" env NOTES_TOKEN=notes-secret-1234',
      'mcpServers "search" header Authorization=Bearer search-secret-99',
    ]);
    const header = JSON.stringify(publicConfig(r.settings));
    expect(header).not.toContain('secret');
    expect(header).toContain('"env":["NOTES_TOKEN"]');
    expect(header).toContain('"headers":["Authorization"]');
  });

  it('names each wrong key by its path', () => {
    expect(
      problems(
        resolve({
          mcpServers: {
            both: { command: 'x', url: 'http://127.0.0.1:1/mcp' },
            neither: { args: [] },
            mixed: { url: 'http://127.0.0.1:1/mcp', env: { A: 'b' } },
            stdioHeaders: { command: 'x', headers: { A: 'b' } },
            ftp: { url: 'ftp://example/mcp' },
            bad__name: { command: 'x' },
          },
          tools: [{ name: 'mixed__tool', description: '', parameters: {}, command: ['true'] }],
        }),
      ),
    ).toEqual([
      'mcpServers.both: needs either "command" (a program serve starts over stdio) or "url" (a Streamable HTTP server)',
      'mcpServers.neither: needs either "command" (a program serve starts over stdio) or "url" (a Streamable HTTP server)',
      'mcpServers.mixed.env: belongs to a server started by "command"; a server reached by "url" takes "headers"',
      'mcpServers.stdioHeaders.headers: belongs to a server reached by "url"; a stdio server takes "env"',
      'mcpServers.ftp.url: must be an http:// or https:// URL (a Streamable HTTP MCP endpoint)',
    ]);
    expect(
      problems(
        resolve({
          mcpServers: { bad__name: { command: 'x' }, files: FILES },
          tools: [{ name: 'files__read', description: '', parameters: {}, command: ['true'] }],
        }),
      ),
    ).toEqual([
      'mcpServers.bad__name: the name must be 1 to 32 letters and digits, with single "_" or "-" between them: the model calls its tools <name>__<tool>',
      'tools[0].name: "files__read" is named like the tools of the MCP server "files"; rename the tool or the server',
    ]);
  });
});
