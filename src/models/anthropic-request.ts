/**
 * Kernel request → Anthropic Messages request body. The two formats differ in shape, not in content:
 *
 * - system messages go to the top-level `system` (joined with a blank line when there are several);
 * - an assistant's tool calls are `tool_use` blocks, whose `input` is a JSON object, not text;
 * - tool results are `tool_result` blocks inside a user turn, and the results of one batch must all
 *   be in the one user turn that follows the calls, so consecutive turns of the same role are merged;
 * - empty text blocks are refused by the API, so empty texts are left out.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Message, ModelRequest, ToolSpec } from '../kernel/index.ts';

export interface MessagesTarget {
  readonly model: string;
  /** The provider's own output cap; the lower of it and the kernel's wins. */
  readonly maxTokens: number | null;
}

type Turn = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

export function messagesRequest(request: ModelRequest, target: MessagesTarget): MessageCreateParamsStreaming {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const body: MessageCreateParamsStreaming = {
    model: target.model,
    max_tokens: target.maxTokens === null ? request.maxTokens : Math.min(target.maxTokens, request.maxTokens),
    messages: turns(request.messages),
    stream: true,
  };
  if (system.length > 0) body.system = system.join('\n\n');
  if (request.tools.length > 0) body.tools = request.tools.map(messagesTool);
  return body;
}

function turns(messages: readonly Message[]): MessageParam[] {
  const out: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

function blocksOf(message: Message): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  if (message.role === 'tool') {
    if (message.toolCallId === undefined) throw new Error('a tool message without toolCallId cannot be sent');
    blocks.push({ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content });
    return blocks;
  }
  if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.args) });
  }
  return blocks;
}

/**
 * The kernel keeps a call's arguments as the text the model streamed; the API wants an object. Text
 * that is not a JSON object (a model's broken call) is sent as `{}`: the call's tool result, which
 * follows, already tells the model what went wrong.
 */
function toolInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to the empty object, as for any other non-object.
  }
  return {};
}

function messagesTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    // A tool's input is always an object; the JSON schema of a ToolSpec describes one.
    input_schema: { ...tool.parameters, type: 'object' },
  };
}
