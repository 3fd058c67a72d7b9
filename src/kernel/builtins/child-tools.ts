/**
 * The child-only built-ins (docs/spec.md §10.3, §10.4): `notify_parent(text)` raises an L3 interrupt on the
 * parent from `child/<id>`; `inputch_note(text)` writes the round's processing-table record (the note
 * wins over the automatic one). Both run inside the kernel, take no virtual time, and answer a bad
 * argument with a tool error.
 */
import type { ToolSpec } from '../ports/provider.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import type { ChildTool } from '../children/kind.ts';
import { objectArgs, requiredText } from './args.ts';

/** What a child's built-ins reach: its parent and its own table. */
export interface ChildOps {
  notifyParent(text: string): void;
  note(text: string): void;
}

/** Both tools take one required string, `text`, and nothing else. */
const TEXT_PARAMETERS = Object.freeze({
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
});

/** The child tools, in the order they are listed to the model. */
export const CHILD_TOOLS: readonly ChildTool[] = Object.freeze(['notify_parent', 'inputch_note'] as const);

export const CHILD_TOOL_SPECS: Readonly<Record<ChildTool, ToolSpec>> = Object.freeze({
  notify_parent: Object.freeze({
    name: 'notify_parent',
    description: 'Tell your parent agent something that needs its attention (an interrupt on the parent).',
    parameters: TEXT_PARAMETERS,
    parallelSafe: false,
  }),
  inputch_note: Object.freeze({
    name: 'inputch_note',
    description: "Write this round's record in your processing table (replaces the automatic record).",
    parameters: TEXT_PARAMETERS,
    parallelSafe: false,
  }),
});

export function runChildTool(tool: ChildTool, ops: ChildOps, raw: unknown): ToolResult {
  const args = objectArgs(raw, tool, '{"text":"..."}');
  if (typeof args === 'string') return { ok: false, output: args };
  const text = requiredText(args, 'text', tool);
  if (typeof text !== 'string') return { ok: false, output: text.error };
  switch (tool) {
    case 'notify_parent':
      ops.notifyParent(text);
      return { ok: true, output: 'parent notified' };
    case 'inputch_note':
      ops.note(text);
      return { ok: true, output: 'noted' };
  }
}
