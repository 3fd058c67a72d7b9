/**
 * docs/deployment.md "Shutdown": when the kernel itself fails, the server logs `serve.fatal` with the
 * error, tells its owner (`onFatal`: the command then shuts down and exits 1), and its shutdown does not
 * stop the kernel — no end-of-run checks, no journal trailer, no pause snapshot. The kernel is made to
 * fail the way an adapter bug would: a chunk of a type the protocol does not have. Until the owner has
 * shut it down, a new input is a failed route: 500, with the details in the log (`serve.error`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { postJson, serveLines, startTestServer, waitFor } from './support.ts';

/** An adapter that forwards a chunk it did not check. */
class UncheckedProvider implements Provider {
  async *stream(_request: ModelRequest, _signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    await Promise.resolve();
    yield { type: 'reasoning', text: 'hmm' } as unknown as ModelChunk;
  }
}

describe('serve: the kernel fails', () => {
  it('logs serve.fatal with the error, tells its owner once, and shuts down without a trailer or a pause snapshot', async () => {
    const s = await startTestServer({}, new UncheckedProvider());
    const journalDir = join(s.dir, 'data', 'journal');
    // Never answered: the task it made has no terminal. Its connection is closed at the shutdown.
    const pending = postJson(`${s.url}/v1/inputs`, { text: 'hi' }).catch(() => null);
    try {
      await waitFor(() => s.logs.some((l) => l.startsWith('FATAL')));
      const fatal = serveLines(s.logs, 'fatal');
      expect(fatal).toHaveLength(1);
      expect(fatal[0]?.message).toMatch(/^the kernel failed and is stopped: AssertionError/);
      // The stack is there, for the one who has to find the bug.
      expect(fatal[0]?.message).toContain('\n    at ');
      expect(s.logs.filter((l) => l.startsWith('FATAL'))).toEqual([expect.stringContaining('AssertionError')]);

      // Until the owner has shut it down, an input is a failed route: 500, and the log has the details.
      const late = await postJson(`${s.url}/v1/inputs`, { text: 'too late' });
      expect(late.status).toBe(500);
      expect(await late.json()).toMatchObject({ error: { message: 'internal error; the server log has the details' } });
      const failed = serveLines(s.logs, 'error');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.message).toMatch(
        /^POST \/v1\/inputs failed: AssertionError.*after a fatal kernel error\n {4}at /,
      );
      const segments = readdirSync(journalDir).filter((f) => f.startsWith('segment-'));
      const result = await s.server.shutdown('the kernel failed');
      await s.server.closeConnections(100);
      // No end-of-run checks and no trailer: the segment ends with the input, and no snapshot is taken.
      const lines = readFileSync(join(journalDir, segments[0] ?? ''), 'utf8')
        .trimEnd()
        .split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).not.toContain('journal.trailer');
      expect(readdirSync(journalDir).filter((f) => f.startsWith('snapshot-'))).toEqual([]);
      expect(result.events).toBeGreaterThan(0);
      expect(serveLines(s.logs, 'stopped')).toHaveLength(1);
    } finally {
      await s.stop();
      await pending;
    }
    expect(existsSync(s.dir)).toBe(false);
  });
});
