/**
 * Built-in tools (docs/spec.md §3.8, §8.3–8.4, §9.1). They run inside the kernel, in the same reaction as
 * their ToolExec step: no `tool.run` command, no Runtime round trip, no virtual time. Expected
 * failures (bad arguments, a refusal, a missing memory) are tool errors (`ok: false`), never throws.
 *
 * Untrusted arguments are decoded by parsers injected through `MemoryPorts` (zod lives at the
 * boundary, in src/memory), so this file stays free of schema libraries.
 */
import { INPUT_CHANNELS_SPEC, runInputChannelsTool } from './input-channels.ts';
import { CHILD_TOOL_SPECS, CHILD_TOOLS, runChildTool, type ChildOps } from './child-tools.ts';
import { RESIDENT_AGENTS_SPEC, runResidentAgents } from './resident-agents.ts';
import type { ChildControl } from '../children/control.ts';
import type { ChildTool } from '../children/kind.ts';
import {
  checkOutputSend,
  OUTPUT_LIST_SPEC,
  OUTPUT_LIST_TOOL,
  OUTPUT_SEND_PREFIX,
  outputListView,
  outputToolSpecs,
  type OutputDevice,
} from '../channels/outputs.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import { commitCapped, formatRecall } from '../memory/rules.ts';
import { MemoryError, type CommitResult, type MemoryPorts } from '../ports/graph-memory.ts';
import type { ToolCall, ToolSpec } from '../ports/provider.ts';
import type { ToolResult } from '../ports/tool-runner.ts';

/** What a built-in may touch: the calling agent's grants, the shared registry, its memory. */
export interface BuiltinContext {
  readonly agent: string;
  readonly task: string;
  readonly registry: ChannelRegistry;
  readonly devices: readonly OutputDevice[];
  readonly allowedOutputs: readonly string[];
  readonly memory: MemoryPorts | null;
  readonly nowMs: number;
  /** Sends text on an output channel (traced and handed to the Runtime as a command). */
  send(channel: string, text: string): void;
  /** Records a memory commit (traced). */
  committed(result: CommitResult, session: string): void;
  /** A child's reach to its parent and its table; null on the root. */
  readonly child: ChildOps | null;
  /** The control plane over this agent's children (`resident_agents`); null where the tool is not offered. */
  readonly control: ChildControl | null;
}

/** Which built-ins an agent gets, from its grants and its place in the tree. */
export interface BuiltinGrants {
  readonly devices: readonly OutputDevice[];
  readonly allowedOutputs: readonly string[];
  readonly hasMemory: boolean;
  /** False for agents that may only read memory (rt children): `memory_write` is not offered. */
  readonly memoryWrites?: boolean;
  /** The child-only tools of a child's kind (docs/spec.md §10.3–10.4). */
  readonly childTools?: readonly ChildTool[];
  /** Offer `resident_agents` (the root, docs/spec.md §10.6). */
  readonly residentAgents?: boolean;
}

export type BuiltinRun = (ctx: BuiltinContext, call: ToolCall) => ToolResult;

export const MEMORY_RECALL_SPEC: ToolSpec = Object.freeze({
  name: 'memory_recall',
  description: 'Recall entities and relations from graph memory matching keywords.',
  parameters: Object.freeze({
    type: 'object',
    properties: { keywords: { type: 'array', items: { type: 'string' } }, depth: { type: 'number' } },
    required: ['keywords'],
  }),
  parallelSafe: true,
});

export const MEMORY_WRITE_SPEC: ToolSpec = Object.freeze({
  name: 'memory_write',
  description: 'Write facts to graph memory as triples {subject, relation, object, sentence?}.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      triples: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            subject: { type: 'string' },
            relation: { type: 'string' },
            object: { type: 'string' },
            sentence: { type: 'string' },
          },
          required: ['subject', 'relation', 'object'],
        },
      },
    },
    required: ['triples'],
  }),
  parallelSafe: false,
});

/** The built-in tools of one agent: their specs (as the model sees them) and their implementations. */
export class BuiltinTools {
  private readonly runs = new Map<string, BuiltinRun>();
  readonly specs: readonly ToolSpec[];

  constructor(grants: BuiltinGrants) {
    const { devices, allowedOutputs, hasMemory } = grants;
    const specs: ToolSpec[] = [INPUT_CHANNELS_SPEC, OUTPUT_LIST_SPEC];
    this.runs.set(INPUT_CHANNELS_SPEC.name, (ctx, call) => runInputChannelsTool(ctx.registry, ctx.agent, call.args));
    this.runs.set(OUTPUT_LIST_TOOL, (ctx) => ({
      ok: true,
      output: outputListView(ctx.devices, ctx.allowedOutputs, ctx.registry),
    }));
    specs.push(...outputToolSpecs(devices, allowedOutputs));
    if (hasMemory) {
      specs.push(MEMORY_RECALL_SPEC);
      this.runs.set(MEMORY_RECALL_SPEC.name, memoryRecall);
      if (grants.memoryWrites !== false) {
        specs.push(MEMORY_WRITE_SPEC);
        this.runs.set(MEMORY_WRITE_SPEC.name, memoryWrite);
      }
    }
    // The tree's tools are known to every agent, listed only where granted: a child that calls
    // `resident_agents`, or a root that calls `notify_parent`, gets a tool error that says why.
    // Stryker disable next-line ArrayDeclaration: the set is asked only about the two child tools' names
    const granted = new Set<string>(grants.childTools ?? []);
    for (const tool of CHILD_TOOLS) {
      if (granted.has(tool)) specs.push(CHILD_TOOL_SPECS[tool]);
      this.runs.set(tool, (ctx, call) =>
        ctx.child === null || !granted.has(tool)
          ? { ok: false, output: `${tool} is a child-only tool; this agent has no parent to reach` }
          : runChildTool(tool, ctx.child, call.args),
      );
    }
    if (grants.residentAgents === true) specs.push(RESIDENT_AGENTS_SPEC);
    this.runs.set(RESIDENT_AGENTS_SPEC.name, (ctx, call) =>
      ctx.control === null || grants.residentAgents !== true
        ? { ok: false, output: `${RESIDENT_AGENTS_SPEC.name} is offered to the root agent only` }
        : runResidentAgents(ctx.control, call.args, ctx.nowMs),
    );
    this.specs = specs;
  }

  /**
   * The implementation for a tool name, or undefined. Every `output_send__<x>` name resolves, listed or
   * not, so a direct call to an unauthorised channel is refused at the call site (docs/spec.md §8.4) rather
   * than reported as an unknown tool.
   */
  lookup(name: string): BuiltinRun | undefined {
    const run = this.runs.get(name);
    if (run !== undefined) return run;
    return name.startsWith(OUTPUT_SEND_PREFIX) && name.length > OUTPUT_SEND_PREFIX.length ? outputSend : undefined;
  }
}

const outputSend: BuiltinRun = (ctx, call) => {
  const channel = call.name.slice(OUTPUT_SEND_PREFIX.length);
  const check = checkOutputSend(ctx.devices, ctx.allowedOutputs, channel, call.args);
  if (!check.ok) return { ok: false, output: check.error };
  ctx.send(channel, check.text);
  return { ok: true, output: 'ok' };
};

const memoryRecall: BuiltinRun = (ctx, call) => {
  const memory = ctx.memory as MemoryPorts;
  const args = memory.parsers.memoryRecallArgs(call.args);
  if (!args.ok) return { ok: false, output: args.error };
  return memoryGuard(() => ({
    ok: true,
    output: formatRecall(memory.store.recall(args.value.keywords, args.value.depth)),
  }));
};

const memoryWrite: BuiltinRun = (ctx, call) => {
  const memory = ctx.memory as MemoryPorts;
  const args = memory.parsers.memoryWriteArgs(call.args);
  if (!args.ok) return { ok: false, output: args.error };
  const session = `task/${ctx.task}`;
  return memoryGuard(() => {
    const result = commitCapped(memory.store, args.value.triples, session, 0, ctx.nowMs);
    ctx.committed(result, session);
    return { ok: true, output: `added ${result.added}, skipped ${result.skipped}` };
  });
};

/**
 * A store failure (locked or missing database, read-only refusal) is an expected outcome: the tool
 * reports it and the kernel keeps running; a commit is one transaction, so nothing half-written stays.
 */
export function memoryGuard(work: () => ToolResult): ToolResult {
  try {
    return work();
  } catch (err) {
    if (err instanceof MemoryError) return { ok: false, output: `memory error: ${err.message}` };
    throw err;
  }
}
