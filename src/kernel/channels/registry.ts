/**
 * The inputch registry and the output targets (docs/spec.md §8.1, §8.4).
 *
 * Theory of operation: one registry is shared by a root agent and all its children. An inputch is
 * the unit of routing and allocation: a plugin registers it, the parent assigns it to an agent
 * (owner), and routing (routing.ts) reads the owner to decide who handles an input. An empty owner
 * means "unassigned": the root, the kernel default, handles it.
 *
 * What this file owns:
 * - names are unique and never blank;
 * - a re-registration (plugin reload) never erases an allocation: owner, capacity and default output
 *   survive unless the new record names new ones (S23), because a plugin that reloads does not know
 *   which agent its channel was given to;
 * - an output target never outlives the inputch it is bound to;
 * - every record handed out is a frozen snapshot, so no caller can change the registry through one.
 *
 * Registry calls with bad input (blank names, unknown inputchs) throw `ChannelError`, an expected
 * outcome for the tool layer to turn into a tool error; they are not assertions. Listings are
 * sorted by name in code-unit order, so they do not depend on registration order.
 */
import { assert } from '../assert.ts';

export interface ChannelPolicy {
  /** Inputs of this channel are not written to memory. */
  readonly noMemory: boolean;
  /** The cleaner (plugin-side input filter) the channel uses, or null for none. */
  readonly cleaner: string | null;
  /** The context pruning policy, or null for the default (no pruning). */
  readonly contextPolicy: string | null;
}

export interface InputChannel {
  readonly name: string;
  /** The registering plugin; '' when unattributed. */
  readonly plugin: string;
  /** The agent the channel is assigned to; '' = unassigned, handled by the root. */
  readonly owner: string;
  /** Informational capacity hint; 0 = the kernel default. */
  readonly capacity: number;
  /** The default output channel replies go to; '' for none. Informational. */
  readonly output: string;
  readonly policy: ChannelPolicy;
}

export interface OutputTarget {
  readonly output: string;
  readonly agent: string;
  /** The target agent's inputch; '' = the inputch with the same name as the output. */
  readonly inputch: string;
}

export interface RegisterInput {
  readonly name: string;
  readonly plugin?: string;
  readonly owner?: string;
  readonly capacity?: number;
  readonly output?: string;
  readonly policy?: Partial<ChannelPolicy>;
}

/** A registry call was given bad input (not a bug). The message names the problem and the fix. */
export class ChannelError extends Error {
  override readonly name = 'ChannelError';
}

/** The policy of a channel registered without one. */
const DEFAULT_POLICY: ChannelPolicy = Object.freeze({ noMemory: false, cleaner: null, contextPolicy: null });

/** Code-unit order: deterministic and independent of locale. */
export function compareNames(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

export class ChannelRegistry {
  private readonly channels = new Map<string, InputChannel>();
  /** `list`'s order, kept until the next change: a big tree lists far more often than it registers. */
  private sorted: readonly InputChannel[] | null = null;
  private readonly targets = new Map<string, OutputTarget>();

  /**
   * Registers an inputch or, when the name exists (plugin reload), updates it: the policy is always
   * replaced; the plugin is replaced when a non-empty one is given; owner, capacity and output are
   * kept unless the new record gives a non-empty owner, a capacity > 0 or a non-empty output (S23).
   */
  register(input: RegisterInput): InputChannel {
    requireName(input.name, 'inputch name', 'pass the channel name, e.g. "qq/device-2"');
    const capacity = input.capacity ?? 0;
    requireCapacity(capacity);
    const policy = makePolicy(input.policy);
    const old = this.channels.get(input.name);
    const record = freezeChannel({
      name: input.name,
      plugin: nonEmptyOr(input.plugin, old?.plugin ?? ''),
      owner: nonEmptyOr(input.owner, old?.owner ?? ''),
      capacity: capacity > 0 ? capacity : (old?.capacity ?? 0),
      output: nonEmptyOr(input.output, old?.output ?? ''),
      policy,
    });
    this.channels.set(record.name, record);
    this.sorted = null;
    return record;
  }

  /**
   * Removes an inputch and every output target bound to it: the ones naming it explicitly and the
   * same-name fallback (inputch '' on the output of the same name). Unknown name → false.
   */
  unregister(name: string): boolean {
    if (!this.channels.delete(name)) return false;
    this.sorted = null;
    for (const [output, target] of [...this.targets]) {
      const boundHere = target.inputch === name || (target.inputch === '' && output === name);
      if (boundHere) this.targets.delete(output);
    }
    return true;
  }

  /** Assigns the inputch to `agent` ('' releases it); the capacity is updated only when > 0. */
  assign(name: string, agent: string, capacity = 0): InputChannel {
    const old = this.channels.get(name);
    if (old === undefined) {
      throw new ChannelError(
        `inputch ${JSON.stringify(name)} is not registered; register it first (registered: ${this.namesHint()})`,
      );
    }
    if (agent !== '' && agent.trim() === '') {
      throw new ChannelError(`agent id must not be blank; pass '' to release inputch ${JSON.stringify(name)}`);
    }
    requireCapacity(capacity);
    const record = freezeChannel({ ...old, owner: agent, capacity: capacity > 0 ? capacity : old.capacity });
    this.channels.set(name, record);
    this.sorted = null;
    return record;
  }

  /** Gives the inputch back to the root (owner ''). */
  release(name: string): InputChannel {
    return this.assign(name, '');
  }

  lookup(name: string): InputChannel | undefined {
    return this.channels.get(name);
  }

  list(): InputChannel[] {
    this.sorted ??= [...this.channels.values()].sort((a, b) => compareNames(a.name, b.name));
    return [...this.sorted];
  }

  /** The inputchs owned by `agent`; '' lists the unassigned ones. Sorted like `list`. */
  listByOwner(agent: string): InputChannel[] {
    // Filtered before sorting: every child's stop asks, so a big tree must not sort the whole registry each time.
    return [...this.channels.values()].filter((c) => c.owner === agent).sort((a, b) => compareNames(a.name, b.name));
  }

  size(): number {
    return this.channels.size;
  }

  /** Binds (or re-binds) an output channel to an agent's inputch; inputch '' = same name as output. */
  bindOutputTarget(output: string, agent: string, inputch = ''): OutputTarget {
    requireName(output, 'output channel name', 'pass the output channel to bind, e.g. "webui"');
    requireName(agent, 'output target agent', 'use unbindOutputTarget to remove a binding');
    const target: OutputTarget = Object.freeze({ output, agent, inputch });
    this.targets.set(output, target);
    return target;
  }

  /** The bound target, or undefined: then the transport device handles the channel itself. */
  resolveOutputTarget(output: string): OutputTarget | undefined {
    return this.targets.get(output);
  }

  /** Removes a binding; false when there was none (idempotent). */
  unbindOutputTarget(output: string): boolean {
    return this.targets.delete(output);
  }

  listOutputTargets(): OutputTarget[] {
    return [...this.targets.values()].sort((a, b) => compareNames(a.output, b.output));
  }

  /** The inputchs and output targets in the order they were first registered or bound (docs/spec.md §13.2). */
  snapshotState(): { channels: InputChannel[]; targets: OutputTarget[] } {
    return { channels: [...this.channels.values()], targets: [...this.targets.values()] };
  }

  /** Takes over a snapshot's records; only an empty registry may. */
  restoreState(s: { readonly channels: readonly InputChannel[]; readonly targets: readonly OutputTarget[] }): void {
    assert(this.channels.size === 0 && this.targets.size === 0, 'SNAPSHOT: the registry is already in use');
    for (const c of s.channels) this.channels.set(c.name, freezeChannel(c));
    this.sorted = null;
    for (const t of s.targets) this.targets.set(t.output, Object.freeze({ ...t }));
  }

  /** A short list of the registered names for error messages (bounded so a message stays short). */
  private namesHint(): string {
    const namesMax = 10;
    const names = this.list().map((c) => c.name);
    if (names.length === 0) return 'none';
    const shown = names.slice(0, namesMax).join(', ');
    return names.length > namesMax ? `${shown}, … ${names.length - namesMax} more` : shown;
  }
}

function requireName(value: string, what: string, fix: string): void {
  if (value.trim() === '') throw new ChannelError(`${what} must not be empty; ${fix}`);
}

function requireCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new ChannelError(
      `inputch capacity must be a non-negative integer, got ${String(capacity)}; use 0 for the kernel default`,
    );
  }
}

function nonEmptyOr(value: string | undefined, fallback: string): string {
  return value === undefined || value === '' ? fallback : value;
}

function makePolicy(p: Partial<ChannelPolicy> | undefined): ChannelPolicy {
  if (p === undefined) return DEFAULT_POLICY;
  return Object.freeze({
    noMemory: p.noMemory ?? DEFAULT_POLICY.noMemory,
    cleaner: p.cleaner ?? DEFAULT_POLICY.cleaner,
    contextPolicy: p.contextPolicy ?? DEFAULT_POLICY.contextPolicy,
  });
}

function freezeChannel(c: InputChannel): InputChannel {
  return Object.freeze({ ...c, policy: Object.isFrozen(c.policy) ? c.policy : Object.freeze({ ...c.policy }) });
}
