/**
 * `sim run --otlp FILE` through the real bin (docs/spec.md §12.1, §13.4): the spans of a simulated run as
 * OTLP JSON with virtual times; the same scenario and seed write the same bytes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { runBin, SPAWN_TIMEOUT_MS } from '../cli/run-bin.ts';
import { resourceOf, spansOf, taskTree } from './otlp-read.ts';

const PREEMPT = 'scenarios/p1-higher-preempts.json';
const NS_PER_MS = 1_000_000n;

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-otlp-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('sim run --otlp', () => {
  it(
    'writes the spans of a preempted and resumed task, its re-sent model call a second child, with virtual times',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const file = join(tmp, 'p1.json');
      const r = await runBin(['sim', 'run', PREEMPT, '--otlp', file]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const json = readFileSync(file, 'utf8');
      expect(resourceOf(json)).toMatchObject({
        'service.name': 'homeagent',
        'homeagent.run': 'sim',
        'homeagent.scenario': 'p1-higher-preempts',
        'homeagent.seed': 31,
      });
      const spans = spansOf(json);
      const low = taskTree(spans, 'low');
      const high = taskTree(spans, 'high');
      expect(low.task.name).toBe('task interrupt');
      expect(low.task.parentSpanId).toBeUndefined();
      expect(low.task.attrs).toMatchObject({
        'homeagent.agent': 'root',
        'homeagent.task.class': 'interrupt',
        'homeagent.task.level': 1,
        'homeagent.terminal': 'done',
      });
      expect(typeof low.task.attrs['homeagent.trace.seq']).toBe('number');
      // Virtual time: the run starts at 0, the preemption happens at 30 ms.
      expect(low.task.startNs).toBe(0n);
      const suspend = low.task.events.find((e) => e.name === 'task.suspend');
      const resume = low.task.events.find((e) => e.name === 'task.resume');
      expect(suspend?.timeNs).toBe(30n * NS_PER_MS);
      expect(suspend?.attrs).toMatchObject({ 'homeagent.interrupt.task': 'high', 'homeagent.step': 'Model' });
      expect(resume?.attrs).toMatchObject({ 'homeagent.interrupt.task': 'high' });
      expect(typeof resume?.attrs['homeagent.trace.seq']).toBe('number');
      expect(low.task.events.some((e) => e.name === 'preempt.armed')).toBe(true);

      // The model call cut by the preemption and the one re-sent after the resume, both children.
      expect(low.calls.map((c) => [c.name, c.attrs['homeagent.outcome']])).toEqual([
        ['chat fake', 'cancelled'],
        ['chat fake', 'done'],
      ]);
      const [cut, resent] = low.calls;
      expect(cut?.attrs).toMatchObject({ 'gen_ai.operation.name': 'chat', 'homeagent.reason': 'preempt' });
      expect(cut?.attrs['gen_ai.usage.input_tokens']).toBeUndefined();
      expect(resent?.attrs).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'homeagent.sim',
        'gen_ai.request.model': 'fake',
      });
      expect(resent?.attrs['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(resent?.attrs['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(resent?.kind).toBe(3); // CLIENT
      for (const call of low.calls) expect(call.traceId).toBe(low.task.traceId);
      // The interrupt is a trace of its own.
      expect(high.task.traceId).not.toBe(low.task.traceId);
      expect(high.task.startNs).toBe(30n * NS_PER_MS);
    },
  );

  it(
    'the same scenario and seed write the same bytes; another seed other ids',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [a, b, c] = [join(tmp, 'a.json'), join(tmp, 'b.json'), join(tmp, 'c.json')];
      const runs = await Promise.all([
        runBin(['sim', 'run', PREEMPT, '--otlp', a, '--seed', '5']),
        runBin(['sim', 'run', PREEMPT, '--otlp', b, '--seed', '5']),
        runBin(['sim', 'run', PREEMPT, '--otlp', c, '--seed', '6']),
      ]);
      for (const r of runs) expect(r.code).toBe(0);
      expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
      const idsA = spansOf(readFileSync(a, 'utf8')).map((s) => s.spanId);
      const idsC = spansOf(readFileSync(c, 'utf8')).map((s) => s.spanId);
      expect(idsA.filter((id) => idsC.includes(id))).toEqual([]);
    },
  );

  it(
    'an unwritable --otlp target is unusable input (exit 2), and nothing runs',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const r = await runBin(['sim', 'run', PREEMPT, '--otlp', tmp, '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain('--otlp');
      expect(r.stdout).toContain('is a directory');
    },
  );
});
