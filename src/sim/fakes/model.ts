/**
 * The simulator's fake model provider (docs/spec.md §12.2 `model`, `replies`, `faults`; §12.2.1).
 *
 * Theory of operation
 * -------------------
 * Timer-first (ARCHITECTURE "Simulator recipe" rule 3): `stream()` draws everything it needs from an
 * RNG derived for this very call and schedules all its clock timers synchronously, before returning.
 * The iterator it returns only reads from a buffer that those timer callbacks fill, so the order of
 * same-instant timers never depends on how many promise ticks a consumer took.
 *
 * One call is a timeline of slots, one clock timer per distinct due instant (so tie shuffling can
 * never reorder the pieces of one stream): text chunk k is due at start + firstChunkMs + k × chunkMs;
 * the last slot also carries the tool calls and the `done` chunk. A call lasts exactly
 * firstChunkMs + (chunks − 1) × chunkMs. A failing call (scripted `error` or the injected model
 * error) has a single slot at firstChunkMs that throws; a stalled call has no slot at all.
 *
 * Documented choices:
 * - Text is split into `chunks` pieces by code points, the first (length mod chunks) pieces one code
 *   point longer. Empty pieces are not emitted (no `text` chunk with ""), but the timing is kept: the
 *   last slot, with the tool calls and `done`, is always due at the call's full duration.
 * - Draw order on the per-call stream `seed|model|agent|task|replyIndex|attempt`: firstChunkMs (the
 *   reply's override, else the model's), chunkMs, the error coin, the ignore-cancel coin, the stall
 *   coin (all three always drawn), then cancelLagMs.
 * - Precedence: a scripted error, then the injected error, then the stall; otherwise a normal reply.
 * - Cancellation of a cancel-aware call at instant A with lag L: the timers due in (A, A + L] keep
 *   running, all others are cleared at once, and the call ends at A + L with an AbortError (pending
 *   `next()` rejects; chunks already buffered are still read first). With L = 0 it ends synchronously
 *   inside the abort listener. A slot due exactly at A + L is delivered before the end. If the call
 *   completes (done or error) inside the lag window, it ends that way instead.
 * - A stalled call always ends on abort after its lag, even when it drew the ignore-cancel coin: it
 *   has no natural end, so ignoring the abort would leave the stream open forever.
 * - A call that ignores cancellation (model.cancelAware false, or the injected fault) runs to its end
 *   exactly as if not aborted.
 * - Under `--swarm` (swarm.ts) the sites model-error, model-stall and model-ignores-cancel add to the
 *   injected coins; model-late-chunks stretches the cancel lag to the call's full duration, so every
 *   chunk after a cancel arrives late; model-duplicate-chunk sends the first text piece twice and
 *   model-reorder-chunks sends the pieces in reverse order (the timing stays that of the normal reply).
 *   Their coins come from swarm streams, never from the call's own stream.
 * - `usage`: inputTokens = the number of request messages, outputTokens =
 *   UTF-16 length of the reply text.
 * - A call counts as closed the instant it ends (done, error, abort, or the consumer's `return()`),
 *   not when the consumer reads the end; at that instant it holds no timer and no abort listener.
 */
import { abortError, type Clock, type TimerId } from '../../clock/index.ts';
import { ContextFullError, type ModelChunk, type ModelRequest, type Provider, type Usage } from '../../kernel/index.ts';
import { Rng, type Range } from '../rng.ts';
import type { FaultSite, Swarm } from '../swarm.ts';

export interface FakeReply {
  readonly text: string;
  readonly tools?: readonly { readonly name: string; readonly args?: unknown }[];
  readonly error?: 'fail' | 'context_full';
  readonly firstChunkMs?: Range;
}

export interface FakeModelConfig {
  readonly firstChunkMs: Range;
  readonly chunkMs: Range;
  readonly chunks: number;
  readonly cancelAware: boolean;
  readonly cancelLagMs: Range;
}

export interface FakeModelFaults {
  readonly modelErrorRate: number;
  readonly modelIgnoresCancelRate: number;
  readonly modelStallRate: number;
}

export interface FakeModelOptions {
  readonly clock: Clock;
  readonly seed: number;
  readonly model: FakeModelConfig;
  readonly faults: FakeModelFaults;
  /** The scripted answers of a task, in call order; never empty. */
  replies(agent: string, task: string): readonly FakeReply[];
  /** The run's fault swarm (`--swarm`), else null. */
  readonly swarm?: Swarm | null;
}

export interface FakeModelStats {
  readonly opened: number;
  readonly closed: number;
  readonly live: number;
}

/** What a slot hands to the consumer: a chunk, the normal end, or the error the stream throws. */
type Item =
  | { readonly kind: 'chunk'; readonly chunk: ModelChunk }
  | { readonly kind: 'end' }
  | { readonly kind: 'throw'; readonly error: Error };

interface Slot {
  readonly offsetMs: number;
  readonly items: Item[];
}

interface Plan {
  readonly slots: readonly Slot[];
  /** False when the call ignores cancellation (and is not stalled). */
  readonly cancelAware: boolean;
  readonly cancelLagMs: number;
}

/** The provider's view of its calls, for the end-of-run monitors. */
interface Ledger {
  onClose(stream: FakeStream): void;
}

export class FakeProvider implements Provider {
  private readonly attempts = new Map<string, number>();
  private readonly open = new Set<FakeStream>();
  private opened = 0;
  private closed = 0;
  private readonly ledger: Ledger = {
    onClose: (stream) => {
      if (this.open.delete(stream)) this.closed += 1;
    },
  };

  constructor(private readonly opts: FakeModelOptions) {
    const chunks = opts.model.chunks;
    if (!Number.isSafeInteger(chunks) || chunks < 1) {
      throw new RangeError(`FakeProvider: model.chunks must be an integer >= 1, got ${String(chunks)}`);
    }
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const { agent, task, replyIndex } = request;
    const attemptKey = `${agent}\u0000${task}\u0000${replyIndex}`;
    const attempt = this.attempts.get(attemptKey) ?? 0;
    this.attempts.set(attemptKey, attempt + 1);

    const stream = new FakeStream(this.opts.clock, signal, this.ledger);
    this.opened += 1;
    this.open.add(stream);
    if (signal.aborted) {
      stream.abortNow();
      return stream;
    }
    const rng = Rng.derive(this.opts.seed, 'model', agent, task, replyIndex, attempt);
    stream.start(this.plan(request, rng, attempt));
    return stream;
  }

  stats(): FakeModelStats {
    return { opened: this.opened, closed: this.closed, live: this.opened - this.closed };
  }

  /** Clock timers still held by open calls. */
  liveTimers(): number {
    let n = 0;
    for (const stream of this.open) n += stream.timerCount();
    return n;
  }

  private plan(request: ModelRequest, rng: Rng, attempt: number): Plan {
    const { model, faults } = this.opts;
    const reply = pickReply(this.opts.replies(request.agent, request.task), request.replyIndex);
    const firstChunkMs = rng.range(reply.firstChunkMs ?? model.firstChunkMs);
    const chunkMs = rng.range(model.chunkMs);
    // The call's own coins are always drawn first, so a swarm never shifts its stream.
    const ownError = rng.chance(faults.modelErrorRate);
    const ownIgnoresCancel = rng.chance(faults.modelIgnoresCancelRate);
    const ownStall = rng.chance(faults.modelStallRate);
    const ownLagMs = rng.range(model.cancelLagMs);

    const swarm = this.opts.swarm ?? null;
    const fires = (site: FaultSite): boolean =>
      swarm !== null && swarm.fires(site, request.agent, request.task, request.replyIndex, attempt);
    const injectedError = ownError || fires('model-error');
    const ignoresCancel = ownIgnoresCancel || fires('model-ignores-cancel');
    const stalls = ownStall || fires('model-stall');
    const fullMs = firstChunkMs + (model.chunks - 1) * chunkMs;
    const cancelLagMs = fires('model-late-chunks') ? Math.max(ownLagMs, fullMs) : ownLagMs;
    const shape: PieceShape = {
      duplicateFirst: fires('model-duplicate-chunk'),
      reversed: fires('model-reorder-chunks'),
    };

    const failure = replyFailure(reply, injectedError);
    if (failure !== null) {
      const slots = [{ offsetMs: firstChunkMs, items: [{ kind: 'throw', error: failure } as const] }];
      return { slots, cancelAware: model.cancelAware && !ignoresCancel, cancelLagMs };
    }
    if (stalls) return { slots: [], cancelAware: true, cancelLagMs };
    const slots = replySlots(request, reply, model.chunks, firstChunkMs, chunkMs, shape);
    return { slots, cancelAware: model.cancelAware && !ignoresCancel, cancelLagMs };
  }
}

function pickReply(replies: readonly FakeReply[], replyIndex: number): FakeReply {
  const reply = replies[Math.min(replyIndex, replies.length - 1)];
  if (reply === undefined) throw new RangeError('FakeProvider: replies() returned an empty list');
  return reply;
}

function replyFailure(reply: FakeReply, injectedError: boolean): Error | null {
  if (reply.error === 'context_full') return new ContextFullError('context window full (scripted)');
  if (reply.error === 'fail') return new Error('model error (scripted)');
  if (injectedError) return new Error('model error (injected)');
  return null;
}

/** How a misbehaving provider (a swarm site) mangles the text pieces of a reply. */
interface PieceShape {
  readonly duplicateFirst: boolean;
  readonly reversed: boolean;
}

/** The timeline of a normal reply, one slot per distinct due offset. */
function replySlots(
  request: ModelRequest,
  reply: FakeReply,
  chunks: number,
  firstMs: number,
  chunkMs: number,
  shape: PieceShape,
): Slot[] {
  const pieces = splitCodePoints(reply.text, chunks);
  if (shape.reversed) pieces.reverse();
  const slots: Slot[] = [];
  pieces.forEach((text, k) => {
    const offsetMs = firstMs + k * chunkMs;
    let slot = slots[slots.length - 1];
    if (slot === undefined || slot.offsetMs !== offsetMs) {
      slot = { offsetMs, items: [] };
      slots.push(slot);
    }
    if (text !== '') slot.items.push({ kind: 'chunk', chunk: { type: 'text', text } });
    if (text !== '' && k === 0 && shape.duplicateFirst)
      slot.items.push({ kind: 'chunk', chunk: { type: 'text', text } });
  });
  const last = slots[slots.length - 1];
  if (last === undefined) throw new RangeError('FakeProvider: a reply needs at least one chunk');
  const tools = reply.tools ?? [];
  tools.forEach((tool, index) => {
    const argsDelta = JSON.stringify(tool.args ?? {});
    last.items.push({
      kind: 'chunk',
      chunk: { type: 'tool_call', index, id: `${request.callId}_${index}`, name: tool.name, argsDelta },
    });
  });
  const usage: Usage = { inputTokens: inputLength(request), outputTokens: reply.text.length };
  last.items.push({
    kind: 'chunk',
    chunk: { type: 'done', finishReason: tools.length > 0 ? 'tool_calls' : 'stop', usage },
  });
  last.items.push({ kind: 'end' });
  // Intermediate slots whose pieces were all empty carry nothing: no timer is needed for them.
  return slots.filter((slot) => slot.items.length > 0);
}

/** `n` pieces by code points, as equal as possible, the longer ones first. */
function splitCodePoints(text: string, n: number): string[] {
  const points = Array.from(text);
  const base = Math.floor(points.length / n);
  const extra = points.length % n;
  const pieces: string[] = [];
  let at = 0;
  for (let k = 0; k < n; k++) {
    const size = base + (k < extra ? 1 : 0);
    pieces.push(points.slice(at, at + size).join(''));
    at += size;
  }
  return pieces;
}

/**
 * A stand-in usage figure: the number of request messages. Summing their text would make every call
 * of a long run cost the whole history, and nothing reads the number but the kernel's usage sum.
 */
function inputLength(request: ModelRequest): number {
  return request.messages.length;
}

interface Pending {
  readonly resolve: (result: IteratorResult<ModelChunk, undefined>) => void;
  readonly reject: (error: unknown) => void;
}

interface LiveSlot {
  readonly atMs: number;
  readonly items: Item[];
  readonly id: TimerId;
  /** Set by a cancel whose lag ends exactly at this slot: the abort end follows its items. */
  endsAfter: boolean;
}

/**
 * One call: its live timers, the buffer they fill and the consumers waiting on it. Ended means the
 * producer side is finished (no timer, no listener); the buffer may still hold items to read.
 */
class FakeStream implements AsyncIterableIterator<ModelChunk, undefined> {
  private readonly buffer: Item[] = [];
  private readonly waiting: Pending[] = [];
  private readonly live: LiveSlot[] = [];
  private ended = false;
  /** The consumer has read the terminal item (or returned): every later next() is done. */
  private finished = false;
  private cancelAware = true;
  private cancelLagMs = 0;
  private readonly onAbort = (): void => this.cancel();

  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly ledger: Ledger,
  ) {}

  /** Schedules the whole timeline now (timer-first) and starts listening for the abort. */
  start(plan: Plan): void {
    this.cancelAware = plan.cancelAware;
    this.cancelLagMs = plan.cancelLagMs;
    for (const slot of plan.slots) this.schedule(slot.offsetMs, slot.items);
    this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The signal was already aborted at call time: the call ends at once, without a timer. */
  abortNow(): void {
    this.end({ kind: 'throw', error: abortError(this.signal) });
  }

  timerCount(): number {
    return this.live.length;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelChunk, undefined>> {
    const item = this.buffer.shift();
    if (item !== undefined) return settle(this.take(item));
    if (this.finished || this.ended) {
      this.finished = true;
      return Promise.resolve(DONE);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** The consumer stops early: the call's timers are cleared and it closes now. */
  return(): Promise<IteratorResult<ModelChunk, undefined>> {
    this.buffer.length = 0;
    this.finished = true;
    this.close();
    for (const waiter of this.waiting.splice(0)) waiter.resolve(DONE);
    return Promise.resolve(DONE);
  }

  private schedule(offsetMs: number, items: Item[], endsAfter = false): void {
    const atMs = this.clock.now() + offsetMs;
    const slot: LiveSlot = {
      atMs,
      items,
      endsAfter,
      id: this.clock.setTimer(offsetMs, () => this.fire(slot)),
    };
    this.live.push(slot);
  }

  private fire(slot: LiveSlot): void {
    const at = this.live.indexOf(slot);
    if (at >= 0) this.live.splice(at, 1);
    for (const item of slot.items) this.push(item);
    if (slot.endsAfter) this.end({ kind: 'throw', error: abortError(this.signal) });
  }

  /** Abort listener; see the theory of operation for the lag window. */
  private cancel(): void {
    if (this.ended || !this.cancelAware) return;
    const abortAtMs = this.clock.now();
    const cutoffMs = abortAtMs + this.cancelLagMs;
    for (const slot of [...this.live]) {
      if (slot.atMs <= abortAtMs || slot.atMs > cutoffMs) this.drop(slot);
    }
    if (this.cancelLagMs === 0) {
      this.end({ kind: 'throw', error: abortError(this.signal) });
      return;
    }
    // A slot due exactly at the cutoff ends the call itself, after its items: a separate end timer
    // at the same instant could be reordered before it by tie shuffling.
    const atCutoff = this.live.find((slot) => slot.atMs === cutoffMs);
    if (atCutoff !== undefined) atCutoff.endsAfter = true;
    else this.schedule(this.cancelLagMs, [], true);
  }

  private drop(slot: LiveSlot): void {
    this.clock.clearTimer(slot.id);
    const at = this.live.indexOf(slot);
    if (at >= 0) this.live.splice(at, 1);
  }

  /** A terminal item: buffered (or handed over) like any other, then the producer side closes. */
  private end(item: Item): void {
    if (this.ended) return;
    this.push(item);
    this.close();
  }

  private push(item: Item): void {
    if (this.ended) return;
    const waiter = this.waiting.shift();
    if (waiter === undefined) {
      this.buffer.push(item);
    } else {
      const result = this.take(item);
      if (result.ok) waiter.resolve(result.value);
      else waiter.reject(result.error);
      // A terminal item answers the first waiter; any others see the end.
      if (this.finished) for (const other of this.waiting.splice(0)) other.resolve(DONE);
    }
    if (item.kind !== 'chunk') this.close();
  }

  /** Turns an item into the consumer's result, marking the stream finished on a terminal one. */
  private take(item: Item): Outcome {
    switch (item.kind) {
      case 'chunk':
        return { ok: true, value: { done: false, value: item.chunk } };
      case 'end':
        this.finished = true;
        return { ok: true, value: DONE };
      case 'throw':
        this.finished = true;
        return { ok: false, error: item.error };
    }
  }

  /** Producer side ends: clear every timer, drop the abort listener, tell the provider. */
  private close(): void {
    if (this.ended) return;
    this.ended = true;
    for (const slot of this.live.splice(0)) this.clock.clearTimer(slot.id);
    this.signal.removeEventListener('abort', this.onAbort);
    this.ledger.onClose(this);
  }
}

type Outcome =
  | { readonly ok: true; readonly value: IteratorResult<ModelChunk, undefined> }
  | { readonly ok: false; readonly error: Error };

const DONE: IteratorResult<ModelChunk, undefined> = { done: true, value: undefined };

function settle(outcome: Outcome): Promise<IteratorResult<ModelChunk, undefined>> {
  return outcome.ok ? Promise.resolve(outcome.value) : Promise.reject(outcome.error);
}
