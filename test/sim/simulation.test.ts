import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function traceOf(json: unknown): Promise<{ type: string; t: number }[]> {
  const parsed = parseScenario(json);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-simtest-'));
  dirs.push(dir);
  const tracePath = join(dir, 'trace.jsonl');
  const out = await runScenario(parsed.scenario, { tracePath });
  if (out.kind !== 'report') throw new Error(JSON.stringify(out.problems));
  expect(out.report.ok).toBe(true);
  return readFileSync(tracePath, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as { type: string; t: number });
}

describe('simulator agenda (docs/spec.md §12.2.1)', () => {
  it('runs an event at its own time even when the next input is later (regression)', async () => {
    const trace = await traceOf({
      version: 1,
      name: 'event-delay',
      events: [{ at: 1000, registerChannel: { name: 'qq/help', plugin: 'qq' } }],
      inputs: [{ id: 'late', class: 'queued', text: 'hi', at: 5000 }],
    });
    expect(trace.find((e) => e.type === 'channel.register')?.t).toBe(1000);
    expect(trace.find((e) => e.type === 'task.submitted')?.t).toBe(5000);
  });

  it('runs events before inputs due at the same instant', async () => {
    const trace = await traceOf({
      version: 1,
      name: 'event-order',
      events: [{ at: 200, registerChannel: { name: 'qq/help', plugin: 'qq' } }],
      inputs: [{ id: 'same', class: 'queued', text: 'hi', at: 200 }],
    });
    const types = trace.map((e) => e.type);
    expect(types.indexOf('channel.register')).toBeLessThan(types.indexOf('task.submitted'));
  });
});

describe('the default root stop (docs/spec.md §12.2 stopAt)', () => {
  it('stops the root when the last task ends, not when a cooldown timer that guards nothing would fire', async () => {
    const trace = await traceOf(
      JSON.parse(readFileSync(join(import.meta.dirname, '../../scenarios/cooldown-timer-cleared.json'), 'utf8')),
    );
    const stop = trace.find((e) => e.type === 'agent.stop');
    expect(stop?.t).toBe(350);
    expect(trace.at(-1)?.t).toBe(350);
  });

  it('waits for inputs still to come', async () => {
    const trace = await traceOf({
      version: 1,
      name: 'quiet-gap',
      inputs: [
        { id: 'q', class: 'queued', text: 'first', at: 0 },
        { id: 'later', class: 'queued', text: 'after a quiet gap', at: 3000 },
      ],
    });
    const stop = trace.find((e) => e.type === 'agent.stop');
    const lastTerminal = trace.filter((e) => e.type === 'task.terminal').at(-1);
    expect(lastTerminal?.t).toBeGreaterThanOrEqual(3000);
    expect(stop?.t).toBe(lastTerminal?.t);
  });

  it('does not wait for the late chunks of a cancelled call: they arrive after the stop and are discarded', async () => {
    const trace = await traceOf({
      version: 1,
      name: 'late-after-stop',
      model: { firstChunkMs: 100, chunkMs: 100, chunks: 5, cancelAware: false },
      inputs: [
        { id: 'q', class: 'queued', text: 'slow', at: 0 },
        { id: 's', class: 'interrupt', level: 'L3', stop: true, text: '', at: 150 },
      ],
      expect: { terminal: { q: 'cancelled' } },
    });
    const stopAt = trace.findIndex((e) => e.type === 'agent.stop');
    expect(trace[stopAt]?.t).toBe(150);
    expect(trace.slice(stopAt + 1).map((e) => e.type)).toContain('model.chunk.late');
    expect(trace.at(-1)?.t).toBe(500);
  });
});

describe('run limits (docs/spec.md §12.2 limits)', () => {
  it('LIMIT: a run that would pass limits.maxVirtualMs ends at once, naming the limit and the tasks still pending', async () => {
    const parsed = parseScenario({
      version: 1,
      name: 'slow-forever',
      kernel: { maxToolTurns: 0 },
      tools: { nap: { durationMs: 1000 } },
      limits: { maxVirtualMs: 10_000 },
      inputs: [
        { id: 'q', class: 'queued', text: 'forever', replies: [{ tools: [{ name: 'nap' }] }] },
        { id: 'late', class: 'queued', text: 'never reached', at: 50_000 },
      ],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const out = await runScenario(parsed.scenario);
    if (out.kind !== 'report') throw new Error('unusable');
    expect(out.exitCode).toBe(1);
    const limit = out.report.violations.filter((v) => v.invariant === 'LIMIT');
    expect(limit).toHaveLength(1);
    expect(limit[0]?.message).toContain('limits.maxVirtualMs 10000');
    expect(limit[0]?.message).toContain('1 task(s) still pending: q');
    expect(out.report.virtualMs).toBeLessThanOrEqual(10_000);
    expect(out.report.violations.map((v) => v.invariant)).toEqual(['LIMIT']);
    expect(out.report.tasks.q).toMatchObject({ terminal: 'skipped', reason: 'agent_stopped' });
  });
});
