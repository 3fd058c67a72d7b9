/**
 * The `resident_agents` built-in (docs/spec.md §10.6, root only): one tool, seven actions over the agent's
 * children. This file only reads the untrusted arguments — types checked here, no schema library in
 * the kernel — and hands a well-formed request to the control plane; every mistake (an unknown
 * argument, an unknown action, a missing id, a residual policy that does not exist) is a tool error
 * that names the fix.
 */
import { CONTROL_ACTIONS, type ChildControl, type ControlAction } from '../children/control.ts';
import {
  CHANNEL_DISPOSITIONS,
  RESIDUAL_POLICIES,
  type ChannelDisposition,
  type ResidualPolicy,
} from '../children/dispositions.ts';
import type { ChildSpec, Disposal } from '../children/spec.ts';
import type { ToolSpec } from '../ports/provider.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import { objectArgs, requiredText, unknownArgument, type ArgsObject } from './args.ts';

export const RESIDENT_AGENTS_TOOL = 'resident_agents';

/**
 * The tool's argument names (docs/spec.md §9.1), in that order: the only keys it accepts. They are the
 * model's vocabulary, snake_case like every built-in's; any other key — a camelCase guess included —
 * is a tool error that names it, never silently ignored.
 */
export const RESIDENT_AGENTS_ARGS = [
  'action',
  'id',
  'kind',
  'task_prompt',
  'input_chs',
  'allowed_outputs',
  'tools',
  'capacity',
  'text',
  'residual',
  'channels',
  'keep',
] as const;

/** The tool as the model sees it. */
export const RESIDENT_AGENTS_SPEC: ToolSpec = Object.freeze({
  name: RESIDENT_AGENTS_TOOL,
  description:
    'Manage your resident child agents. Actions: list; create {id, kind?, input_chs?, allowed_outputs?, tools?, ' +
    'task_prompt?, capacity?}; send {id, text}; inspect {id}; compress {id}; ' +
    'reclaim {id, keep?: [indexes], residual?, channels?}; destroy {id, residual?: keep|drop, channels?: release|keep|handback}.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      action: { type: 'string', enum: [...CONTROL_ACTIONS] },
      id: { type: 'string' },
      kind: { type: 'string' },
      task_prompt: { type: 'string' },
      input_chs: { type: 'array', items: { type: 'string' } },
      allowed_outputs: { type: 'array', items: { type: 'string' } },
      tools: { type: 'array', items: { type: 'string' } },
      capacity: { type: 'number' },
      text: { type: 'string' },
      residual: { type: 'string', enum: [...RESIDUAL_POLICIES] },
      channels: { type: 'string', enum: [...CHANNEL_DISPOSITIONS] },
      keep: { type: 'array', items: { type: 'number' } },
    },
    required: ['action'],
    additionalProperties: false,
  }),
  parallelSafe: false,
});

const err = (output: string): ToolResult => ({ ok: false, output });

function isAction(v: unknown): v is ControlAction {
  return typeof v === 'string' && (CONTROL_ACTIONS as readonly string[]).includes(v);
}

export function runResidentAgents(control: ChildControl, raw: unknown, nowMs: number): ToolResult {
  const args = objectArgs(raw, RESIDENT_AGENTS_TOOL, '{"action":"list"}');
  if (typeof args === 'string') return err(args);
  const unknown = unknownArgument(args, RESIDENT_AGENTS_ARGS, RESIDENT_AGENTS_TOOL);
  if (unknown !== null) return err(unknown);
  const action = args.action;
  if (!isAction(action)) {
    return err(
      `${RESIDENT_AGENTS_TOOL}: unknown action ${JSON.stringify(action ?? null)}; valid actions: ${CONTROL_ACTIONS.join(', ')}`,
    );
  }
  if (action === 'list') return control.list();
  const id = requiredText(args, 'id', `${RESIDENT_AGENTS_TOOL} ${action}`);
  if (typeof id !== 'string') return err(id.error);
  switch (action) {
    case 'create': {
      const spec = childSpec(id, args);
      return typeof spec === 'string' ? err(spec) : control.create(spec, nowMs);
    }
    case 'send': {
      const text = requiredText(args, 'text', `${RESIDENT_AGENTS_TOOL} send`);
      return typeof text === 'string' ? control.send(id, text, nowMs) : err(text.error);
    }
    case 'inspect':
      return control.inspect(id);
    case 'compress':
      return control.compress(id, nowMs);
    case 'reclaim': {
      const disposal = disposalOf(args, action);
      if (typeof disposal === 'string') return err(disposal);
      const keep = args.keep;
      if (
        keep !== undefined &&
        !(Array.isArray(keep) && keep.every((k) => Number.isInteger(k) && (k as number) >= 0))
      ) {
        return err(
          `${RESIDENT_AGENTS_TOOL} reclaim: keep must be an array of triple indexes (integers >= 0), as inspect lists them`,
        );
      }
      return control.reclaim(id, keep as number[] | undefined, disposal, nowMs);
    }
    case 'destroy': {
      const disposal = disposalOf(args, action);
      return typeof disposal === 'string' ? err(disposal) : control.destroy(id, disposal, nowMs);
    }
  }
}

function stringList(args: ArgsObject, field: string): readonly string[] | undefined | string {
  const v = args[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
    return `${RESIDENT_AGENTS_TOOL} create: ${field} must be an array of strings`;
  }
  return v as string[];
}

/** The create arguments (docs/spec.md §9.1 names) as the tree's spec (its own field names). */
function childSpec(id: string, args: ArgsObject): ChildSpec | string {
  const spec: Record<string, unknown> = { id };
  const lists = [
    ['input_chs', 'inputChs'],
    ['allowed_outputs', 'allowedOutputs'],
    ['tools', 'tools'],
  ] as const;
  for (const [arg, field] of lists) {
    const list = stringList(args, arg);
    if (typeof list === 'string') return list;
    // Stryker disable next-line ConditionalExpression: a field set to undefined means absent to every reader, which takes `?? default`
    if (list !== undefined) spec[field] = list;
  }
  const texts = [
    ['kind', 'kind'],
    ['task_prompt', 'taskPrompt'],
  ] as const;
  for (const [arg, field] of texts) {
    const v = args[arg];
    if (v === undefined) continue;
    if (typeof v !== 'string') return `${RESIDENT_AGENTS_TOOL} create: ${arg} must be a string`;
    spec[field] = v;
  }
  const capacity = args.capacity;
  if (capacity !== undefined) {
    if (!Number.isInteger(capacity) || (capacity as number) < 1)
      return `${RESIDENT_AGENTS_TOOL} create: capacity must be an integer >= 1`;
    spec.capacity = capacity;
  }
  return spec as unknown as ChildSpec;
}

function disposalOf(args: ArgsObject, action: ControlAction): Disposal | string {
  const { residual, channels } = args;
  if (residual !== undefined && !(RESIDUAL_POLICIES as readonly unknown[]).includes(residual)) {
    return `${RESIDENT_AGENTS_TOOL} ${action}: residual must be one of ${RESIDUAL_POLICIES.join(', ')}`;
  }
  if (channels !== undefined && !(CHANNEL_DISPOSITIONS as readonly unknown[]).includes(channels)) {
    return `${RESIDENT_AGENTS_TOOL} ${action}: channels must be one of ${CHANNEL_DISPOSITIONS.join(', ')}`;
  }
  // Stryker disable ConditionalExpression: a field set to undefined means absent to every reader (`?? default`)
  return {
    ...(residual === undefined ? {} : { residual: residual as ResidualPolicy }),
    ...(channels === undefined ? {} : { channels: channels as ChannelDisposition }),
  };
  // Stryker restore ConditionalExpression
}
