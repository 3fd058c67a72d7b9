/**
 * What a parent asks for when it creates a child (docs/spec.md §10.2): the `resident_agents create` action,
 * a scenario's `residents`, a serve config's `residents`. Validation happens in the tree's skeleton,
 * before anything is created, so a refused creation leaves nothing half-made.
 */
import type { ChannelDisposition, ResidualPolicy } from './dispositions.ts';

export interface ChildSpec {
  readonly id: string;
  /** A kind the kernel knows (default "resident"). */
  readonly kind?: string;
  /** Inputchs the child takes over; each must be registered and unassigned or the parent's. */
  readonly inputChs?: readonly string[];
  /** Output grant, narrowed from the parent's; absent or empty = the parent's whole grant. */
  readonly allowedOutputs?: readonly string[];
  /** Runner tools the child may call, a subset of the parent's; absent = all of them. */
  readonly tools?: readonly string[];
  /** Put on top of the inherited system prompt, and queued as the child's first input. */
  readonly taskPrompt?: string;
  /** The child's context window (else the kernel's). */
  readonly contextWindowTokens?: number;
  /** Queued-FIFO bound of the child (else the kernel's `maxQueue`). */
  readonly capacity?: number;
}

/** How a destroy or reclaim disposes of the child's work and channels; absent fields take the kind's defaults. */
export interface Disposal {
  readonly residual?: ResidualPolicy;
  readonly channels?: ChannelDisposition;
}

/** Child ids: the scenario id rule, so an id is a safe directory and channel name. */
export const CHILD_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/** The inbound channel a child's messages reach its parent on (docs/spec.md §10.2). */
export function inboundChannel(child: string): string {
  return `child/${child}`;
}

/** The source of the tasks a parent's control plane creates on its child (docs/spec.md §5). */
export function parentSource(parent: string): string {
  return `parent/${parent}`;
}
