// docs/examples/a-real-model.ts: the kernel on the system clock with a model adapter.
import {
  DemoProvider,
  Kernel,
  OpenAIChatProvider,
  Runtime,
  SystemClock,
  type Provider,
  type ToolRunner,
} from 'homeagent';

// With OPENAI_API_KEY set, OpenAI's API; without it, the scripted demo model (no network, no key).
// OpenAIChatProvider also talks to any OpenAI-compatible server: Ollama, llama.cpp, vLLM (`baseURL`).
const key = process.env['OPENAI_API_KEY'];
const provider: Provider =
  key === undefined
    ? new DemoProvider()
    : new OpenAIChatProvider({ name: 'openai', model: 'gpt-4o-mini', apiKey: key });

const noTools: ToolRunner = { run: () => Promise.reject(new Error('this agent has no tools')) };
const runtime = new Runtime(new Kernel({ systemPrompt: 'You answer in one sentence.' }), {
  clock: new SystemClock(),
  provider,
  tools: noTools,
});

const terminal = await runtime.submitAndWait({ id: 'greet', cls: 'queued', text: 'Say hello.', source: 'cli' });
console.log(`${terminal.kind}: ${terminal.reply}`);
