/**
 * What a task reference in a scenario may name (docs/spec.md §12.2): an input of the file, a kernel task
 * "<agent>:<n>" of a declared agent, or a generated input that `generate` asks for — `gq<n>` for
 * n ≤ queued and `gi<L>-<n>` for n ≤ interrupts.L<L>, nothing that merely contains such a name.
 */
import { describe, expect, it } from 'vitest';
import { unknownAgentMessage, unknownTaskMessage, type TaskContext } from '../../../src/sim/scenario/refs.ts';

const UNKNOWN = (target: string): string =>
  `unknown task '${target}': must be the id of an input in this file or a kernel task "<agent>:<n>" (n ≥ 1)`;

function context(generate: unknown): TaskContext {
  return { ids: new Set(['a']), agents: new Set(['root']), residents: [], generate };
}

describe('unknownTaskMessage: generated inputs', () => {
  it('gq<n> names a queued input for every n up to generate.queued, with any number of digits', () => {
    const ctx = context({ queued: 12 });
    expect(unknownTaskMessage('gq1', ctx)).toBeUndefined();
    expect(unknownTaskMessage('gq12', ctx)).toBeUndefined();
    expect(unknownTaskMessage('gq13', ctx)).toBe(UNKNOWN('gq13'));
  });

  it('gi<L>-<n> names an interrupt of level L for every n up to interrupts.L<L>', () => {
    const ctx = context({ interrupts: { L2: 10 } });
    expect(unknownTaskMessage('gi2-1', ctx)).toBeUndefined();
    expect(unknownTaskMessage('gi2-10', ctx)).toBeUndefined();
    expect(unknownTaskMessage('gi2-11', ctx)).toBe(UNKNOWN('gi2-11'));
    expect(unknownTaskMessage('gi3-1', ctx)).toBe(UNKNOWN('gi3-1'));
  });

  it('a name that only contains a generated name is not one', () => {
    const ctx = context({ queued: 5, interrupts: { L1: 5 } });
    for (const name of ['xgq1', 'gq1x', 'gq01', 'xgi1-1', 'gi1-1x', 'gi1-01', 'gi5-1'])
      expect(unknownTaskMessage(name, ctx)).toBe(UNKNOWN(name));
  });

  it('without interrupts in generate, no gi name exists; an unrelated name is unknown either way', () => {
    const ctx = context({ queued: 3 });
    expect(unknownTaskMessage('gi1-1', ctx)).toBe(UNKNOWN('gi1-1'));
    expect(unknownTaskMessage('missing', ctx)).toBe(UNKNOWN('missing'));
    expect(unknownTaskMessage('missing', context({ queued: 3, interrupts: { L1: 3 } }))).toBe(UNKNOWN('missing'));
  });
});

describe('unknownAgentMessage', () => {
  it('lists the declared residents, or says that none are declared', () => {
    expect(unknownAgentMessage('ghost', ['watcher', 'helper'])).toBe(
      `unknown agent 'ghost': must be "root" or a declared resident id (declared residents: watcher, helper)`,
    );
    expect(unknownAgentMessage('ghost', [])).toBe(
      `unknown agent 'ghost': must be "root" or a declared resident id (no residents are declared)`,
    );
  });
});
