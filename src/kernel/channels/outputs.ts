/**
 * Output authorization (docs/spec.md §8.4, S1–S3).
 *
 * An agent may send only on the output channels its grant allows; an empty grant allows every
 * channel. The same rule, `isAuthorized`, is applied at three points that must agree:
 * 1. the tool list: `output_send__<name>` exists only for authorised, text-capable devices;
 * 2. `output_list_channels`: lists only authorised devices, with their bound output target;
 * 3. the call site: a direct call on an unauthorised channel is refused and nothing is sent
 *    (defence in depth: a model may call a tool it was never offered).
 * Devices are considered in the order given; a repeated name is ignored after its first occurrence
 * (the agent's own device wins over the parent's fallback), identically at all three points.
 */
import type { ToolSpec } from '../ports/provider.ts';
import type { ChannelRegistry } from './registry.ts';

export interface OutputDevice {
  readonly name: string;
  readonly caps: readonly string[];
}

export const OUTPUT_SEND_PREFIX = 'output_send__';
export const OUTPUT_LIST_TOOL = 'output_list_channels';
/** The only payload type `output_send` carries today (docs/spec.md §9.1). */
const TEXT = 'text';

/** The list tool as the model sees it. */
export const OUTPUT_LIST_SPEC: ToolSpec = Object.freeze({
  name: OUTPUT_LIST_TOOL,
  description:
    'List the output channels this agent may send on, with their capabilities and bound targets. ' +
    `Send with ${OUTPUT_SEND_PREFIX}<channel>.`,
  parameters: Object.freeze({ type: 'object', properties: {}, additionalProperties: false }),
  parallelSafe: true,
});

/** The grant rule: an empty allow-list is a full grant, otherwise membership. */
export function isAuthorized(allowedOutputs: readonly string[], channel: string): boolean {
  return allowedOutputs.length === 0 || allowedOutputs.includes(channel);
}

/** The output channel an `output_send__<name>` tool sends on, or null for any other tool name. */
export function outputChannelOfTool(toolName: string): string | null {
  if (!toolName.startsWith(OUTPUT_SEND_PREFIX)) return null;
  const channel = toolName.slice(OUTPUT_SEND_PREFIX.length);
  return channel === '' ? null : channel;
}

/** Point 1: one send tool per authorised device that can carry text. */
export function outputToolSpecs(devices: readonly OutputDevice[], allowedOutputs: readonly string[]): ToolSpec[] {
  return authorisedDevices(devices, allowedOutputs)
    .filter((d) => d.caps.includes(TEXT))
    .map((d) => sendSpec(d));
}

/** Point 2: the `output_list_channels` text. */
export function outputListView(
  devices: readonly OutputDevice[],
  allowedOutputs: readonly string[],
  registry: ChannelRegistry,
): string {
  const listed = authorisedDevices(devices, allowedOutputs);
  if (listed.length === 0) return 'no output channel is authorised for this agent';
  const lines = [`output channels authorised for this agent (${listed.length}):`];
  for (const d of listed) {
    const target = registry.resolveOutputTarget(d.name);
    const inputch = target === undefined || target.inputch === '' ? d.name : target.inputch;
    const bound = target === undefined ? '' : ` (target: ${target.agent} / inputch ${inputch})`;
    lines.push(`  - ${d.name}: [${d.caps.join(', ')}]${bound}`);
  }
  return lines.join('\n');
}

export type OutputSendCheck =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

/**
 * Point 3: validates an `output_send__<channel>` call before anything is sent. `args` is the parsed
 * JSON value or the raw JSON text of the call. A refusal is a tool error for the model to read.
 */
export function checkOutputSend(
  devices: readonly OutputDevice[],
  allowedOutputs: readonly string[],
  channel: string,
  args: unknown,
): OutputSendCheck {
  if (!isAuthorized(allowedOutputs, channel)) {
    return refuse(`channel ${channel} is not authorised for this agent; see ${OUTPUT_LIST_TOOL}`);
  }
  const device = findDevice(devices, channel);
  if (device === undefined) {
    return refuse(`no output channel named ${JSON.stringify(channel)}; see ${OUTPUT_LIST_TOOL}`);
  }
  if (!device.caps.includes(TEXT)) {
    return refuse(`channel ${channel} cannot send text (caps: ${device.caps.join(', ') || 'none'})`);
  }
  return checkSendArgs(channel, args);
}

function checkSendArgs(channel: string, raw: unknown): OutputSendCheck {
  const usage = `${OUTPUT_SEND_PREFIX}${channel} arguments must be a JSON object {"text": "..."}`;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
      // Stryker disable next-line BlockStatement: text that is not JSON stays a string, refused below with the same message
    } catch {
      return refuse(usage);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(usage);
  const { text, type } = value as Record<string, unknown>;
  if (typeof text !== 'string') return refuse(`text must be a string; ${usage}`);
  if (text === '') return refuse('text must not be empty; nothing was sent');
  if (type !== undefined && type !== TEXT) {
    return refuse(`type must be "${TEXT}" if given, got ${JSON.stringify(type)}`);
  }
  return { ok: true, text };
}

function refuse(error: string): OutputSendCheck {
  return { ok: false, error };
}

function findDevice(devices: readonly OutputDevice[], name: string): OutputDevice | undefined {
  return devices.find((d) => d.name === name);
}

/** Authorised devices with at least one capability, first occurrence of each name, in given order. */
function authorisedDevices(devices: readonly OutputDevice[], allowedOutputs: readonly string[]): OutputDevice[] {
  const seen = new Set<string>();
  const out: OutputDevice[] = [];
  for (const d of devices) {
    if (seen.has(d.name)) continue;
    seen.add(d.name);
    if (d.caps.length > 0 && isAuthorized(allowedOutputs, d.name)) out.push(d);
  }
  return out;
}

function sendSpec(d: OutputDevice): ToolSpec {
  return Object.freeze({
    name: `${OUTPUT_SEND_PREFIX}${d.name}`,
    description:
      `Send a message on the output channel "${d.name}" (caps: ${d.caps.join(', ')}). ` + 'Returns "ok" once sent.',
    parameters: Object.freeze({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The message to send.' },
        type: { type: 'string', enum: [TEXT], description: 'The payload type (default text).' },
      },
      required: ['text'],
      additionalProperties: false,
    }),
    parallelSafe: false,
  });
}
