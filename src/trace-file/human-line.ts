/**
 * The human trace line: one dense line per event, VOPR-style, in the production log, the report's
 * violation context and the timeline view. Unlike the canonical line it is for reading, not hashing:
 * long texts are cut.
 */
import { assertNever, type TraceEvent } from '../kernel/index.ts';

/** Replies, results and arguments are cut to this many code points in human trace lines. */
const TEXT_SHOWN_MAX = 60;

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
    case 'tools.set':
      return `[${e.tools.join(',')}]`;
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
