// docs/examples/unit-test-a-tool.ts: your own tool, driven by a scripted model through the real kernel.
import { Kernel, Runtime, SystemClock, type ToolRunner } from 'homeagent';
import { scriptedProvider } from 'homeagent/testing';

// The tool under test: a ToolRunner answers the calls of the tools the kernel is configured with.
const weather: ToolRunner = {
  run(call) {
    const { city } = JSON.parse(call.args) as { city: string };
    return Promise.resolve({ ok: true, output: `${city}: 21 °C, sunny` });
  },
};

// The model asks for the tool, then answers with text.
const model = scriptedProvider([
  { toolCalls: [{ name: 'weather', args: { city: 'Lisbon' } }] },
  'It is 21 °C and sunny in Lisbon.',
]);

const kernel = new Kernel({
  tools: [
    {
      name: 'weather',
      description: 'The current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      parallelSafe: true,
    },
  ],
});
const runtime = new Runtime(kernel, { clock: new SystemClock(), provider: model, tools: weather });

const terminal = await runtime.submitAndWait({ id: 'ask', cls: 'queued', text: 'Weather in Lisbon?', source: 'cli' });
console.log(`${terminal.kind}: ${terminal.reply}`);

// What the model was sent on its second call: the tool's result, answering the call it made.
const result = model.requests[1]?.messages.find((m) => m.role === 'tool');
console.log(`the model saw: ${result?.content} (for ${result?.toolCallId})`);
