// A consumer of the installed package, type-checked by scripts/pack-check.sh with the settings of a
// strict project (module nodenext, skipLibCheck false): every entry point and the declarations they
// reach must check. In the repository it is type-checked against the sources (tsconfig.json `paths`).
// It is compiled, never run; the lines marked @ts-expect-error prove the types are not `any`.
import {
  AnthropicMessagesProvider,
  DemoProvider,
  FallbackProvider,
  JournalError,
  Kernel,
  loadScenarioFile,
  OpenAIChatProvider,
  parseScenario,
  replayJournal,
  runScenario,
  Runtime,
  ScenarioError,
  SystemClock,
  VirtualClock,
  type Clock,
  type GraphMemory,
  type Provider,
  type ReplayResult,
  type Report,
  type Scenario,
  type Terminal,
  type ToolRunner,
} from 'homeagent';
import {
  expectScenarioPasses,
  scenario,
  ScenarioFailure,
  scriptedProvider,
  type ScriptedProvider,
} from 'homeagent/testing';

const loaded: Scenario = await loadScenarioFile('node_modules/homeagent/scenarios/e4-priority-stress.json');
const report: Report = await runScenario(loaded, { seed: 7, swarm: false, tracePath: 'trace.jsonl' });
const hash: string = report.traceHash;
const firstFailure: string | undefined = report.expectations.find((x) => !x.ok)?.name;
// @ts-expect-error a report has no `hash` field
void report.hash;

try {
  parseScenario({ version: 1, name: 'x' });
} catch (err) {
  if (err instanceof ScenarioError) for (const p of err.problems) console.log(p.path, p.message);
}

const built: Scenario = scenario('typed')
  .seed(3)
  .tool('fetch', { durationMs: [10, 20], result: 'ok' })
  .input('q', { text: 'hello', replies: [{ tools: [{ name: 'fetch', args: { url: 'x' } }] }, { text: 'done' }] })
  .interrupt('alert', 'L4', { source: 'webui/panel', when: { task: 'q', step: 'ToolExec', afterMs: 5 } })
  .expect({ terminal: { q: 'done', alert: 'done' }, maxStackDepth: 1 })
  .build();
// @ts-expect-error a misspelt input key
scenario('typed').input('q', { txt: 'hello' });
// @ts-expect-error a level that does not exist
scenario('typed').interrupt('q', 'L5');

try {
  await expectScenarioPasses(built, { seed: 1, failureDir: 'failures' });
} catch (err) {
  if (err instanceof ScenarioFailure) console.log(err.message, err.report.seed, err.reproduce);
}

const weather: ToolRunner = {
  run: (call, ctx) => Promise.resolve({ ok: !ctx.signal.aborted, output: call.args }),
};
const provider: ScriptedProvider = scriptedProvider([
  { toolCalls: [{ name: 'weather', args: { city: 'Oslo' } }] },
  'ok',
]);
const clock: Clock = new SystemClock();
const runtime = new Runtime(new Kernel({ tools: [] }), { clock, provider, tools: weather });
const terminal: Terminal = await runtime.submitAndWait({ id: 't', cls: 'queued', text: 'hi', source: 'cli' });
console.log(terminal.kind, provider.requests.length, new VirtualClock().now());

const adapters: Provider[] = [
  new OpenAIChatProvider({ name: 'local', model: 'llama3.1', baseURL: 'http://127.0.0.1:11434/v1', apiKey: null }),
  new AnthropicMessagesProvider({ name: 'claude', model: 'claude-sonnet-4-5', apiKey: 'key' }),
  new DemoProvider(),
];
const fallback: Provider = new FallbackProvider([
  new OpenAIChatProvider({ name: 'a', model: 'm', apiKey: 'k' }),
  new AnthropicMessagesProvider({ name: 'b', model: 'm', apiKey: 'k' }),
]);

try {
  const replayed: ReplayResult = await replayJournal('run.jsonl');
  console.log(replayed.ok, replayed.traceHash);
} catch (err) {
  if (err instanceof JournalError) console.log(err.problems.length);
}

const memory: GraphMemory | null = null;
console.log(hash, firstFailure, adapters.length, fallback, memory);
