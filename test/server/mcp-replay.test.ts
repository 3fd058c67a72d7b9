/**
 * MCP tool lists that change while serve runs, and the journal of such a run replayed without any MCP
 * server (docs/spec.md §13.3): a tool a server adds (notifications/tools/list_changed) reaches the model
 * at its next call, the change is one `tools.set` input in the journal, and after the servers are gone
 * `sim replay` matches serve's trace hash and `--to-scenario` gives a scenario that runs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { journalToScenario } from '../../src/sim/replay/to-scenario.ts';
import { parseScenario } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { startHttpMcpServer, type HttpMcpServer } from '../tools/mcp/http-mcp-server.ts';
import { FILESYSTEM, http, stdio } from '../tools/mcp/servers.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const USAGE = { inputTokens: 3, outputTokens: 2 };

/** `call <tool> <json>` calls that tool, then says `tool said: <result>`; it records what it was offered. */
class Script implements Provider {
  readonly offered: string[][] = [];
  private readonly inputs = new Map<string, string>();

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk, void, undefined> {
    await Promise.resolve();
    this.offered.push(request.tools.map((t) => t.name).filter((n) => n.includes('__')));
    // The root's conversation holds earlier tasks: a task's input is the last user message of its first call.
    const said =
      this.inputs.get(request.task) ?? [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    this.inputs.set(request.task, said);
    const call = /^call (\S+) (.*)$/s.exec(said);
    if (request.replyIndex === 0 && call !== null) {
      yield { type: 'tool_call', index: 0, id: 'c1', name: call[1] ?? '', argsDelta: call[2] ?? '' };
      yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
      return;
    }
    const result = [...request.messages].reverse().find((m) => m.role === 'tool')?.content;
    yield { type: 'text', text: result === undefined ? `echo: ${said}` : `tool said: ${result}` };
    yield { type: 'done', finishReason: 'stop', usage: USAGE };
  }
}

let dir: string;
let journal: string;
let web: HttpMcpServer | null = null;
let s: TestServer | null = null;
let served: { traceHash: string; events: number };
const provider = new Script();
const replies: string[] = [];

async function ask(text: string): Promise<string> {
  const res = await postJson(`${s?.url ?? ''}/v1/inputs`, { text });
  const reply = ((await res.json()) as { reply: string }).reply;
  replies.push(reply);
  return reply;
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function journalInputs(): { type: string; tools?: { name: string }[] }[] {
  return readFileSync(journal, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; input?: { type: string; tools?: { name: string }[] } })
    .flatMap((l) => (l.type === 'input' && l.input !== undefined ? [l.input] : []));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-mcp-replay-'));
  journal = join(dir, 'run.jsonl');
  writeFileSync(join(dir, 'note.txt'), 'buy milk');
  web = await startHttpMcpServer();
  s = await startTestServer(
    {
      journal,
      mcpServers: [stdio('files', [FILESYSTEM, dir], { tools: ['read_text_file'] }), http('web', web.url)],
    },
    provider,
  );
  expect(await ask(`call files__read_text_file {"path":"${join(dir, 'note.txt')}"}`)).toBe('tool said: buy milk');
  expect(await ask('call web__add {"a":"two","b":3}')).toBe(
    'tool said: error: invalid arguments for web__add: /a must be number',
  );
  web.addTool('late');
  await waitFor(() => journalInputs().some((i) => i.type === 'tools.set'));
  expect(await ask('call web__late {}')).toBe('tool said: late');
  served = await s.stop();
  s = null;
  // From here on no MCP server runs.
  await web.close();
  web = null;
}, 30_000);

afterAll(async () => {
  await s?.stop();
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: an MCP tool list that changes', () => {
  it('offers a tool added by notifications/tools/list_changed from the next model call', () => {
    const first = provider.offered[0] ?? [];
    expect(first).toContain('files__read_text_file');
    expect(first).toContain('web__add');
    expect(first).not.toContain('web__late');
    expect(provider.offered.at(-1)).toEqual([...first, 'web__late']);
  });

  it('journals the change as one tools.set input naming the whole new list', () => {
    const sets = journalInputs().filter((i) => i.type === 'tools.set');
    expect(sets).toHaveLength(1);
    expect(sets[0]?.tools?.map((t) => t.name)).toEqual([...(provider.offered[0] ?? []), 'web__late']);
  });
});

describe('sim replay of an MCP run, with no MCP server running', () => {
  it('reproduces the trace hash serve ended with', () => {
    const outcome = replayJournal(journal, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result).toMatchObject({
      ok: true,
      matches: true,
      traceHash: served.traceHash,
      events: served.events,
      divergences: [],
    });
  });

  it('--to-scenario gives a scenario that runs and ends every task with the reply it had', async () => {
    const converted = journalToScenario(journal, HOMEAGENT_VERSION);
    if (converted.kind !== 'scenario') throw new Error(JSON.stringify(converted.problems));
    const parsed = parseScenario(converted.scenario);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems, null, 2));
    const outcome = await runScenario(parsed.scenario);
    if (outcome.kind !== 'report') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.report.violations).toEqual([]);
    expect(outcome.report.ok).toBe(true);
    const ids = parsed.scenario.inputs.map((i) => i.id);
    expect(ids.map((id) => outcome.report.tasks[id]?.reply)).toEqual(replies);
  });
});
