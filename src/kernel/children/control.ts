/**
 * The parent's control plane over its children (docs/spec.md §10.6): what the `resident_agents` tool calls.
 * Every action answers with a tool result — an unknown child id, a send to a stopped child, a bad
 * selection are tool errors the parent's model reads, never throws — and the parent keeps running.
 */
import type { ToolResult } from '../ports/tool-runner.ts';
import type { ChildSpec, Disposal } from './spec.ts';

export interface ChildControl {
  list(): ToolResult;
  create(spec: ChildSpec, nowMs: number): ToolResult;
  /** A parent message: an L4 interrupt on the child from `parent/<parentId>` (docs/spec.md §10.3). */
  send(id: string, text: string, nowMs: number): ToolResult;
  /** A read-only snapshot; the child's trace and state are the same before and after (S7). */
  inspect(id: string): ToolResult;
  /** Schedules the compress task on the child and returns at once (docs/spec.md §10.5). */
  compress(id: string, nowMs: number): ToolResult;
  /** Promotes the selected temp triples (`keep` indexes; absent = all) into main, then stops the child. */
  reclaim(id: string, keep: readonly number[] | undefined, disposal: Disposal, nowMs: number): ToolResult;
  destroy(id: string, disposal: Disposal, nowMs: number): ToolResult;
}

export const CONTROL_ACTIONS = ['list', 'create', 'send', 'inspect', 'compress', 'reclaim', 'destroy'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];
