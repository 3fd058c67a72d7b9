/**
 * The trace writer (ARCHITECTURE "Determinism rules" 5): canonical JSON lines, their SHA-256 (the run's
 * fingerprint), and the dense one-line-per-event format of human logs.
 *
 * Canonical form: one JSON object per event with the keys `seq, t, agent, type` first, then the body's
 * keys in the order trace.ts builds them; numbers as ECMAScript prints them (shortest round trip, so the
 * same number always prints the same), `-0` as `0`. A non-finite number or an `undefined` value is a
 * bug in the event's producer (JSON would silently turn them into `null` or drop the key, and the hash
 * would no longer describe the event), so both are assertion failures.
 *
 * What the hash covers: exactly the event lines, each followed by "\n", in emission order. The optional
 * header line (seed, scenario name, …) is written to the trace file only and is NOT hashed, so a golden
 * hash does not change when a scenario is renamed or run with another command line, and two runs can
 * be compared whatever their headers say.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { AssertionError, assertNever, type TraceEvent, type TraceSink } from '../kernel/index.ts';

const LEAD_KEYS: ReadonlySet<string> = new Set(['seq', 't', 'agent', 'type']);
/** Buffered file output is flushed when it grows past this many UTF-16 units. */
const FILE_BUFFER_MAX = 1 << 16;
/** Hash input is batched up to this many UTF-16 units. */
const HASH_BATCH = 1 << 15;
/** Replies, results and arguments are cut to this many code points in human trace lines. */
const TEXT_SHOWN_MAX = 60;

/**
 * The canonical JSON line of one event (no trailing newline). The kernel's Tracer builds every event
 * with the lead keys first, so `JSON.stringify` already produces the canonical form; it is the hot path
 * of every simulated run. `strictCanonicalLine` is the checking twin: tests compare the two over whole
 * traces, so a NaN or an undefined slipping into an event fails a test instead of skewing hashes.
 */
export function canonicalLine(e: TraceEvent): string {
  return JSON.stringify(e);
}

/** The canonical line built field by field, asserting finite numbers and plain JSON values. */
export function strictCanonicalLine(e: TraceEvent): string {
  const record = e as unknown as Readonly<Record<string, unknown>>;
  let out = `{"seq":${jsonValue(e.seq, 'seq')},"t":${jsonValue(e.t, 't')},"agent":${jsonValue(e.agent, 'agent')},"type":${jsonValue(e.type, 'type')}`;
  for (const key of Object.keys(record)) {
    if (LEAD_KEYS.has(key)) continue;
    out += `,${JSON.stringify(key)}:${jsonValue(record[key], key)}`;
  }
  return `${out}}`;
}

/**
 * Canonical JSON of plain data (objects in insertion order, arrays, strings, finite numbers, booleans,
 * null). `path` names the value in assertion messages.
 */
export function canonicalJson(value: unknown, path = '$'): string {
  return jsonValue(value, path);
}

function jsonValue(value: unknown, path: string): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new AssertionError(`TRACE: ${path} is ${String(value)}; trace numbers must be finite`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        const items: string[] = [];
        for (let i = 0; i < value.length; i += 1) items.push(jsonValue(value[i], `${path}[${i}]`));
        return `[${items.join(',')}]`;
      }
      const record = value as Readonly<Record<string, unknown>>;
      const fields: string[] = [];
      for (const key of Object.keys(record)) fields.push(`${JSON.stringify(key)}:${jsonValue(record[key], `${path}.${key}`)}`);
      return `{${fields.join(',')}}`;
    }
    default:
      throw new AssertionError(`TRACE: ${path} is ${typeof value}; trace values must be plain JSON data`);
  }
}

export type TraceHeader = Readonly<Record<string, string | number | boolean | null>>;

export interface TraceHasherOptions {
  /** Also write the lines to this file (created or truncated), the header first. */
  readonly path?: string;
  /** The file's first line, `{"type":"trace.header",…}`. Not hashed. Ignored without `path`. */
  readonly header?: TraceHeader;
  /** Also keep the lines (without newlines) in memory, readable through `lines`. */
  readonly keepLines?: boolean;
}

/**
 * A TraceSink that hashes every canonical line incrementally; optionally writes them to a file and/or
 * keeps them. Call `close()` when the run ends if a file was requested.
 */
export class TraceHasher implements TraceSink {
  private readonly hash: Hash = createHash('sha256');
  private readonly kept: string[] | null;
  private fd: number | null = null;
  private buffered: string[] = [];
  private bufferedLength = 0;
  private count = 0;
  /** Lines not yet fed to the hash: one native `update` per batch instead of per event. */
  private pendingHash = '';

  constructor(opts: TraceHasherOptions = {}) {
    this.kept = opts.keepLines === true ? [] : null;
    if (opts.path !== undefined) {
      this.fd = openSync(opts.path, 'w');
      if (opts.header !== undefined) this.write(`${canonicalJson({ type: 'trace.header', ...opts.header })}\n`);
    }
  }

  emit(event: TraceEvent): void {
    const line = canonicalLine(event);
    this.count += 1;
    this.pendingHash += `${line}\n`;
    if (this.pendingHash.length >= HASH_BATCH) this.feedHash();
    if (this.kept !== null) this.kept.push(line);
    if (this.fd !== null) this.write(`${line}\n`);
  }

  /** Number of events hashed so far. */
  get events(): number {
    return this.count;
  }

  /** The kept lines (empty unless `keepLines`). */
  get lines(): readonly string[] {
    return this.kept ?? [];
  }

  /** Hex SHA-256 of the event lines so far; may be called any number of times. */
  digest(): string {
    this.feedHash();
    return this.hash.copy().digest('hex');
  }

  private feedHash(): void {
    if (this.pendingHash.length === 0) return;
    this.hash.update(this.pendingHash, 'utf8');
    this.pendingHash = '';
  }

  /** Flushes and closes the file, if any. Idempotent. */
  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private write(text: string): void {
    this.buffered.push(text);
    this.bufferedLength += text.length;
    if (this.bufferedLength >= FILE_BUFFER_MAX) this.flush();
  }

  private flush(): void {
    if (this.fd === null || this.buffered.length === 0) return;
    writeSync(this.fd, this.buffered.join(''));
    this.buffered = [];
    this.bufferedLength = 0;
  }
}

// ---------------------------------------------------------------- human lines

/**
 * One dense line per event, VOPR-style:
 * `t=1520ms #412 root  task.suspend      q7(L1,eff1) ← i3 at Model depth=1`.
 */
export function formatTraceLine(e: TraceEvent): string {
  const detail = describe(e);
  const head = `t=${e.t}ms #${e.seq} ${e.agent}  ${e.type.padEnd(16)}`;
  return detail === '' ? head.trimEnd() : `${head}  ${detail}`;
}

function describe(e: TraceEvent): string {
  switch (e.type) {
    case 'task.submitted':
      return [
        `${e.task} ${e.level === null ? e.class : `L${e.level}`}`,
        e.source === null ? '' : `src=${e.source}`,
        e.channel === null ? '' : `ch=${e.channel}`,
        e.kernel ? 'kernel' : '',
      ]
        .filter((s) => s !== '')
        .join(' ');
    case 'task.rejected':
      return `${e.task} reason=${e.reason}`;
    case 'backpressure':
      return `${e.task} queueLen=${e.queueLen}`;
    case 'interrupt.registered':
      return `${e.task} L${e.level}`;
    case 'preempt.armed':
      return `${e.task}(L${e.level}) → ${e.victim} reason=${e.reason}${e.evicted === null ? '' : ` evicted=${e.evicted}`}`;
    case 'preempt.deferred':
      return `${e.task} vs ${e.victim ?? '-'} reason=${e.reason}`;
    case 'queue.drop':
      return `${e.victim}(L${e.level}) dropped for ${e.for}`;
    case 'cooldown.timer':
      return `at=${e.atMs}ms`;
    case 'task.start':
      return `${e.task} from=${e.from}`;
    case 'task.suspend':
      return `${e.task}(${levelTag(e.level)},eff${e.eff}) ← ${e.by} at ${e.step} depth=${e.depthAfter} reason=${e.reason}`;
    case 'task.resume':
      return `${e.task}(${levelTag(e.level)},eff${e.eff}) after=${e.after ?? '-'} depth=${e.depthAfter}`;
    case 'critical.enter':
    case 'critical.leave':
      return e.task;
    case 'task.terminal':
      return `${e.task} ${e.kind}${e.reason === null ? '' : `/${e.reason}`}${e.reply === null ? '' : ` ${quote(e.reply)}`}`;
    case 'stop':
      return `${e.task} cancelled=[${e.cancelled.join(',')}] marked=${e.marked ?? '-'}`;
    case 'step.begin':
      return `${e.task} ${e.step} turn=${e.turn}`;
    case 'step.end':
      return `${e.task} ${e.step}`;
    case 'model.start':
      return `${e.task} call=${e.callId} turn=${e.turn} reply#${e.replyIndex}`;
    case 'model.end':
      return `${e.task} call=${e.callId} ${e.outcome} tools=[${e.toolCalls.map((c) => c.name).join(',')}]${e.error === null ? '' : ` error=${quote(e.error)}`}`;
    case 'model.cancel':
      return `${e.task} call=${e.callId} reason=${e.reason}`;
    case 'model.chunk.late':
    case 'tool.result.late':
      return `${e.task} call=${e.callId}`;
    case 'fact.discarded':
      return `call=${e.callId} ${e.fact}`;
    case 'route.fallback':
      return `${e.task} channel=${e.channel} owner=${e.owner} → handled here`;
    case 'channel.register':
      return `${e.name} plugin=${e.plugin || '-'} owner=${e.owner || '-'}`;
    case 'channel.unregister':
      return e.name;
    case 'output.sent':
      return `${e.task} on ${e.channel} ${cut(e.text)}`;
    case 'memory.commit':
      return `${e.task} session=${e.session} added=${e.added} skipped=${e.skipped}`;
    case 'memory.consolidate':
      return `${e.task} added=${e.added} skipped=${e.skipped}${e.malformed === null ? '' : ` malformed=${quote(e.malformed)}`}`;
    case 'tool.start':
      return `${e.task} call=${e.callId} ${e.name} ${cut(e.args)}`;
    case 'tool.end':
      return `${e.task} call=${e.callId} ${e.name} ${e.panicked ? 'PANIC' : e.ok ? 'ok' : 'ERR'} ${quote(e.result)}`;
    case 'context.commit':
      return `${e.task} kind=${e.kind} events=${e.events}`;
    case 'context.overflow':
      return `${e.task} pruned=${e.pruned} count=${e.count}`;
    case 'kernel.event':
      return `${e.task} cause=${e.cause} source=${e.source} reason=${e.reason}`;
    case 'invariant.violation':
      return `${e.invariant}${e.task === null ? '' : ` ${e.task}`} ${quote(e.message)}${e.cause === 0 ? '' : ` cause=#${e.cause}`}`;
    case 'agent.stop':
      return `ended=[${e.ended.join(',')}]`;
    case 'child.create':
      return `parent=${e.parent} kind=${e.kind} inputChs=[${e.inputChs.join(',')}]${e.taskPrompt === null ? '' : ` prompt=${quote(e.taskPrompt)}`}`;
    case 'child.destroy':
      return `parent=${e.parent} by=${e.by} residual=${e.residual} channels=${e.channels} released=[${e.released.join(',')}]`;
    case 'child.reclaim':
      return `parent=${e.parent} promoted=${e.promoted} skipped=${e.skipped}`;
    case 'child.send':
    case 'child.notify':
      return `${e.task} parent=${e.parent}`;
    case 'child.event':
      return `${e.task} child=${e.child} reason=${e.reason} L${e.level}`;
    case 'child.contextfull':
      return `parent=${e.parent} tokens=${e.tokens} window=${e.window}`;
    case 'child.compress':
      return `${e.task} older=${e.older} kept=${e.kept} summarised=${e.summarised} dropped=${e.dropped}`;
    case 'child.record':
      return `${e.task} inputch=${e.inputch} ${e.proactive ? 'note' : 'auto'}`;
    case 'task.moved':
      return `${e.task} → ${e.to}`;
    default:
      return assertNever(e, 'trace event');
  }
}

function levelTag(level: number | null): string {
  return level === null ? 'queued' : `L${level}`;
}

/** At most TEXT_SHOWN_MAX code points, with an ellipsis when cut. */
function cut(text: string): string {
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n === TEXT_SHOWN_MAX) return `${out}…`;
    out += ch;
    n += 1;
  }
  return out;
}

function quote(text: string): string {
  return JSON.stringify(cut(text));
}
