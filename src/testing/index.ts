/**
 * The homeagent test kit, `import … from 'homeagent/testing'` (docs/library.md): what a user of the
 * library needs to test with it — a typed builder of scenarios, a check that runs one and fails with
 * a readable message and the command that reproduces it, and a scripted fake model for unit tests of
 * one's own tools through the real Kernel and Runtime. It reaches the simulator only through the
 * library (src/library).
 */
export {
  scenario,
  ScenarioBuilder,
  type ChannelJson,
  type EventJson,
  type ExpectJson,
  type FaultsJson,
  type GenerateJson,
  type InputJson,
  type InterruptOptions,
  type KernelJson,
  type LevelName,
  type LimitsJson,
  type ModelJson,
  type OutputJson,
  type QueuedInputOptions,
  type ReplyJson,
  type ResidentJson,
  type ToolJson,
} from './scenario-builder.ts';
export { expectScenarioPasses, ScenarioFailure, type ExpectScenarioOptions } from './expect-scenario.ts';
export {
  scriptedProvider,
  type Script,
  type ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedReply,
  type ScriptedToolCall,
} from './scripted-provider.ts';
