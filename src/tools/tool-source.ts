/**
 * A source of tools for serve: a ToolRunner that also says which tools it has, so the kernel can be told
 * of them and calls can be routed to it.
 */
import type { ToolRunner, ToolSpec } from '../kernel/index.ts';

export interface ToolSource extends ToolRunner {
  /** The tools as the model is told of them. */
  specs(): ToolSpec[];
  /** Whether a call of `name` belongs to this source (a tool it has, or had, or may have again). */
  owns(name: string): boolean;
}
