/**
 * The conversation context of one agent: the committed events, in commit order. Tasks read it when
 * they build (or rebase) their request prefix and write it only when they finish (docs/spec.md §3.4–3.5, §3.9).
 */
import type { ContextEvent } from './dump-types.ts';
import type { Message } from '../ports/provider.ts';
import { tokens } from '../tokens.ts';
import type { ContextSnapshot } from '../snapshot/agent.ts';

export const INTERRUPT_MARK = '[interrupt message] ';

/** Root overflow (docs/spec.md §3.9): prune at 1.25 × window down to 0.8 × window, keeping the 10 newest. */
export const OVERFLOW_RATIO = 1.25;
export const OVERFLOW_TARGET_RATIO = 0.8;
export const OVERFLOW_KEEP_RECENT = 10;

export class ConversationContext {
  private readonly events: ContextEvent[] = [];
  private accumulated = 0;
  /**
   * The timeline as messages, kept in step with `events`: every request prefix is built from it, so
   * rebuilding it per model call would make a long run quadratic in allocations.
   */
  private messages: Message[] = [];

  commit(event: ContextEvent): number {
    this.events.push(event);
    this.accumulated += eventTokens(event);
    appendMessages(this.messages, event);
    return this.events.length;
  }

  /** Σ tokens(input) + tokens(response) over the committed events. */
  accumulatedTokens(): number {
    return this.accumulated;
  }

  size(): number {
    return this.events.length;
  }

  /** The committed events as model messages, oldest first. Shared and read-only: copy before editing. */
  timeline(): readonly Message[] {
    return this.messages;
  }

  /**
   * Drops the oldest events until the accumulated tokens are ≤ targetTokens, never touching the
   * `keepRecent` newest. Returns how many were dropped.
   */
  pruneOldest(targetTokens: number, keepRecent: number): number {
    let dropped = 0;
    while (this.accumulated > targetTokens && this.events.length - dropped > keepRecent) {
      this.accumulated -= eventTokens(this.events[dropped] as ContextEvent);
      dropped += 1;
    }
    // Rebuilt even when nothing was dropped (the same messages): an overflow is rare, and the
    // timeline is only ever copied, never held.
    this.events.splice(0, dropped);
    this.messages = [];
    for (const e of this.events) appendMessages(this.messages, e);
    return dropped;
  }

  /**
   * Compress (docs/spec.md §10.5): the `older` oldest events are replaced by one summary event (input "",
   * response = the summary), or just dropped when there is no summary (the summarising call failed).
   */
  replaceOldest(older: number, summary: string | null, task: string): void {
    const kept = this.events.slice(older);
    this.events.length = 0;
    if (summary !== null) this.events.push({ kind: 'summary', task, source: 'kernel', input: '', response: summary });
    this.events.push(...kept);
    this.accumulated = 0;
    this.messages = [];
    for (const e of this.events) {
      this.accumulated += eventTokens(e);
      appendMessages(this.messages, e);
    }
  }

  /** The committed events, oldest first, read-only: what a compress plans over. */
  committed(): readonly ContextEvent[] {
    return this.events;
  }

  /**
   * The messages of the `limit` most recent events that are not interrupt turns, oldest first: what a
   * consolidation reads (docs/spec.md §3.7: interrupt inputs are never sent to memory).
   */
  recentTurnMessages(limit: number): Message[] {
    const picked: ContextEvent[] = [];
    for (let i = this.events.length - 1; i >= 0 && picked.length < limit; i -= 1) {
      const e = this.events[i] as ContextEvent;
      if (e.kind !== 'interrupt') picked.push(e);
    }
    const messages: Message[] = [];
    for (let i = picked.length - 1; i >= 0; i -= 1) appendMessages(messages, picked[i] as ContextEvent);
    return messages;
  }

  snapshot(): ContextEvent[] {
    return this.events.map((e) => ({ ...e }));
  }

  /** The committed events and their token sum (docs/spec.md §13.2); the timeline is rebuilt from them. */
  snapshotState(): ContextSnapshot {
    return { events: this.snapshot(), accumulatedTokens: this.accumulated };
  }

  restoreState(s: ContextSnapshot): void {
    this.events.length = 0;
    this.messages = [];
    for (const e of s.events) {
      this.events.push({ ...e });
      appendMessages(this.messages, e);
    }
    this.accumulated = s.accumulatedTokens;
  }
}

function appendMessages(messages: Message[], e: ContextEvent): void {
  switch (e.kind) {
    case 'interrupt':
      messages.push({ role: 'system', content: INTERRUPT_MARK + e.input });
      break;
    case 'summary':
      messages.push({ role: 'system', content: `summary of earlier conversation: ${e.response}` });
      return;
    case 'turn':
    case 'failed':
      messages.push({ role: 'user', content: e.input });
      break;
  }
  messages.push({ role: 'assistant', content: e.response });
}

function eventTokens(e: ContextEvent): number {
  return tokens(e.input) + tokens(e.response);
}
