/**
 * Kernel request → OpenAI Chat Completions request body. Everything the kernel keeps maps one to
 * one: roles, an assistant's tool calls (arguments stay the raw JSON text the model streamed) and a
 * tool message's `tool_call_id`.
 */
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Message, ModelRequest, ToolSpec } from '../kernel/index.ts';

export interface ChatTarget {
  readonly model: string;
  /** The provider's own output cap; the lower of it and the kernel's wins. */
  readonly maxTokens: number | null;
}

export function chatRequest(request: ModelRequest, target: ChatTarget): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: target.model,
    messages: request.messages.map(chatMessage),
    stream: true,
    // Without it the stream carries no token counts; servers that ignore it just send none.
    stream_options: { include_usage: true },
    // `max_tokens` rather than `max_completion_tokens`: Ollama, vLLM and llama.cpp server all read it.
    max_tokens: target.maxTokens === null ? request.maxTokens : Math.min(target.maxTokens, request.maxTokens),
  };
  // Some local servers reject an empty `tools` array, so it is sent only when there are tools.
  if (request.tools.length > 0) body.tools = request.tools.map(chatTool);
  return body;
}

function chatMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The API wants null rather than "" beside tool calls.
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
      };
    }
    case 'tool':
      if (message.toolCallId === undefined) throw new Error('a tool message without toolCallId cannot be sent');
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function chatTool(tool: ToolSpec): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
  };
}
