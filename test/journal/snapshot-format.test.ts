/**
 * A snapshot file's text checked before a start trusts it (src/journal/snapshot-format.ts): every
 * refusal names what is wrong, and a whole snapshot comes back as written.
 */
import { describe, expect, it } from 'vitest';
import { parseServeSnapshot, SERVE_SNAPSHOT_VERSION } from '../../src/journal/index.ts';
import { SNAPSHOT_VERSION } from '../../src/kernel/index.ts';

function whole(): Record<string, unknown> {
  return {
    serveSnapshotVersion: SERVE_SNAPSHOT_VERSION,
    homeagent: '0.0.0-test',
    segment: 2,
    lines: 40,
    bytes: 8192,
    atMs: 1234,
    hash: { hash: 'ab', events: 3 },
    kernel: { snapshotVersion: SNAPSHOT_VERSION },
    monitor: {},
    board: {},
    deltas: {},
    timers: [['t1', 5]],
  };
}

function message(value: unknown): string {
  const parsed = parseServeSnapshot(typeof value === 'string' ? value : JSON.stringify(value));
  if (parsed.ok) throw new Error('expected a refusal');
  return parsed.message;
}

describe('parseServeSnapshot', () => {
  it('returns a whole snapshot as written', () => {
    const parsed = parseServeSnapshot(JSON.stringify(whole()));
    expect(parsed).toEqual({ ok: true, snapshot: whole() });
  });

  it('refuses text that is not JSON, saying so', () => {
    expect(message('{"serveSnapshotVersion":1,')).toMatch(/^it is not JSON \(.+\)$/);
  });

  it('refuses another format version, naming both, and a value that has none', () => {
    expect(message({ ...whole(), serveSnapshotVersion: 2 })).toBe(
      `its format version is 2, and this homeagent reads version ${SERVE_SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    );
    expect(message([])).toBe(
      `its format version is null, and this homeagent reads version ${SERVE_SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    );
    expect(message('null')).toMatch(/^its format version is null,/);
    expect(message('"text"')).toMatch(/^its format version is null,/);
  });

  it('names every part that is missing or of the wrong kind', () => {
    const s = whole();
    for (const key of ['hash', 'kernel', 'monitor', 'board', 'deltas', 'timers', 'segment', 'lines', 'bytes'])
      expect(message({ ...s, [key]: undefined })).toBe(`it lacks ${key}`);
    expect(message({ ...s, kernel: null, board: 'x', segment: 1.5, bytes: '8' })).toBe(
      'it lacks kernel, board, segment, bytes',
    );
    expect(message({ ...s, lines: null })).toBe('it lacks lines');
  });

  it('refuses a kernel snapshot of another version, naming both', () => {
    expect(message({ ...whole(), kernel: { snapshotVersion: SNAPSHOT_VERSION + 1 } })).toBe(
      `its kernel snapshot has format version ${SNAPSHOT_VERSION + 1}, and this homeagent reads version ${SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    );
    expect(message({ ...whole(), kernel: {} })).toBe(
      `its kernel snapshot has format version null, and this homeagent reads version ${SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    );
  });
});
