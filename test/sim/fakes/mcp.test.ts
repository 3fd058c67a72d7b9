/**
 * MCP-shaped servers in scenario files (docs/scenario-format.md `mcpServers`, docs/spec.md §13.3): the
 * file's keys and their problems, and runs whose calls are checked, answered, timed out and cut by a
 * server's death with serve's own texts, the tool list following the server as it dies and comes back.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../src/kernel/index.ts';
import { scenarioKernelConfig } from '../../../src/sim/world.ts';
import { runScenario } from '../../../src/sim/simulation.ts';
import type { Report } from '../../../src/sim/report/index.ts';
import { doc, ok, paths, problems } from '../scenario/helpers.ts';

const PATH_SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

function server(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { tools: { read: { inputSchema: PATH_SCHEMA, durationMs: 20, result: 'text' } }, ...extra };
}

function calling(id: string, at: number, name: string, args: unknown): Record<string, unknown> {
  return {
    id,
    class: 'queued',
    source: 'cli',
    text: id,
    at,
    replies: [{ tools: [{ name, args }] }, { text: `${id} done` }],
  };
}

async function run(json: Record<string, unknown>): Promise<{ report: Report; events: readonly TraceEvent[] }> {
  const outcome = await runScenario(ok(json));
  if (outcome.kind !== 'report') throw new Error(JSON.stringify(outcome.problems));
  expect(outcome.report.violations).toEqual([]);
  return { report: outcome.report, events: outcome.record.events };
}

function toolCall(report: Report, id: string): { result?: unknown; ok?: unknown; start?: unknown; end?: unknown } {
  const calls = report.tasks[id]?.toolCalls as { result?: unknown; ok?: unknown }[] | undefined;
  return calls?.[0] ?? {};
}

describe('mcpServers in the scenario file', () => {
  it('normalizes a server with its defaults; a file without servers has no mcpServers key', () => {
    const s = ok(doc({ mcpServers: { files: server() } }));
    expect(s.mcpServers).toEqual([
      {
        name: 'files',
        tools: [
          {
            name: 'read',
            description: 'scenario MCP tool read',
            inputSchema: PATH_SCHEMA,
            durationMs: 20,
            result: 'text',
            isError: false,
            listedAt: 0,
          },
        ],
        parallelSafe: false,
        timeoutMs: 60_000,
        down: [],
      },
    ]);
    expect(ok(doc())).not.toHaveProperty('mcpServers');
  });

  it('offers its tools at start after the scenario tools, unless the server is down at 0', () => {
    const names = (json: Record<string, unknown>): string[] => scenarioKernelConfig(ok(json)).tools.map((t) => t.name);
    const tools = { zeta: { durationMs: 1 } };
    expect(names(doc({ tools, mcpServers: { files: server() } }))).toEqual(['zeta', 'files__read']);
    expect(names(doc({ tools, mcpServers: { files: server({ down: [{ at: 0, backAfterMs: 5 }] }) } }))).toEqual([
      'zeta',
    ]);
    const later = { tools: { read: { durationMs: 1, listedAt: 10 } } };
    expect(names(doc({ mcpServers: { files: later } }))).toEqual([]);
  });

  it('refuses a bad server name, a tool named like a server tool, an offered name over 64 and downtimes out of order', () => {
    expect(paths(doc({ mcpServers: { a__b: server() } }))).toEqual(['mcpServers.a__b']);
    expect(problems(doc({ tools: { files__x: { durationMs: 1 } }, mcpServers: { files: server() } }))).toEqual([
      {
        path: 'tools.files__x',
        message: '"files__x" is named like the tools of the MCP server "files"; rename the tool or the server',
      },
    ]);
    expect(paths(doc({ mcpServers: { files: { tools: { ['t'.repeat(60)]: { durationMs: 1 } } } } }))).toEqual([
      `mcpServers.files.tools.${'t'.repeat(60)}`,
    ]);
    expect(
      problems(
        doc({
          mcpServers: {
            files: server({
              down: [{ at: 100, backAfterMs: 50 }, { at: 120, backAfterMs: 5 }, { at: 300 }, { at: 400 }],
            }),
          },
        }),
      ),
    ).toEqual([
      { path: 'mcpServers.files.down[1].at', message: 'must be ≥ 150, when the downtime before is over' },
      {
        path: 'mcpServers.files.down[3]',
        message: 'the server never comes back from the downtime before (no backAfterMs)',
      },
    ]);
  });

  it('lets a resident be granted a server tool listed at start', () => {
    expect(
      ok(doc({ mcpServers: { files: server() }, residents: [{ id: 'kid', tools: ['files__read'] }] })).residents,
    ).toHaveLength(1);
    expect(
      paths(
        doc({
          mcpServers: { files: server({ down: [{ at: 0, backAfterMs: 5 }] }) },
          residents: [{ id: 'kid', tools: ['files__read'] }],
        }),
      ),
    ).toEqual(['residents[0].tools[0]']);
  });
});

describe('a run with an MCP-shaped server', () => {
  it('answers isError results as tool errors and times out a call that outlasts timeoutMs', async () => {
    const { report } = await run(
      doc({
        mcpServers: {
          files: {
            timeoutMs: 100,
            tools: {
              broken: { durationMs: 10, result: 'the disk is full', isError: true },
              slow: { durationMs: 500 },
            },
          },
        },
        inputs: [calling('err', 0, 'files__broken', {}), calling('late', 0, 'files__slow', {})],
      }),
    );
    expect(toolCall(report, 'err')).toMatchObject({ ok: false, result: 'the disk is full' });
    const late = toolCall(report, 'late');
    expect(late).toMatchObject({ ok: false, result: 'files__slow timed out after 100 ms' });
    expect(Number(late.end) - Number(late.start)).toBe(100);
  });

  it('a server that never comes back leaves the list for good; a later listing is offered only while it is up', async () => {
    const { events, report } = await run(
      doc({
        mcpServers: {
          files: {
            tools: { read: { durationMs: 10 }, late: { durationMs: 10, listedAt: 50 } },
            down: [{ at: 200 }],
          },
        },
        inputs: [calling('before', 0, 'files__read', {}), calling('after', 300, 'files__late', {})],
      }),
    );
    const sets = events.filter((e) => e.type === 'tools.set').map((e) => [e.t, e.type === 'tools.set' ? e.tools : []]);
    expect(sets).toEqual([
      [50, ['files__read', 'files__late']],
      [200, []],
    ]);
    expect(toolCall(report, 'before')).toMatchObject({ ok: true, result: 'read ok' });
    expect(toolCall(report, 'after')).toMatchObject({ ok: false, result: 'unknown tool files__late' });
  });

  it('is deterministic: the same seed gives the same hash, with and without tie shuffling', async () => {
    const json = doc({
      mcpServers: { files: server({ down: [{ at: 15, backAfterMs: 30 }] }) },
      inputs: [0, 5, 10, 60].map((at, i) => calling(`c${i}`, at, 'files__read', { path: `/f${i}` })),
    });
    const hash = async (shuffleTies: boolean): Promise<string> => {
      const outcome = await runScenario(ok(json), { shuffleTies });
      if (outcome.kind !== 'report') throw new Error('unusable');
      return outcome.report.traceHash;
    };
    expect(await hash(false)).toBe(await hash(false));
    expect(await hash(true)).toBe(await hash(true));
  });
});
