/**
 * The tools one agent may call, as its model sees them: the ToolRunner's tools plus the built-ins its
 * grants allow. Built-ins own their names — a runner tool with a built-in's name would be unreachable,
 * so it is left out. A list is immutable: when the runner's tools change (`tools.set`), the agent makes a
 * new one. Built-ins run inside the kernel, the rest leave as `tool.run` commands.
 */
import type { ToolSpec } from '../ports/provider.ts';
import { BuiltinTools, type BuiltinGrants, type BuiltinRun } from '../builtins/builtins.ts';

export class AgentTools {
  private readonly builtins: BuiltinTools;
  /** Runner tools first, then built-ins, in the order the model sees them. */
  readonly specs: readonly ToolSpec[];
  private readonly byName: Map<string, ToolSpec>;

  constructor(runnerTools: readonly ToolSpec[], grants: BuiltinGrants) {
    this.builtins = new BuiltinTools(grants);
    const reachable = runnerTools.filter((t) => this.builtins.lookup(t.name) === undefined);
    this.specs = [...reachable, ...this.builtins.specs];
    this.byName = new Map(this.specs.map((t) => [t.name, t]));
  }

  spec(name: string): ToolSpec | undefined {
    return this.byName.get(name);
  }

  /** Listed tools, plus every `output_send__<x>`, which is refused at the call site when not granted. */
  knows(name: string): boolean {
    return this.byName.has(name) || this.builtins.lookup(name) !== undefined;
  }

  /** The built-in implementation of a tool, or undefined for a runner tool. */
  builtin(name: string): BuiltinRun | undefined {
    return this.builtins.lookup(name);
  }
}
