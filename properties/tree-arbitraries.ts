/**
 * Generators for the model-based property of the agent tree: weighted command sequences over the
 * builders of tree-commands.ts. Agents are named by small indexes (taken modulo the children that
 * exist when the command runs), so every sequence is valid and shrinks to a valid one. Answers are the
 * most frequent command: without them no task ends, and destroys would find only fresh work.
 */
import fc from 'fast-check';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import {
  answer,
  compress,
  create,
  createUnder,
  destroy,
  doorDestroy,
  fill,
  inspect,
  list,
  reclaim,
  send,
  stopAgent,
  stopRoot,
  submit,
  type TreeCommand,
  type TreeConfig,
} from './tree-commands.ts';
import type { Disposition, Kind, Residual, Script } from './tree-model.ts';

/**
 * A small root queue now and then (backpressure on moved tasks), both parent-message modes, and now
 * and then a shallow or narrow tree, so that creations meet the tree's bounds (docs/spec.md §10.2).
 */
export const configArb: fc.Arbitrary<TreeConfig> = fc.record({
  maxQueue: fc.constantFrom(256, 256, 3),
  parentMessage: fc.constantFrom<'suspend' | 'discard'>('suspend', 'discard'),
  maxTreeDepth: fc.constantFrom(4, 2, 1),
  maxChildren: fc.constantFrom(64, 64, 4),
});

const indexArb = fc.nat({ max: 7 });
const kindArb = fc.constantFrom<Kind>('resident', 'resident', 'rt');
const scriptArb = fc.constantFrom<Script>('plain', 'plain', 'notify', 'notify', 'note', 'fail', 'big');
const promptArb = fc.option(scriptArb, { nil: null, freq: 3 });
const windowArb = fc.constantFrom<number | null>(150, 320, 320, null);
const residualArb = fc.constantFrom<Residual | null>('keep', 'drop', null);
const dispositionArb = fc.constantFrom<Disposition | null>('release', 'keep', 'handback', null);
/** Inputchs a create asks for: often none, so that creations are not mostly refused as taken. */
const maskArb = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: 7 }) });
/** An input goes straight to a child (null) or to the root on an inputch (routing decides). */
const viaArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant<number | null>(null) },
  { weight: 1, arbitrary: fc.nat({ max: 2 }) },
);
const levelArb = fc.option(fc.constantFrom<Level>(1, 2, 3, 4), { nil: null, freq: 2 });

export const createArb: fc.Arbitrary<TreeCommand> = fc
  .record({
    kind: fc.oneof({ weight: 20, arbitrary: kindArb }, { weight: 1, arbitrary: fc.constant<'bogus'>('bogus') }),
    mask: maskArb,
    prompt: promptArb,
    window: windowArb,
    duplicate: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    unknown: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })
  .map((c) => create(c.kind, c.mask, c.prompt, c.window, c.duplicate, c.unknown));

export function treeCommandsArb(maxCommands: number): fc.Arbitrary<Iterable<TreeCommand>> {
  return fc.commands(
    [
      fc.oneof(
        { weight: 12, arbitrary: createArb },
        {
          weight: 2,
          arbitrary: fc
            .tuple(indexArb, kindArb, maskArb, promptArb, windowArb, fc.constantFrom<number | null>(null, 2))
            .map(([p, k, mask, prompt, w, cap]) => createUnder(p, k, mask, prompt, w, cap)),
        },
        {
          weight: 20,
          arbitrary: fc
            .tuple(indexArb, scriptArb, viaArb, levelArb, fc.integer({ min: 1, max: 3 }))
            .map(([t, s, via, l, n]) => submit(t, s, via, l, n)),
        },
        { weight: 30, arbitrary: indexArb.map(answer) },
        { weight: 5, arbitrary: fc.tuple(indexArb, scriptArb).map(([c, s]) => send(c, s)) },
        { weight: 3, arbitrary: indexArb.map(fill) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(indexArb, fc.boolean(), fc.option(scriptArb, { nil: null }))
            .map(([c, f, follow]) => compress(c, f, follow)),
        },
        { weight: 1, arbitrary: indexArb.map(inspect) },
        { weight: 1, arbitrary: fc.constant(list()) },
        { weight: 2, arbitrary: fc.tuple(indexArb, residualArb, dispositionArb).map(([c, r, d]) => reclaim(c, r, d)) },
        { weight: 4, arbitrary: fc.tuple(indexArb, residualArb, dispositionArb).map(([c, r, d]) => destroy(c, r, d)) },
        {
          weight: 2,
          arbitrary: fc.tuple(indexArb, residualArb, dispositionArb).map(([c, r, d]) => doorDestroy(c, r, d)),
        },
        { weight: 1, arbitrary: indexArb.map(stopAgent) },
        { weight: 1, arbitrary: fc.constant(stopRoot()) },
      ),
    ],
    { maxCommands, size: 'max' },
  );
}
