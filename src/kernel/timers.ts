/**
 * The kernel's timers as data (quinn's `Timer` enum). Theory of operation:
 *
 * The kernel never holds a clock: it asks the Runtime for a timer with a `timer.set` command, cancels
 * it with `timer.clear`, and learns that it fired from a `timer.fired` fact. Inside the kernel a timer
 * is a `TimerKey`, one variant per purpose; on the wire it is the string `encodeTimerKey` makes, and
 * `decodeTimerKey` is the only reader of that string. The encodings are frozen: timer ids appear in
 * commands, journals and traces, so changing one changes every golden hash.
 *
 * Adding a timer (an offload check, a child's timers) is one variant below and one row of
 * `TIMER_PREFIXES`; the compiler then finds every switch that must handle it.
 */
import { assertNever } from './assert.ts';

export type TimerKey =
  /** The end of the running task's cooldown on `agent`: a deferred interrupt may arm then (docs/spec.md §2.3 step 4). */
  | { readonly kind: 'cooldown'; readonly agent: string }
  /** The deadline of model call `callId` (`modelTimeoutMs`): if it fires first, the call fails (docs/spec.md §3.2). */
  | { readonly kind: 'model-timeout'; readonly callId: string }
  /** The offload triage check of `agent` (docs/spec.md §10.7), every max(1 000, busyAfterMs / 5) ms while it is busy. */
  | { readonly kind: 'offload'; readonly agent: string };

export type TimerKind = TimerKey['kind'];

/**
 * The wire prefix of each kind, followed by the owner's id (an agent id, a call id). No prefix is a
 * prefix of another, so a wire id decodes to at most one kind.
 */
const TIMER_PREFIXES: { readonly [K in TimerKind]: string } = Object.freeze({
  cooldown: 'cooldown:',
  'model-timeout': 'timeout:',
  offload: 'offload:',
});

export function encodeTimerKey(key: TimerKey): string {
  switch (key.kind) {
    case 'cooldown':
      return TIMER_PREFIXES.cooldown + key.agent;
    case 'model-timeout':
      return TIMER_PREFIXES['model-timeout'] + key.callId;
    case 'offload':
      return TIMER_PREFIXES.offload + key.agent;
    default:
      return assertNever(key, 'timer key');
  }
}

/**
 * The key of a wire timer id, or null for an id the kernel never issues: a `timer.fired` fact with
 * such an id names nothing that can fire, so it is ignored like a timer that was already cleared.
 */
export function decodeTimerKey(id: string): TimerKey | null {
  if (id.startsWith(TIMER_PREFIXES.cooldown))
    return { kind: 'cooldown', agent: id.slice(TIMER_PREFIXES.cooldown.length) };
  const timeout = TIMER_PREFIXES['model-timeout'];
  if (id.startsWith(timeout)) return { kind: 'model-timeout', callId: id.slice(timeout.length) };
  if (id.startsWith(TIMER_PREFIXES.offload)) return { kind: 'offload', agent: id.slice(TIMER_PREFIXES.offload.length) };
  return null;
}
