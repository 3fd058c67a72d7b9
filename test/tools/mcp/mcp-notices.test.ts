/**
 * The log line of each MCP notice (docs/spec.md §13.3): one line per thing that happened to a server,
 * naming the server, with its tools, error, retry delay, stderr line or tool-list change.
 */
import { describe, expect, it } from 'vitest';
import { noticeText } from '../../../src/tools/mcp/mcp-notices.ts';

describe('noticeText', () => {
  it('ready: how many tools, and their names when there are any', () => {
    expect(noticeText({ type: 'ready', server: 'files', tools: ['read', 'write'] })).toBe(
      'MCP server "files" is ready with 2 tools: read, write',
    );
    expect(noticeText({ type: 'ready', server: 'files', tools: ['read'] })).toBe(
      'MCP server "files" is ready with 1 tools: read',
    );
    expect(noticeText({ type: 'ready', server: 'files', tools: [] })).toBe('MCP server "files" is ready with 0 tools');
  });

  it('failed: the error and when it is tried again', () => {
    expect(noticeText({ type: 'failed', server: 'files', error: 'spawn ENOENT', retryInMs: 2000 })).toBe(
      'MCP server "files" failed: spawn ENOENT; its tools answer an error until it is back, retrying in 2000 ms',
    );
  });

  it('stderr: the line after the server name', () => {
    expect(noticeText({ type: 'stderr', server: 'files', line: 'listening' })).toBe('files: listening');
  });

  it('error: the error after the server name', () => {
    expect(noticeText({ type: 'error', server: 'files', error: 'bad message' })).toBe(
      'MCP server "files": bad message',
    );
  });

  it('tools.changed: what was added and removed, "none" for an empty side', () => {
    expect(noticeText({ type: 'tools.changed', server: 'files', added: ['a', 'b'], removed: ['c'] })).toBe(
      'MCP server "files" changed its tools (added: a, b; removed: c); the model is offered the new list from its next call',
    );
    expect(noticeText({ type: 'tools.changed', server: 'files', added: [], removed: [] })).toBe(
      'MCP server "files" changed its tools (added: none; removed: none); the model is offered the new list from its next call',
    );
  });

  it('tool.skipped: the tool and why it is not offered', () => {
    expect(noticeText({ type: 'tool.skipped', server: 'files', tool: 'x.y', why: 'a bad name' })).toBe(
      'MCP server "files": the tool "x.y" is not offered: a bad name',
    );
  });
});
