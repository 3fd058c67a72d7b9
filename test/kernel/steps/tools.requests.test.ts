import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/kernel/ports/provider.ts';
import { PLACEHOLDER_CONTINUE } from './placeholders.ts';
import { KernelWorld, SYSTEM_PROMPT, systemMsg, userMsg } from '../../support/kernel-world.ts';

/**
 * A tool turn used to copy the whole conversation twice (placeholder removal, then the request),
 * so its cost grew with the turns before it. The request is now a snapshot of the task's messages:
 * these are its observable properties. The speed itself is measured in bench/tool-turns.bench.ts.
 */
describe('issue-7 item 9: a tool turn costs the same at any depth (requests are snapshots, not copies)', () => {
  function threeTurns(): KernelWorld {
    const h = new KernelWorld({ maxToolTurns: 0 });
    h.queued('q1', 'loop');
    for (let turn = 1; turn <= 3; turn++) {
      h.answer('q1', `turn ${turn}`, [{ name: 'write', id: `c${turn}` }]);
      h.toolResult('q1', `r${turn}`);
    }
    return h;
  }

  it('each request is a read-only array: a provider cannot change what the kernel or another reader sees', () => {
    const h = threeTurns();
    const requests = h.requests('q1');
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(Array.isArray(r.messages)).toBe(true);
      expect(() => (r.messages as Message[]).push(userMsg('injected'))).toThrow(TypeError);
    }
    expect(h.modelCall('q1').request.messages.some((m) => m.content === 'injected')).toBe(false);
  });

  it('a request keeps the conversation as it was when sent, while later turns append to it', () => {
    const requests = threeTurns().requests('q1');
    expect(requests[0]?.messages).toEqual([systemMsg(SYSTEM_PROMPT), userMsg('loop')]);
    expect(requests.map((r) => r.messages.length)).toEqual([2, 5, 7, 9]);
    expect(requests[1]?.messages.map((m) => m.content)).toEqual([
      SYSTEM_PROMPT,
      'loop',
      'turn 1',
      'r1',
      PLACEHOLDER_CONTINUE,
    ]);
    expect(requests[3]?.messages.map((m) => m.content)).toEqual([
      SYSTEM_PROMPT,
      'loop',
      'turn 1',
      'r1',
      'turn 2',
      'r2',
      'turn 3',
      'r3',
      PLACEHOLDER_CONTINUE,
    ]);
  });
});
