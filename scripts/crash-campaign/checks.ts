/**
 * The crash campaign's verdicts (docs/spec.md §6 DURABLE, §13.2), from what the clients recorded, what
 * the last server answered, and what the journal holds. Pure functions: no I/O here.
 *
 *  - lost: an acknowledged task without a terminal — none in the replayed history, or not `ended` on
 *    the last server.
 *  - terminals: an acknowledged task with more than one `task.terminal` in the replayed history, or whose
 *    terminal differs from the one its client received.
 *  - duplicates: one task id acknowledged to two different submissions.
 *  - twice: one keyed submission (same Idempotency-Key, retried because no answer named its task) that
 *    the journal holds as two tasks — the retry the key was meant to make safe ran the input again.
 *  - abandoned deltas: in a recorded SSE stream, a delta of an attempt (upstream.ts tags each) after a
 *    `reset` that came after that attempt's text, or, for a `done` task, deltas after the last reset that
 *    are not the reply.
 *  - stream shape: event ids not 1, 2, 3 … without gaps or repeats, or not exactly one terminal event,
 *    the last.
 */
import type { SubmissionRecord, TerminalSeen } from './clients.ts';
import { attemptsOf } from './upstream.ts';

/** What the history says of one task: its terminals (from the replayed trace). */
export interface HistoryTask {
  readonly terminals: readonly TerminalSeen[];
}

/** What the last server answered for one task: its view, or null for a 404. */
export type FinalView = { readonly state: string; readonly terminal?: TerminalSeen } | null;

export interface Evidence {
  readonly records: readonly SubmissionRecord[];
  /** Task id → its terminals in the replayed trace of the whole journal. */
  readonly history: ReadonlyMap<string, HistoryTask>;
  /** Task id → the last server's answer to GET /v1/tasks/{id}, for every acknowledged task. */
  readonly finalViews: ReadonlyMap<string, FinalView>;
  /** Submission text → the task ids the journal's `submit` inputs gave it, in order. */
  readonly journalTasksByText: ReadonlyMap<string, readonly string[]>;
}

export interface Verdicts {
  readonly acknowledged: number;
  readonly lost: readonly string[];
  readonly terminals: readonly string[];
  readonly duplicates: readonly string[];
  readonly twice: readonly string[];
  readonly abandonedDeltas: readonly string[];
  readonly streamShape: readonly string[];
  readonly oddities: readonly string[];
}

export function judge(ev: Evidence): Verdicts {
  const lost: string[] = [];
  const terminals: string[] = [];
  const duplicates: string[] = [];
  const twice: string[] = [];
  const abandonedDeltas: string[] = [];
  const streamShape: string[] = [];
  const oddities: string[] = [];
  const ackedTo = new Map<string, string>();
  for (const r of ev.records) {
    for (const o of r.oddities) oddities.push(`${r.key}: ${o}`);
    for (const task of r.acks) {
      const earlier = ackedTo.get(task);
      if (earlier !== undefined && earlier !== r.key)
        duplicates.push(`${task} acknowledged to ${earlier} and ${r.key}`);
      ackedTo.set(task, r.key);
    }
    const task = r.acks[0];
    if (task === undefined) continue;
    const made = ev.journalTasksByText.get(r.text) ?? [];
    if (r.keyed && made.length > 1)
      twice.push(`${r.key} (Idempotency-Key ${r.key}, ${r.requests} requests) became ${made.join(', ')}`);
    const found = ev.history.get(task)?.terminals ?? [];
    const view = ev.finalViews.get(task);
    const ended = view === undefined || view === null ? found.length > 0 : view.state === 'ended';
    if (found.length === 0 || !ended)
      lost.push(`${task} (${r.key}): ${found.length} terminal(s) in the journal, ${describeView(view)}`);
    if (found.length > 1) terminals.push(`${task} (${r.key}): ${found.length} terminals in the journal`);
    const last = found.at(-1);
    if (r.terminal !== null && last !== undefined && !sameTerminal(r.terminal, last))
      terminals.push(`${task} (${r.key}): the client received ${show(r.terminal)}, the journal says ${show(last)}`);
    if (view?.terminal !== undefined && last !== undefined && !sameTerminal(view.terminal, last))
      terminals.push(`${task} (${r.key}): the last server says ${show(view.terminal)}, the journal ${show(last)}`);
    if (r.mode === 'sse' && r.terminal !== null) {
      abandonedDeltas.push(...streamAttempts(r, task));
      streamShape.push(...streamIds(r, task));
    }
  }
  return {
    acknowledged: ackedTo.size,
    lost,
    terminals,
    duplicates,
    twice,
    abandonedDeltas,
    streamShape,
    oddities,
  };
}

/** Deltas of attempts a reset withdrew, and the reply rule for `done` tasks. */
function streamAttempts(r: SubmissionRecord, task: string): string[] {
  const found: string[] = [];
  const withdrawn = new Set<number>();
  let since = new Set<number>();
  let afterLastReset = '';
  for (const e of r.stream) {
    if (e.event === 'reset') {
      for (const a of since) withdrawn.add(a);
      since = new Set();
      afterLastReset = '';
    } else if (e.event === 'delta') {
      const text = (JSON.parse(e.data) as { text: string }).text;
      for (const a of attemptsOf(text)) {
        if (withdrawn.has(a))
          found.push(`${task} (${r.key}): delta id ${e.id ?? '?'} of attempt a${a} after its reset`);
        since.add(a);
      }
      afterLastReset += text;
    }
  }
  if (r.terminal?.terminal === 'done' && afterLastReset !== r.terminal.reply)
    found.push(
      `${task} (${r.key}): the deltas after the last reset are ${JSON.stringify(afterLastReset)}, the reply ${JSON.stringify(r.terminal.reply)}`,
    );
  return found;
}

/** Ids 1, 2, 3 … over every connection, exactly one terminal event and that one last. */
function streamIds(r: SubmissionRecord, task: string): string[] {
  const numbered = r.stream.filter((e) => e.event !== 'shutdown');
  const found: string[] = [];
  numbered.forEach((e, i) => {
    if (e.id !== i + 1 && found.length === 0)
      found.push(`${task} (${r.key}): event ${i + 1} (${e.event}) has id ${e.id ?? 'none'}`);
  });
  const ends = numbered.filter((e) => e.event === 'terminal').length;
  if (ends !== 1 || numbered.at(-1)?.event !== 'terminal')
    found.push(`${task} (${r.key}): ${ends} terminal event(s), the last event is ${numbered.at(-1)?.event ?? 'none'}`);
  return found;
}

function sameTerminal(a: TerminalSeen, b: TerminalSeen): boolean {
  return a.terminal === b.terminal && a.reply === b.reply && (a.reason ?? null) === (b.reason ?? null);
}

function show(t: TerminalSeen): string {
  return `${t.terminal}${t.reason === undefined ? '' : `/${t.reason}`} ${JSON.stringify(t.reply)}`;
}

function describeView(view: FinalView | undefined): string {
  if (view === undefined) return 'not asked';
  if (view === null) return 'unknown to the last server (404)';
  return `state ${view.state} on the last server`;
}
