import { describe, expect, it } from 'vitest';
import { DedupWindow, isPrivilegedSource, resolveLevel } from '../../../src/kernel/agent/admission.ts';
import { childRole, rootRole } from '../../../src/kernel/agent/role.ts';

const WINDOW_MS = 10_000;
/** The window purges its expired keys once every this many sightings. */
const SIGHTINGS_PER_PURGE = 256;

describe('the duplicate window (docs/spec.md §3.1)', () => {
  it('matches the same source and text less than the window ago, and nothing else', () => {
    const dedup = new DedupWindow(WINDOW_MS);
    dedup.record('user', 'hello', 1_000);
    expect(dedup.isDuplicate('user', 'hello', 1_000 + WINDOW_MS - 1)).toBe(true);
    expect(dedup.isDuplicate('user', 'hello', 1_000 + WINDOW_MS)).toBe(false);
    expect(dedup.isDuplicate('cli', 'hello', 1_000)).toBe(false);
    expect(dedup.isDuplicate('user', 'hello ', 1_000)).toBe(false);
  });

  it('a purge of expired keys keeps every sighting still inside the window', () => {
    // The purge runs on a sighting, at that sighting's time: the key just recorded and one recorded
    // a millisecond short of the window before must both survive it.
    const dedup = new DedupWindow(WINDOW_MS);
    const purgeAtMs = 5 * WINDOW_MS;
    dedup.record('user', 'expired', 0);
    dedup.record('user', 'old', purgeAtMs - WINDOW_MS + 1);
    for (let i = 3; i < SIGHTINGS_PER_PURGE; i += 1) dedup.record('user', `filler ${i}`, purgeAtMs - 1);
    dedup.record('user', 'new', purgeAtMs);

    expect(dedup.isDuplicate('user', 'old', purgeAtMs)).toBe(true);
    expect(dedup.isDuplicate('user', 'new', purgeAtMs)).toBe(true);
    expect(dedup.isDuplicate('user', 'filler 3', purgeAtMs)).toBe(true);
    expect(dedup.isDuplicate('user', 'expired', purgeAtMs)).toBe(false);
  });
});

describe('privileged sources (docs/spec.md §5)', () => {
  const plugins = ['webui', 'cron'];

  it('on the root, a source whose first segment names a built-in plugin is privileged, by exact match', () => {
    expect(isPrivilegedSource('webui', plugins)).toBe(true);
    expect(isPrivilegedSource('webui/dev-3', plugins)).toBe(true);
    expect(isPrivilegedSource('cron/nightly/1', plugins)).toBe(true);
    expect(isPrivilegedSource('webuix/dev-3', plugins)).toBe(false);
    expect(isPrivilegedSource('web/ui', plugins)).toBe(false);
    expect(isPrivilegedSource('user', plugins)).toBe(false);
  });

  it('a source with no first segment (empty, or a leading "/") is never privileged, even if a plugin name is empty', () => {
    // The kernel's own config does not refuse an empty plugin name; the empty head must still not match it.
    expect(isPrivilegedSource('/webui', ['', ...plugins])).toBe(false);
    expect(isPrivilegedSource('', ['', ...plugins])).toBe(false);
  });

  it('a declared L4 keeps its level from a privileged source and is clamped to L3 from any other (P9)', () => {
    expect(resolveLevel('L4', 'webui/dev-3', plugins)).toBe(4);
    expect(resolveLevel(4, 'user', plugins)).toBe(3);
    expect(resolveLevel('l2', 'user', plugins)).toBe(2);
    expect(resolveLevel(undefined, 'webui', plugins)).toBe(1);
  });

  it('the root privileges its configured built-in plugins; a child privileges no source at all', () => {
    // On a child only its parent's control plane raises L4, as kernel tasks, never through a source.
    expect(rootRole({ builtinPlugins: plugins }).privilegedPlugins).toEqual(plugins);
    expect(childRole('rt').privilegedPlugins).toEqual([]);
  });
});
