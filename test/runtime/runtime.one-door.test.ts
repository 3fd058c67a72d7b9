import { describe, expect, it } from 'vitest';
import type { KernelInput } from '../../src/kernel/index.ts';
import { memoryPorts } from '../../src/memory/parsers.ts';
import { LazyGraphStore } from '../../src/memory/lazy-store.ts';
import { runScenario, scenarioKernelConfig } from '../../src/sim/simulation.ts';
import { TraceHasher } from '../../src/trace-file/index.ts';
import { loadScenario, listScenarioFiles } from '../../scenarios/harness.ts';
import { KernelWorld } from '../support/kernel-world.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * ARCHITECTURE "One door": every input that changes kernel state passes the Runtime's door, so the
 * inputs recorded there, fed to a fresh kernel on their recorded times, reproduce the trace exactly.
 * Scenarios with channel registrations, runtime channel events, afterTerminal inputs, stops and
 * interrupts exercise every kind of input.
 */
const SCENARIOS = [
  's23-plugin-reload-keeps-allocation',
  'tool-calls-never-started',
  'e5-nested-to-the-bound',
  'p11-builtin-stop-button',
  'x1-reply-isolation',
  'e4-priority-stress',
];

describe('the one door (inputs recorded at the Runtime replay the trace)', () => {
  for (const name of SCENARIOS) {
    it(`${name}: replaying the door's inputs gives the same trace hash`, async () => {
      const file = listScenarioFiles().find((f) => f.name === name);
      if (file === undefined) throw new Error(`no scenario ${name}`);
      const scenario = loadScenario(file);
      const journal: { input: KernelInput; nowMs: number }[] = [];
      const out = await runScenario(scenario, { onInput: (input, nowMs) => journal.push({ input, nowMs }) });
      if (out.kind !== 'report') throw new Error('unusable');
      expect(out.report.ok).toBe(true);
      const kinds = new Set(journal.map((j) => j.input.type));
      expect(kinds.has('submit')).toBe(true);

      const dir = mkdtempSync(join(tmpdir(), 'homeagent-door-'));
      const store = new LazyGraphStore(() => join(dir, 'main.sqlite'), { synchronous: 'normal' });
      try {
        const hasher = new TraceHasher({});
        const world = new KernelWorld(scenarioKernelConfig(scenario), {
          defaults: false,
          sink: hasher,
          memory: memoryPorts(store),
        });
        for (const { input, nowMs } of journal) world.at(nowMs).feed(input);
        hasher.close();
        expect(hasher.digest()).toBe(out.report.traceHash);
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('records channel controls, submit.after and the stop as door inputs', async () => {
    const file = listScenarioFiles().find((f) => f.name === 's23-plugin-reload-keeps-allocation');
    const withAfter = listScenarioFiles().find((f) => f.name === 'tool-calls-never-started');
    if (file === undefined || withAfter === undefined) throw new Error('scenarios missing');
    const types: string[] = [];
    await runScenario(loadScenario(file), { onInput: (input) => types.push(input.type) });
    await runScenario(loadScenario(withAfter), { onInput: (input) => types.push(input.type) });
    for (const t of [
      'channel.register',
      'channel.unregister',
      'submit.after',
      'stop',
      'submit',
      'model.done',
      'tool.done',
    ]) {
      expect(types, t).toContain(t);
    }
  });
});
