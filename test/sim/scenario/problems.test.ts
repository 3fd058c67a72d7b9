/**
 * How the scenario reader words and orders its problems (docs/spec.md §12.1: a clear error naming what is
 * wrong): unknown keys with their allowed list and a suggestion only for a near miss, found values in
 * the detailed wording, and the path order of the list.
 */
import { describe, expect, it } from 'vitest';
import { finish, nearestName } from '../../../src/sim/scenario/problems.ts';
import { doc, problems } from './helpers.ts';

describe('scenario problems: wording', () => {
  it('an unknown key three edits from every allowed key gets no suggestion, only the allowed list', () => {
    expect(problems(doc({ limits: { maxEve: 1 } }))).toEqual([
      { path: 'limits.maxEve', message: "unknown key 'maxEve' (allowed: maxEvents, maxVirtualMs)" },
    ]);
    expect(problems(doc({ limits: { maxEven: 1 } }))).toEqual([
      {
        path: 'limits.maxEven',
        message: "unknown key 'maxEven'; did you mean 'maxEvents'? (allowed: maxEvents, maxVirtualMs)",
      },
    ]);
  });

  it('a near miss is within two edits, case ignored, counting every letter of both names', () => {
    expect(nearestName('MAXEVEN', ['maxEvents'])).toBe('maxEvents');
    expect(nearestName('maxEve', ['maxEvents'])).toBeUndefined();
    expect(nearestName('maxEventsxyz', ['maxEvents'])).toBeUndefined();
  });

  it('a found list of numbers is shown as written, not as "an array"', () => {
    expect(problems(doc({ model: { chunkMs: [2, 1] } }))).toEqual([
      {
        path: 'model.chunkMs',
        message:
          'must be an integer 0 … 1000000000000 or [min, max] with integers 0 ≤ min ≤ max ≤ 1000000000000, got [2,1]',
      },
    ]);
  });
});

describe('scenario problems: order', () => {
  it('at one level, indexes come before keys, even keys that sort before digits', () => {
    // "-" (U+002D) sorts before "1" as text: only the index-first rule puts [10] ahead of it.
    const issues = [
      { path: ['tools', '-x'], message: 'k' },
      { path: ['tools', 10], message: 'i' },
      { path: ['tools', '-x'], message: 'k2' },
    ];
    const expected = [
      { path: 'tools[10]', message: 'i' },
      { path: 'tools["-x"]', message: 'k' },
      { path: 'tools["-x"]', message: 'k2' },
    ];
    expect(finish(issues)).toEqual(expected);
    expect(finish([...issues].reverse()).map((p) => p.path)).toEqual(expected.map((p) => p.path));
  });
});
