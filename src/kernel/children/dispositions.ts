/**
 * What happens to a child's pending work and channels when it is destroyed or reclaimed (docs/spec.md §10.1,
 * §10.2a, C3–C5). The residual policy decides for the external inputs still waiting on the child
 * (keep: re-queued on the parent with their responders; drop: each ends skipped with
 * `residual_dropped_by_parent`). The channel disposition decides for the inputchs the child owned:
 * release hands them to the root (owner ""), handback to the parent, keep leaves them dangling so
 * routing falls back, with a trace event, to whichever agent receives their input.
 */
import { assertNever } from '../assert.ts';
import type { ChannelRegistry } from '../channels/registry.ts';

export const RESIDUAL_POLICIES = Object.freeze(['keep', 'drop'] as const);
export type ResidualPolicy = (typeof RESIDUAL_POLICIES)[number];

export const CHANNEL_DISPOSITIONS = Object.freeze(['release', 'keep', 'handback'] as const);
export type ChannelDisposition = (typeof CHANNEL_DISPOSITIONS)[number];

/** Applies a disposition to every inputch `child` owns; returns their names, in registry order. */
export function disposeChannels(
  registry: ChannelRegistry,
  child: string,
  parent: string,
  disposition: ChannelDisposition,
): string[] {
  const owned = registry.listByOwner(child).map((c) => c.name);
  for (const name of owned) {
    switch (disposition) {
      case 'release':
        registry.release(name);
        break;
      case 'handback':
        // No capacity given: the registry keeps the channel's own.
        registry.assign(name, parent);
        break;
      case 'keep':
        break;
      // Stryker disable next-line ConditionalExpression: unreachable, the type is exhausted and every door checks the name
      default:
        // Stryker disable next-line StringLiteral: unreachable, as above
        assertNever(disposition, 'channel disposition');
    }
  }
  return owned;
}
