/**
 * An agent's role in the tree, given when the agent is made. Where the root and a child differ, the
 * code asks the role's policy (which sources are privileged, whether root overflow applies) rather
 * than testing an is-root flag, so a child kind is a new role, not a new branch in every step.
 */
import type { KernelConfig } from '../config.ts';

export interface AgentRole {
  /** The kind the dumps show. Only the root exists yet; child kinds (resident, rt) join with children. */
  readonly kind: 'root';
  /**
   * Plugins whose sources keep their declared level (SPEC §5): a source whose first segment names one
   * of them is kernel-level, every other source is clamped. The root's are the configured built-in
   * plugins.
   */
  readonly privilegedPlugins: readonly string[];
  /**
   * Root overflow (SPEC §3.9): a context at 1.25 × the window, or an upstream `context_full`, prunes
   * the oldest events, raises a kernel L4 and sends the task back to Prepare. A child reports a full
   * context to its parent instead (SPEC §10.5).
   */
  readonly prunesOnOverflow: boolean;
}

export function rootRole(config: Pick<KernelConfig, 'builtinPlugins'>): AgentRole {
  return { kind: 'root', privilegedPlugins: config.builtinPlugins, prunesOnOverflow: true };
}
