/**
 * What happens to a child's pending work and channels when it is destroyed or reclaimed (SPEC §10.1,
 * §10.2a, C3–C5). The residual policy decides for the external inputs still waiting on the child
 * (keep: re-queued on the parent with their responders; drop: each ends skipped with
 * `residual_dropped_by_parent`). The channel disposition decides for the inputchs the child owned:
 * release hands them to the root (owner ""), handback to the parent, keep leaves them dangling so
 * routing falls back, with a trace event, to whichever agent receives their input.
 */
import { assertNever } from '../assert.ts';
import type { ChannelRegistry } from '../channels/registry.ts';

export type ResidualPolicy = 'keep' | 'drop';
export type ChannelDisposition = 'release' | 'keep' | 'handback';

// The lists are built on each call, not held in module constants: mutation testing switches a mutant
// on only for code that runs after the module is imported.
export function residualPolicies(): readonly ResidualPolicy[] {
  return ['keep', 'drop'];
}

export function channelDispositions(): readonly ChannelDisposition[] {
  return ['release', 'keep', 'handback'];
}

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
      // Stryker disable next-line ConditionalExpression: unreachable, the type is exhausted and every outside door (the tool, scenario, journal) checks the name
      default:
        // Stryker disable next-line StringLiteral: unreachable, as above
        assertNever(disposition, 'channel disposition');
    }
  }
  return owned;
}
