/**
 * Generated inputs (docs/spec.md §12.2 `generate`): one list — queued first, then L1, L2, L3, L4 — shuffled
 * with the seeded stream `generate`, named `gq<n>` and `gi<L>-<n>` in shuffled order. The first input
 * is due at 0 and each next one `spacingMs` after the previous one was injected. With `victimAware`, a
 * due interrupt waits until it has a victim it can preempt in its Model step, or until
 * `victimTimeoutMs` has passed.
 */
import type { Level } from '../../kernel/index.ts';
import { Rng } from '../rng.ts';
import type { GenerateConfig } from '../scenario/index.ts';

export interface GeneratedInput {
  readonly id: string;
  readonly cls: 'queued' | 'interrupt';
  readonly level: Level | null;
  readonly source: string;
  readonly text: string;
}

export function generateInputs(cfg: GenerateConfig, seed: number): GeneratedInput[] {
  const kinds: (Level | null)[] = [];
  for (let i = 0; i < cfg.queued; i++) kinds.push(null);
  const perLevel: readonly [Level, number][] = [
    [1, cfg.interrupts.L1],
    [2, cfg.interrupts.L2],
    [3, cfg.interrupts.L3],
    [4, cfg.interrupts.L4],
  ];
  for (const [level, count] of perLevel) for (let i = 0; i < count; i++) kinds.push(level);
  Rng.derive(seed, 'generate').shuffle(kinds);
  const counters = new Map<string, number>();
  return kinds.map((level) => {
    const kind = level === null ? 'gq' : `gi${level}-`;
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    const id = `${kind}${n}`;
    return {
      id,
      cls: level === null ? 'queued' : 'interrupt',
      level,
      source: level === 4 ? cfg.l4Source : 'gen',
      text: `input ${id}`,
    };
  });
}

/** Walks the generated list on virtual time; the simulation asks it what is due and reports injections. */
export class Generator {
  private readonly inputs: GeneratedInput[];
  private index = 0;
  private dueAtMs: number | null;
  private readonly spacing: Rng;

  constructor(
    readonly cfg: GenerateConfig,
    seed: number,
  ) {
    this.inputs = generateInputs(cfg, seed);
    this.dueAtMs = this.inputs.length > 0 ? 0 : null;
    this.spacing = Rng.derive(seed, 'generate-spacing');
  }

  all(): readonly GeneratedInput[] {
    return this.inputs;
  }

  /** The next input and when it is due, or null when the list is exhausted. */
  next(): { input: GeneratedInput; dueAtMs: number } | null {
    const input = this.inputs[this.index];
    if (input === undefined || this.dueAtMs === null) return null;
    return { input, dueAtMs: this.dueAtMs };
  }

  /** The next input was injected at `nowMs`: the one after it is due `spacingMs` later. */
  injected(nowMs: number): void {
    this.index += 1;
    this.dueAtMs = this.index < this.inputs.length ? nowMs + this.spacing.range(this.cfg.spacingMs) : null;
  }

  /** Whether the next input must wait for a victim. */
  waitsForVictim(input: GeneratedInput): boolean {
    return this.cfg.victimAware && input.cls === 'interrupt';
  }
}
