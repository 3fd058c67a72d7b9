/**
 * The log lines of a server's life (docs/deployment.md "Logs"): `serve.start` names where it listens and
 * what it runs with, `serve.shutdown` why it stops, and `serve.stopped` the trace hash and event count it
 * ends with — the same numbers the shutdown returns — and the violations seen.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_MODEL_LABEL } from '../../src/models/index.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, serveLines, startTestServer } from './support.ts';

describe('serve: the log lines of its start and stop', () => {
  it('start, shutdown and stopped, each with its fields', async () => {
    const s = await startTestServer();
    expect(await (await postJson(`${s.url}/v1/inputs`, { text: 'hello' })).json()).toMatchObject({ terminal: 'done' });
    const result = await s.stop();
    expect(serveLines(s.logs, 'start')).toEqual([
      expect.objectContaining({
        message: `listening on ${s.url}`,
        model: DEMO_MODEL_LABEL,
        dataDir: `${s.dir}/data`,
        journal: null,
        trace: null,
        version: HOMEAGENT_VERSION,
      }),
    ]);
    expect(serveLines(s.logs, 'start')[0]).not.toHaveProperty('otlp');
    expect(serveLines(s.logs, 'shutdown').map((l) => l.message)).toEqual(['test over']);
    expect(serveLines(s.logs, 'stopped')).toEqual([
      expect.objectContaining({ message: `trace ${result.traceHash} (${result.events} events)`, violations: 0 }),
    ]);
  });

  it('a provider given by the library is named as such', async () => {
    const s = await startTestServer({}, new ScriptedProvider());
    await s.stop();
    expect(s.server.modelLabel).toBe('injected provider');
    expect(serveLines(s.logs, 'start')).toEqual([expect.objectContaining({ model: 'injected provider' })]);
  });
});
