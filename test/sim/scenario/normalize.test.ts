/**
 * Normalization of a scenario file (docs/spec.md §12.2): every optional value the file gives is carried into
 * the Scenario under its own name, and nothing is added that the file left out. One document with
 * every optional field, compared whole, so that a value dropped or renamed anywhere shows.
 */
import { describe, expect, it } from 'vitest';
import { doc, ok } from './helpers.ts';

describe('scenario normalization: every optional value given', () => {
  it('keeps description, kernel overrides, resident grants and event details as written', () => {
    // Sections that have no defaults to fill in: the Scenario holds them exactly as the file writes them.
    const written = {
      kernel: {
        maxQueue: 4,
        cooldownMs: 5,
        dedupWindowMs: 6,
        maxToolTurns: 7,
        contextWindowTokens: 800,
        consolidateEveryTurns: 9,
        modelTimeoutMs: 10,
        parentMessage: 'suspend',
        offload: { enabled: false, busyAfterMs: 11, minPending: 12, maxHelpers: 13 },
      },
      channels: [{ name: 'qq/support', plugin: 'qq', owner: '', output: 'qq' }],
      outputs: [{ name: 'qq', caps: ['text'] }],
      residents: [
        {
          id: 'w',
          kind: 'resident',
          inputChs: ['qq/support'],
          allowedOutputs: ['qq'],
          tools: ['fetch'],
          taskPrompt: 'watch',
          contextWindowTokens: 500,
        },
      ],
      events: [
        { at: 1, registerChannel: { name: 'qq/sales', plugin: 'qq', owner: 'w' } },
        { at: 2, unregisterChannel: 'qq/sales', stopAgent: 'w' },
        { at: 3, destroy: { id: 'w', residual: 'keep', channels: 'handback' } },
      ],
    };
    const s = ok(doc({ description: 'all the optional fields', tools: { fetch: { durationMs: 1 } }, ...written }));
    expect(s.description).toBe('all the optional fields');
    expect({
      kernel: s.kernel,
      channels: s.channels,
      outputs: s.outputs,
      residents: s.residents,
      events: s.events,
    }).toStrictEqual(written);
  });

  it('keeps every expectation as written; only task field values become equals or range', () => {
    const written = {
      allTerminal: false,
      invariants: false,
      terminal: { a: 'done' },
      replyContains: { b: 'ok' },
      maxStackDepth: 2,
      suspendOrder: ['a'],
      resumeOrder: ['a'],
      finishOrder: ['b', 'a'],
      counters: { root: { preemptsByLevel: { '2': 1, '3': 0 } } },
      countersMin: { root: { suspended: 1 } },
      equal: [['root.suspended', 'root.resumed']],
      outputs: { qq: [{ task: 'a', text: 'hi' }, {}] },
      agents: { w: { state: 'running', tableSize: 2 }, root: {} },
      violations: ['DRAIN'],
      exitCode: 2,
    };
    const inputs = [
      { id: 'a', class: 'queued' },
      { id: 'b', class: 'interrupt', level: 'L2' },
    ];
    const tasks = { a: { preemptCount: { max: 3 }, modelCalls: { min: 1, max: 2 } } };
    const s = ok(doc({ residents: [{ id: 'w' }], inputs, expect: { ...written, tasks } }));
    expect(s.expect).toStrictEqual({
      ...written,
      tasks: { a: { preemptCount: { kind: 'range', max: 3 }, modelCalls: { kind: 'range', min: 1, max: 2 } } },
    });
  });
});
