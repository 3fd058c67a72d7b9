/**
 * Child kinds (docs/spec.md §10.1, seeds/child-kinds.go.txt). The tree's skeleton (tree.ts) does what every
 * kind shares — validate, reject duplicate ids, derive the child's config from its parent's, give it
 * its own intake on the shared registry, register it, start it; stop = revoke, unregister the inbound
 * channel, cancel, dispose. What differs between kinds is this strategy, so a third kind is one more
 * value of `ChildKind` handed to the kernel, and the skeleton does not change.
 */
import type { ChannelDisposition, ResidualPolicy } from './dispositions.ts';

/** The child-only built-in tools a kind may offer its children (docs/spec.md §10.3, §10.4). */
export type ChildTool = 'notify_parent' | 'inputch_note';

export interface ChildKind {
  readonly name: string;
  /**
   * deliver: `queue` — the child's own full scheduler (two classes, four levels, the stack) takes every
   * input; `slot` — one input slot where the newest input wins: whatever is pending or running ends
   * `superseded` (its frame is dropped, never saved) and the newcomer takes the slot (C1, C2).
   */
  readonly deliver: 'queue' | 'slot';
  /** buildContext: the child's system prompt — the task prompt on top of the parent's (docs/spec.md §10.2). */
  systemPrompt(parentPrompt: string, taskPrompt: string): string;
  /** emit: whether each successful round writes a processing-table record (docs/spec.md §10.4). */
  readonly keepsTable: boolean;
  /** runTools: whether the child's model may write memory (rt children write none). */
  readonly memoryWrites: boolean;
  /** dispose: the defaults of a destroy or reclaim that names no policy. */
  readonly dispose: { readonly residual: ResidualPolicy; readonly channels: ChannelDisposition };
  /** parentTools: the child-only built-ins its children get. */
  readonly parentTools: readonly ChildTool[];
}

function taskPromptOnTop(parentPrompt: string, taskPrompt: string): string {
  return taskPrompt.length === 0 ? parentPrompt : `${taskPrompt}\n\n${parentPrompt}`;
}

/** resident: the child's own full scheduler, a queue that never drops work, light memory (docs/spec.md §10.1). */
export const RESIDENT_KIND: ChildKind = Object.freeze({
  name: 'resident',
  deliver: 'queue',
  systemPrompt: taskPromptOnTop,
  keepsTable: true,
  memoryWrites: true,
  dispose: Object.freeze({ residual: 'keep', channels: 'release' }),
  parentTools: Object.freeze(['notify_parent', 'inputch_note'] as const),
});

/**
 * rt (real-time, e.g. a voice call): a resident but for one input slot where the newest wins, no
 * memory writes, and channels left where they are on destroy (docs/spec.md §10.1).
 */
export const RT_KIND: ChildKind = Object.freeze({
  ...RESIDENT_KIND,
  name: 'rt',
  deliver: 'slot',
  memoryWrites: false,
  // A voice call's channel stays where it is when the call's agent goes (docs/spec.md §10.1).
  dispose: Object.freeze({ residual: 'keep', channels: 'keep' }),
});

/** The kinds a kernel knows unless it is given others. */
export const BUILTIN_CHILD_KINDS: readonly ChildKind[] = Object.freeze([RESIDENT_KIND, RT_KIND]);
