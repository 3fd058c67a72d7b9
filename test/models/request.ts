/** A kernel model request with every role, for the wire-mapping assertions. */
import type { Message, ModelRequest, ToolSpec } from '../../src/kernel/index.ts';

export const WEATHER_TOOL: ToolSpec = {
  name: 'weather',
  description: 'The weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  parallelSafe: true,
};

export function modelRequest(messages?: readonly Message[], tools: readonly ToolSpec[] = []): ModelRequest {
  return {
    agent: 'root',
    task: 'q1',
    callId: 'c1',
    replyIndex: 0,
    messages: messages ?? [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ],
    tools,
    maxTokens: 256,
  };
}

/** A conversation with a tool round: system, user, assistant with two calls, two tool results. */
export const TOOL_ROUND: readonly Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'call_a', name: 'weather', args: '{"city":"Paris"}' },
      { id: 'call_b', name: 'weather', args: '{"city":"Rome"}' },
    ],
  },
  { role: 'tool', content: 'sunny', toolCallId: 'call_a' },
  { role: 'tool', content: 'rain', toolCallId: 'call_b' },
];
