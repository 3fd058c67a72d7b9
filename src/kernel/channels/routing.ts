/**
 * Routing by owner, before the kernel (docs/spec.md §8.2).
 *
 * An input names an inputch by its channel. The agent that received it handles it here when the
 * channel is not registered (plain names such as `cli` or `webui/panel` need no registration), when
 * it is unassigned, or when this agent owns it. An owner that is a live direct child gets the input
 * (same class, queued or interrupt). Every other owner — a stopped or destroyed child, the parent, a
 * sibling, a grandchild, an unknown id — falls back to this agent: input is never swallowed (S21).
 * The caller emits a `route.fallback` trace event for that case. Routing never throws: "unknown name
 * → clear error" is for registry calls and tool arguments, not for inputs.
 */
import type { ChannelRegistry } from './registry.ts';

export type RouteDecision =
  | { readonly kind: 'local' }
  | { readonly kind: 'child'; readonly agent: string }
  | { readonly kind: 'fallback'; readonly owner: string };

const LOCAL: RouteDecision = Object.freeze({ kind: 'local' });

export function routeInput(
  registry: ChannelRegistry,
  channel: string,
  self: string,
  liveChildren: ReadonlySet<string>,
): RouteDecision {
  const owner = registry.lookup(channel)?.owner ?? '';
  if (owner === '' || owner === self) return LOCAL;
  if (liveChildren.has(owner)) return { kind: 'child', agent: owner };
  return { kind: 'fallback', owner };
}
