/**
 * Journal lines written by hand, for the tests that read journals (the reader, serve's recovery): a
 * header of this test version and a submitted input, each as the one line the writer would put down.
 */

/** The homeagent version the hand-written headers name; a reader is opened with the same. */
export const JOURNAL_TEST_VERSION = '9.9.9-test';

/** A `journal.header` line; `extra` replaces or adds fields. */
export function headerLine(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'journal.header',
    journalVersion: 1,
    homeagent: JOURNAL_TEST_VERSION,
    startedAtMs: 1000,
    config: {},
    builtinPlugins: [],
    kernel: {},
    systemPrompts: { root: 'be brief' },
    ...extra,
  });
}

/** An `input` line: the submission `id`, queued, fed at `nowMs`. */
export function inputLine(id: string, nowMs: number): string {
  return JSON.stringify({
    type: 'input',
    nowMs,
    input: { type: 'submit', submission: { id, cls: 'queued', text: `text of ${id}`, source: 'http' } },
  });
}
