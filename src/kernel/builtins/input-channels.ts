/**
 * The `input_channels` built-in tool (docs/spec.md §8.3, §9.1): one tool, several views of the
 * shared inputch registry. Pure: registry and arguments in, text out. Bad arguments (an unknown view,
 * `detail` without a name, an unknown name) are tool errors (`ok: false`) whose text names the fix.
 */
import type { ToolSpec } from '../ports/provider.ts';
import { compareNames, type ChannelRegistry, type InputChannel } from '../channels/registry.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import { objectArgs } from './args.ts';

export const INPUT_CHANNELS_VIEWS = ['all', 'mine', 'unassigned', 'by_agent', 'detail'] as const;
export type InputChannelsView = (typeof INPUT_CHANNELS_VIEWS)[number];

export interface InputChannelsArgs {
  readonly view?: string | undefined;
  readonly name?: string | undefined;
}

/** The tool as the model sees it. */
export const INPUT_CHANNELS_SPEC: ToolSpec = Object.freeze({
  name: 'input_channels',
  description:
    'Show the input channels (inputchs) registered for this agent tree and who handles each. ' +
    'Views: all (default), mine (assigned to you), unassigned (handled by the root; can be assigned), ' +
    'by_agent (grouped by owner), detail (one channel; needs name).',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      view: { type: 'string', enum: [...INPUT_CHANNELS_VIEWS], description: 'Which view to show (default all).' },
      name: { type: 'string', description: 'The inputch name; required for view=detail.' },
    },
    additionalProperties: false,
  }),
  parallelSafe: true,
});

/** The owner label of an unassigned inputch: it is handled by the root. */
export const UNASSIGNED_LABEL = 'unassigned (root / kernel default)';

function isView(v: string): v is InputChannelsView {
  return (INPUT_CHANNELS_VIEWS as readonly string[]).includes(v);
}

const ok = (output: string): ToolResult => ({ ok: true, output });
const err = (output: string): ToolResult => ({ ok: false, output });

export function inputChannelsView(registry: ChannelRegistry, self: string, args: InputChannelsArgs): ToolResult {
  const view = args.view === undefined || args.view === '' ? 'all' : args.view;
  if (!isView(view)) {
    return err(`unknown view ${JSON.stringify(view)}; valid views: ${INPUT_CHANNELS_VIEWS.join(', ')}`);
  }
  switch (view) {
    case 'detail':
      return detailView(registry, args.name);
    case 'by_agent':
      return registry.size() === 0 ? ok(NONE_REGISTERED) : ok(byAgentView(registry.list()));
    case 'all':
      return listView(registry, 'all registered inputchs', registry.list());
    case 'mine':
      return listView(registry, `inputchs assigned to this agent (${self})`, registry.listByOwner(self));
    case 'unassigned':
      return listView(registry, 'inputchs not yet assigned (assign as needed)', registry.listByOwner(''));
  }
}

/**
 * The tool's entry point from a raw tool call: `args` is the parsed JSON value or the raw JSON text.
 * A malformed argument is a tool error, never a throw (docs/spec.md §9.1).
 */
export function runInputChannelsTool(registry: ChannelRegistry, self: string, args: unknown): ToolResult {
  const parsed = parseArgs(args);
  return typeof parsed === 'string' ? err(parsed) : inputChannelsView(registry, self, parsed);
}

function parseArgs(raw: unknown): InputChannelsArgs | string {
  const value = objectArgs(raw, 'input_channels', '{"view":"all"}');
  if (typeof value === 'string') return value;
  const { view, name } = value;
  if (view !== undefined && typeof view !== 'string') return 'input_channels: view must be a string';
  if (name !== undefined && typeof name !== 'string') return 'input_channels: name must be a string';
  return { view, name };
}

/** What every list view answers while the registry is empty. */
const NONE_REGISTERED = 'no inputch is registered';

/** The owner as the views show it. */
export function ownerLabel(owner: string): string {
  return owner === '' ? UNASSIGNED_LABEL : owner;
}

/** Policy flags in a fixed order; empty when the channel uses the defaults. */
export function policyFlags(c: InputChannel): string[] {
  const flags: string[] = [];
  if (c.policy.noMemory) flags.push('no-memory');
  if (c.policy.cleaner !== null && c.policy.cleaner !== '') flags.push('cleaner');
  const prune = c.policy.contextPolicy;
  if (prune !== null && prune !== '' && prune !== 'none') flags.push(`prune:${prune}`);
  return flags;
}

function listView(registry: ChannelRegistry, title: string, channels: readonly InputChannel[]): ToolResult {
  if (registry.size() === 0) return ok(NONE_REGISTERED);
  if (channels.length === 0) return ok(`${title}: none`);
  const lines = [`${title} (${channels.length}):`];
  for (const c of channels) {
    const plugin = c.plugin === '' ? '' : ` (plugin ${c.plugin})`;
    const flags = policyFlags(c);
    lines.push(`  - ${c.name}${plugin}${flags.length === 0 ? '' : ` [${flags.join('/')}]`}`);
    let second = `      owner: ${ownerLabel(c.owner)}`;
    if (c.capacity > 0) second += ` | capacity: ${c.capacity}`;
    if (c.output !== '') second += ` | default output: ${c.output}`;
    lines.push(second);
  }
  return ok(lines.join('\n'));
}

function byAgentView(channels: readonly InputChannel[]): string {
  const groups = new Map<string, string[]>();
  for (const c of channels) {
    const names = groups.get(c.owner);
    if (names === undefined) groups.set(c.owner, [c.name]);
    else names.push(c.name);
  }
  const lines = [`inputch assignment (${channels.length} in total):`];
  for (const [owner, names] of [...groups].sort(([a], [b]) => compareNames(a, b))) {
    lines.push(`  - ${ownerLabel(owner)}: ${names.join(', ')}`);
  }
  return lines.join('\n');
}

function detailView(registry: ChannelRegistry, name: string | undefined): ToolResult {
  if (name === undefined || name === '') {
    return err('view=detail needs the name argument (an inputch name); see view=all for the names');
  }
  const c = registry.lookup(name);
  if (c === undefined) {
    return err(`inputch ${JSON.stringify(name)} is not registered; see view=all for the registered names`);
  }
  const flags = policyFlags(c);
  return ok(
    [
      `inputch: ${c.name}`,
      `plugin: ${c.plugin === '' ? '-' : c.plugin}`,
      `owner agent: ${ownerLabel(c.owner)}`,
      `capacity: ${c.capacity > 0 ? String(c.capacity) : 'kernel default'}`,
      `default output channel: ${c.output === '' ? '-' : c.output}`,
      `memory policy: ${flags.length === 0 ? 'default (recorded in memory, no pruning)' : flags.join('/')}`,
    ].join('\n'),
  );
}
