/**
 * docs/spec.md §13.2: a durable server that restarts keeps the tree it had, and only what the
 * configuration adds since is made — a new channel registered, a new resident created — while the
 * channels and residents it already has are left as they are (registering or creating them again would
 * change the trace, or be refused). The restart input names tools to run again only when there are
 * some, and a --trace file gets one header per run. A segment cut short by a crash is recovered up to
 * the torn line, and the log says so.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServeSettings } from '../../src/server/settings.ts';
import { openFilesUnder } from '../support/open-files.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, serveLines, startTestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-restart-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GARDENER = { id: 'gardener', taskPrompt: 'You look after the garden.' };
const COOK = { id: 'cook', taskPrompt: 'You plan the meals.' };

interface InputLine {
  readonly type: string;
  readonly input?: { readonly type: string; readonly [field: string]: unknown };
}

/** What a segment journaled of the tree's making (not the tasks' inputs and facts), in order. */
const MAKING = new Set(['restart', 'tools.set', 'channel.register', 'child.create']);
function inputsOf(path: string): NonNullable<InputLine['input']>[] {
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as InputLine)
    .flatMap((line) =>
      line.type === 'input' && line.input !== undefined && MAKING.has(line.input.type) ? [line.input] : [],
    );
}

const segment = (dataDir: string, n: number): string =>
  join(dataDir, 'journal', `segment-${String(n).padStart(6, '0')}.jsonl`);

async function run(dataDir: string, settings: Partial<ServeSettings>): Promise<string[]> {
  const s = await startTestServer({ dataDir, ...settings }, new ScriptedProvider());
  try {
    const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { agents: { id: string }[] };
    expect(await (await postJson(`${s.url}/v1/inputs`, { text: 'hello' })).json()).toMatchObject({
      terminal: 'done',
    });
    return status.agents.map((a) => a.id);
  } finally {
    await s.stop();
  }
}

describe('serve: a restart keeps its tree and adds only what the configuration added', () => {
  it('registers only the new channel and creates only the new resident; the restart names no tools to rerun', async () => {
    const dataDir = join(root, 'added');
    const first = await run(dataDir, { channels: [{ name: 'mail' }], residents: [GARDENER] });
    expect(first).toEqual(['root', 'gardener']);
    expect(inputsOf(segment(dataDir, 1)).map((i) => i.type)).toEqual(['channel.register', 'child.create']);

    const second = await run(dataDir, {
      channels: [{ name: 'mail' }, { name: 'sms' }],
      residents: [GARDENER, COOK],
    });
    expect(second).toEqual(['root', 'gardener', 'cook']);
    const inputs = inputsOf(segment(dataDir, 2));
    expect(inputs.map((i) => i.type)).toEqual(['restart', 'channel.register', 'child.create']);
    expect(inputs[0]).toEqual({ type: 'restart' });
    expect(inputs[1]).toMatchObject({ channel: { name: 'sms' } });
    expect(inputs[2]).toMatchObject({ spec: { id: 'cook' } });
  });

  it('a durable restart with --trace appends one trace header for the new run, after the recovery', async () => {
    const dataDir = join(root, 'traced');
    const trace = join(root, 'traced.jsonl');
    await run(dataDir, { trace });
    await run(dataDir, { trace });
    const headers = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"trace.header"'));
    expect(headers).toHaveLength(2);
  });

  it('a segment torn by a crash is recovered up to the torn line, and the log says which line was dropped', async () => {
    const dataDir = join(root, 'torn');
    await run(dataDir, {});
    const torn = '{"type":"input","nowMs":1';
    appendFileSync(segment(dataDir, 1), torn);
    const lines = readFileSync(segment(dataDir, 1), 'utf8').split('\n').length;
    const s = await startTestServer({ dataDir }, new ScriptedProvider());
    try {
      expect(serveLines(s.logs, 'journal').map((l) => l.message)).toContain(
        `segment-000001.jsonl line ${lines} was torn (${torn.length} bytes: the process died while appending it) and is dropped`,
      );
      expect(s.server.recovered).toMatch(/^recovered [1-9][0-9]* events from /);
      // The cut segment is let go: the only one held is this run's.
      expect(openFilesUnder(join(dataDir, 'journal'))).toEqual([segment(dataDir, 2)]);
    } finally {
      await s.stop();
    }
    expect(readFileSync(segment(dataDir, 1), 'utf8').endsWith('\n')).toBe(true);
  });
});
