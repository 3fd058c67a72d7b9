/**
 * docs/spec.md §13.3: a tool an MCP server adds while serve runs (notifications/tools/list_changed) is
 * offered to the model from its next call. mcp-replay.test.ts covers the journal and the replay of such
 * a run from one shared start; this start is the test's own.
 */
import { describe, expect, it } from 'vitest';
import { startHttpMcpServer } from '../tools/mcp/http-mcp-server.ts';
import { http } from '../tools/mcp/servers.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer } from './support.ts';

describe('serve: an MCP tool list that changes', () => {
  it('a tool a server adds is offered from the next model call', async () => {
    const web = await startHttpMcpServer();
    const provider = new ScriptedProvider();
    const s = await startTestServer({ mcpServers: [http('web', web.url)] }, provider);
    try {
      const offered = (): string[] => provider.requests.at(-1)?.tools.map((tool) => tool.name) ?? [];
      await (await postJson(`${s.url}/v1/inputs`, { text: 'before' })).text();
      expect(offered()).toContain('web__add');
      expect(offered()).not.toContain('web__late');
      web.addTool('late');
      // The notification arrives on its own time: ask until the list has changed, for at most 5 s.
      const until = Date.now() + 5000;
      do await (await postJson(`${s.url}/v1/inputs`, { text: 'after' })).text();
      while (!offered().includes('web__late') && Date.now() < until);
      expect(offered()).toContain('web__late');
    } finally {
      await s.stop();
      await web.close();
    }
  });
});
