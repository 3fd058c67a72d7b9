/**
 * One parent's control plane over its children (docs/spec.md §10.3, §10.5, §10.6): the `ChildControl` that
 * the `resident_agents` tool calls. Each action checks that the child exists, is this parent's and
 * (for anything but inspect and list) is still running, then acts through the tree; every refusal is
 * a tool error that names the child and what to do instead.
 */
import type { Agent } from '../agent/agent.ts';
import { MemoryError, type CommitResult, type GraphMemory } from '../ports/graph-memory.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import { COMPRESS_CHANNEL } from '../steps/compress.ts';
import type { TraceBody, Tracer } from '../trace/vocabulary.ts';
import type { ChildControl } from './control.ts';
import { homeChannel, type AgentTree } from './tree.ts';
import { parentSource, type ChildSpec, type Disposal } from './spec.ts';

/** Triples an inspect lists, and the most a reclaim's selection can index. */
const EXPORT_LIMIT = 1_000;

const ok = (output: string): ToolResult => ({ ok: true, output });
const err = (output: string): ToolResult => ({ ok: false, output });

export class ControlPlane implements ChildControl {
  constructor(
    private readonly tree: AgentTree,
    private readonly parentId: string,
    private readonly main: GraphMemory | null,
    private readonly tracer: Tracer | null,
  ) {}

  list(): ToolResult {
    const rows = this.tree.children(this.parentId).map((c) => {
      const d = c.dump();
      return {
        id: d.id,
        kind: d.kind,
        state: d.state,
        inputChs: d.inputChs,
        allowedOutputs: d.allowedOutputs,
        rounds: d.rounds,
        tableSize: d.tableSize,
        createdAt: c.seat?.createdAtMs ?? 0,
        offloadOwned: d.offloadOwned,
      };
    });
    return ok(rows.length === 0 ? 'no child agents' : JSON.stringify(rows));
  }

  create(spec: ChildSpec, nowMs: number): ToolResult {
    const created = this.tree.create(this.parentId, spec, nowMs);
    // The role names the child's kind, as list and inspect show it.
    return created.ok ? ok(`created ${created.agent.role.kind} ${spec.id}`) : err(created.error);
  }

  send(id: string, text: string, nowMs: number): ToolResult {
    const child = this.live(id, 'send');
    if (typeof child === 'string') return err(child);
    const task = child.createTreeTask(
      { level: 4, source: parentSource(this.parentId), channel: homeChannel(child), text },
      nowMs,
    );
    // A live child always takes the message (`live` refused a stopped one).
    const taskId = (task as { readonly id: string }).id;
    this.trace(child.agentId, nowMs, { type: 'child.send', task: taskId, parent: this.parentId });
    return ok(`sent to ${id} as task ${taskId}`);
  }

  inspect(id: string): ToolResult {
    const child = this.own(id);
    if (typeof child === 'string') return err(child);
    const d = child.dump();
    const s = d.scheduler;
    const levelQueued =
      s.levelQueues[1].length + s.levelQueues[2].length + s.levelQueues[3].length + s.levelQueues[4].length;
    const snapshot = {
      id: d.id,
      kind: d.kind,
      state: d.state,
      table: d.table,
      // A stopped child's temp store was deleted with it: there is nothing left to list.
      tempTriples: child.isStopped() ? [] : (child.seat?.memory?.exportTriples(EXPORT_LIMIT) ?? []),
      scheduler: {
        running: s.running?.id ?? null,
        immediate: s.immediate?.id ?? null,
        levelQueued,
        queued: s.queue.length,
        stackDepth: s.stack.length,
      },
      contextEvents: d.context.length,
      contextTokens: child.context.accumulatedTokens(),
      window: child.seat?.windowTokens ?? 0,
      droppedByCompress: d.droppedByCompress,
      offloadOwned: d.offloadOwned,
    };
    return ok(JSON.stringify(snapshot));
  }

  compress(id: string, nowMs: number): ToolResult {
    const child = this.live(id, 'compress');
    if (typeof child === 'string') return err(child);
    child.createTreeTask(
      // Stryker disable next-line StringLiteral: a compress task's text is never read: its Model step writes its own messages
      {
        level: 4,
        source: parentSource(this.parentId),
        channel: COMPRESS_CHANNEL,
        text: 'compress the conversation context',
        compress: true,
      },
      nowMs,
    );
    return ok('compress scheduled');
  }

  reclaim(id: string, keep: readonly number[] | undefined, disposal: Disposal, nowMs: number): ToolResult {
    const child = this.live(id, 'reclaim');
    if (typeof child === 'string') return err(child);
    const seat = child.seat;
    const memory = seat?.memory ?? null;
    let promoted = 0;
    let skipped = 0;
    if (memory !== null && this.main !== null) {
      let result: CommitResult;
      try {
        const exported = memory.exportTriples(EXPORT_LIMIT).length;
        const bad = (keep ?? []).filter((k) => k >= exported);
        if (bad.length > 0) {
          return err(
            `reclaim ${id}: keep indexes ${bad.join(', ')} are out of range; ${id} has ${exported} temp triples (0..${exported - 1}), see inspect`,
          );
        }
        result = memory.promote(this.main, keep, id, nowMs);
      } catch (e) {
        // A store failure is an expected outcome: the promotion is one transaction, so nothing moved.
        if (e instanceof MemoryError)
          return err(`reclaim ${id}: memory error: ${e.message}; nothing was promoted and ${id} keeps running`);
        throw e;
      }
      promoted = result.added;
      skipped = result.skipped;
    } else if (keep !== undefined && keep.length > 0) {
      return err(`reclaim ${id}: the child has no temp memory, so keep must be empty or absent`);
    }
    this.trace(id, nowMs, { type: 'child.reclaim', parent: this.parentId, promoted, skipped });
    this.tree.dispose(child, 'reclaim', disposal, nowMs);
    return ok(`reclaimed ${id}: ${promoted} triples promoted, ${skipped} skipped`);
  }

  destroy(id: string, disposal: Disposal, nowMs: number): ToolResult {
    const child = this.live(id, 'destroy');
    if (typeof child === 'string') return err(child);
    this.tree.dispose(child, 'destroy', disposal, nowMs);
    return ok(`destroyed ${id}`);
  }

  /** The child `id` of this parent, live or stopped, or the error that says why not. */
  private own(id: string): Agent | string {
    const child = this.tree.get(id);
    const mine = this.tree.children(this.parentId);
    if (child === undefined || !mine.includes(child)) {
      const ids = mine.map((c) => c.agentId);
      return `unknown child ${JSON.stringify(id)}; children of ${this.parentId}: ${ids.length === 0 ? 'none' : ids.join(', ')}`;
    }
    return child;
  }

  private live(id: string, action: string): Agent | string {
    const child = this.own(id);
    if (typeof child === 'string') return child;
    if (child.isStopped()) return `cannot ${action} ${id}: it has stopped (create a new child instead)`;
    return child;
  }

  private trace(agent: string, nowMs: number, body: TraceBody): void {
    this.tracer?.emit(agent, nowMs, body);
  }
}
