import { describe, expect, it } from 'vitest';
import { ConversationContext } from '../../../src/kernel/agent/context.ts';
import type { ContextEvent } from '../../../src/kernel/agent/dump-types.ts';
import { assistantMsg, systemMsg, userMsg } from '../../support/kernel-world.ts';

/** Turn n: an ASCII input and response of 10 tokens together (one token per ASCII character). */
function turn(n: number): ContextEvent {
  return { kind: 'turn', task: `q${n}`, source: 'user', input: `ask ${n}`, response: `reply ${n}` };
}

const TOKENS_PER_TURN = 'ask 1'.length + 'reply 1'.length;

function contextOf(turns: number): ConversationContext {
  const context = new ConversationContext();
  for (let n = 1; n <= turns; n += 1) context.commit(turn(n));
  return context;
}

function turnMessages(n: number) {
  return [userMsg(`ask ${n}`), assistantMsg(`reply ${n}`)];
}

describe('root overflow pruning (docs/spec.md §3.9)', () => {
  it('drops the oldest events only until the accumulated tokens are at most the target', () => {
    const context = contextOf(5);
    // Two dropped leave exactly the target: the third oldest stays.
    expect(context.pruneOldest(3 * TOKENS_PER_TURN, 0)).toBe(2);
    expect(context.accumulatedTokens()).toBe(3 * TOKENS_PER_TURN);
    expect(context.timeline()).toEqual([...turnMessages(3), ...turnMessages(4), ...turnMessages(5)]);
  });

  it('never drops the keepRecent newest, even when the target cannot be reached', () => {
    const context = contextOf(5);
    expect(context.pruneOldest(0, 3)).toBe(2);
    expect(context.size()).toBe(3);
    expect(context.committed().map((e) => e.task)).toEqual(['q3', 'q4', 'q5']);
    expect(context.timeline()).toEqual([...turnMessages(3), ...turnMessages(4), ...turnMessages(5)]);
  });

  it('with nothing to drop, changes nothing', () => {
    const context = contextOf(2);
    expect(context.pruneOldest(2 * TOKENS_PER_TURN, 0)).toBe(0);
    expect(context.size()).toBe(2);
    expect(context.timeline()).toEqual([...turnMessages(1), ...turnMessages(2)]);
  });
});

describe('compress replaces the oldest events (docs/spec.md §10.5)', () => {
  it('the summary becomes one system message ahead of the kept events, counted as input "" and the summary', () => {
    const context = contextOf(3);
    context.replaceOldest(2, 'they talked', 'c1:1');
    expect(context.committed()).toEqual([
      { kind: 'summary', task: 'c1:1', source: 'kernel', input: '', response: 'they talked' },
      turn(3),
    ]);
    // A summary is not a turn: no user message with an empty input, no assistant answer.
    expect(context.timeline()).toEqual([systemMsg('summary of earlier conversation: they talked'), ...turnMessages(3)]);
    expect(context.accumulatedTokens()).toBe('they talked'.length + TOKENS_PER_TURN);
  });

  it('without a summary (the summarising call failed) the oldest events are just dropped', () => {
    const context = contextOf(3);
    context.replaceOldest(2, null, 'c1:1');
    expect(context.committed()).toEqual([turn(3)]);
    expect(context.timeline()).toEqual(turnMessages(3));
    expect(context.accumulatedTokens()).toBe(TOKENS_PER_TURN);
  });
});
