/**
 * Swarm testing (after FoundationDB's BUGGIFY): named fault sites in the simulator's fakes and
 * agenda, of which each seed activates a random subset, each active site then firing on a share of its
 * chances. A swarm of seeds thereby tries many different mixes of faults, where one fixed mix would
 * keep hitting the same few paths.
 *
 * Theory of operation. `Swarm.forSeed(seed)` decides the active set from the stream `seed|swarm|active`
 * (one coin per site, in list order, every coin always drawn), so the set is a function of the seed
 * alone and a failure reproduces from the seed and `--swarm`. A site's chance to fire is a coin on a
 * stream derived for that very chance, `seed|swarm|<site>|<parts of the call>`: like the fakes' own
 * per-call streams it depends only on its name, never on how many draws came before. Without
 * `--swarm` no Swarm exists and no swarm stream is ever drawn from, so every run without it, and its
 * golden trace hash, stays exactly what it was.
 */
import { Rng, type Range } from './rng.ts';

/** The fault sites, each with what firing it does. */
export const FAULT_SITES = [
  /** A model call fails at its first chunk. */
  'model-error',
  /** A model call never sends anything; only its timeout or a cancel ends it. */
  'model-stall',
  /** A cancelled model call keeps streaming to its natural end, every chunk after the cancel late. */
  'model-late-chunks',
  /** A model call sends one of its text chunks twice. */
  'model-duplicate-chunk',
  /** A model call sends its text pieces in reverse order. */
  'model-reorder-chunks',
  /** A model call ignores cancellation and runs to its end. */
  'model-ignores-cancel',
  /** A tool call takes HANG_FACTOR times its drawn duration (at least HANG_MIN_MS). */
  'tool-hang',
  /** A tool call panics (fails its task, docs/spec.md §3.8). */
  'tool-panic',
  /** A tool call returns a tool error. */
  'tool-fail',
  /** At an input's instant, FLOOD_SIZE extra queued inputs arrive at once. */
  'queue-flood',
  /** At an input's instant, one extra interrupt of each level arrives at once. */
  'interrupt-burst',
  /**
   * At an input's instant, the user presses the stop button (docs/spec.md §2.9) with a text: the queued FIFO is
   * cancelled, the running task stop-marked, and the text becomes an interrupt of its own.
   */
  'user-stop',
  /**
   * At an input's instant, CHILD_FLOOD_SIZE long inputs arrive for one resident (the input's own index
   * picks which), to fill its context: context-full signals, compresses and their races. A scenario
   * without residents gives this site no chance.
   */
  'child-context-flood',
  /**
   * At an input's instant, the simulated process is set to crash a drawn CRASH_DELAY_MS later and to
   * restart a drawn CRASH_RESTART_AFTER_MS after that, recovering from its journal (docs/spec.md §13.2,
   * crash/process.ts); at most CRASHES_MAX times a run. After the sites before it, so that its coin leaves
   * their active sets as they were.
   */
  'crash',
  /**
   * An MCP-shaped server (a scenario's `mcpServers`) dies during a call, at a drawn instant within it, and
   * is back RETRY_MS_FIRST later: the call ends `stopped during the call`, its tools leave the model's list
   * and come back (fakes/mcp.ts). After `crash`, like every site added since, so that older active sets stay.
   */
  'mcp-server-dies',
  /** An MCP tool call takes MCP_SLOW_FACTOR times its drawn duration (at least MCP_SLOW_MIN_MS), up to its timeout. */
  'mcp-slow',
] as const;

export type FaultSite = (typeof FAULT_SITES)[number];

/** The share of sites a seed activates, and the share of chances an active site fires on. */
export const SITE_ACTIVE_RATE = 0.25;
export const SITE_FIRE_RATE = 0.25;

/**
 * A hang is long but finite: the kernel has no tool timeout, so a tool that never returned would keep
 * its task, and the run, from ever ending; a long one still holds its task through many timers.
 */
export const HANG_FACTOR = 100;
export const HANG_MIN_MS = 60_000;
/** A slow MCP call takes this many times its drawn duration, and at least MCP_SLOW_MIN_MS. */
export const MCP_SLOW_FACTOR = 20;
export const MCP_SLOW_MIN_MS = 5_000;
/** Queued inputs one flood adds. */
export const FLOOD_SIZE = 20;
/** Inputs one child context flood adds, and the code points of each (about 2 000 tokens apiece). */
export const CHILD_FLOOD_SIZE = 5;
export const CHILD_FLOOD_TEXT_POINTS = 1_000;
/**
 * A swarm crash falls within the work the input just started (a model call lasts 60 ms by default) and
 * the process stays down long enough for inputs and timers to fall due meanwhile.
 */
export const CRASH_DELAY_MS: Range = [1, 200];
export const CRASH_RESTART_AFTER_MS: Range = [1, 2_000];
export const CRASHES_MAX = 2;

export class Swarm {
  private healed = false;

  private constructor(
    /** The run's seed: a site's own plans draw from streams derived from it. */
    readonly seed: number,
    readonly active: readonly FaultSite[],
  ) {}

  static forSeed(seed: number): Swarm {
    const rng = Rng.derive(seed, 'swarm', 'active');
    return new Swarm(
      seed,
      FAULT_SITES.filter(() => rng.chance(SITE_ACTIVE_RATE)),
    );
  }

  /** From now on no site fires: the liveness phase (liveness.ts). */
  heal(): void {
    this.healed = true;
  }

  /** Whether `site` fires on the chance named by `parts` (the call it belongs to). */
  fires(site: FaultSite, ...parts: (string | number)[]): boolean {
    if (this.healed || !this.active.includes(site)) return false;
    return Rng.derive(this.seed, 'swarm', site, ...parts).chance(SITE_FIRE_RATE);
  }
}
