/**
 * An agent's role in the tree, given when the agent is made. Where the root and a child differ, the
 * code asks the role's policy (which sources are privileged, whether root overflow applies, where
 * kernel events go) rather than testing an is-root flag, so a child kind is a new role, not a new
 * branch in every step.
 */
import type { KernelConfig } from '../config.ts';
import type { AgentKind } from './dump-types.ts';

export interface AgentRole {
  /** The kind the dumps show: the root, or the kind of child (docs/spec.md §10.1). */
  readonly kind: AgentKind;
  /**
   * Plugins whose sources keep their declared level (docs/spec.md §5): a source whose first segment names one
   * of them is kernel-level, every other source is clamped. The root's are the configured built-in
   * plugins; a child has none — only its parent's control plane raises L4 there, as kernel tasks.
   */
  readonly privilegedPlugins: readonly string[];
  /**
   * Root overflow (docs/spec.md §3.9): a context at 1.25 × the window, or an upstream `context_full`, prunes
   * the oldest events, raises a kernel L4 and sends the task back to Prepare. A child reports a full
   * context to its parent instead (docs/spec.md §10.5).
   */
  readonly prunesOnOverflow: boolean;
  /**
   * Where this agent's own kernel events (a panic, a full context) are raised: on itself (the root),
   * or on its parent as L4 from `child/<id>` (docs/spec.md §5, S20).
   */
  readonly kernelEventsGo: 'self' | 'parent';
}

export function rootRole(config: Pick<KernelConfig, 'builtinPlugins'>): AgentRole {
  return { kind: 'root', privilegedPlugins: config.builtinPlugins, prunesOnOverflow: true, kernelEventsGo: 'self' };
}

/** A child of either kind: no privileged source, context-full reported upward, kernel events too. */
export function childRole(kind: string): AgentRole {
  return { kind, privilegedPlugins: [], prunesOnOverflow: false, kernelEventsGo: 'parent' };
}
