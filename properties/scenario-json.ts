/**
 * The JSON of a scenario file (docs/spec.md §12.2), as the scenario generators write it. The types are the
 * scenario schema's own (`z.input` of `scenarioSchema`), so a generator cannot write a key the reader
 * does not know, and a change to the schema reaches the generators at compile time.
 */
import type { z } from 'zod';
import type { scenarioSchema } from '../src/sim/scenario/schema.ts';

/** A scenario file, as the scenario reader takes it. */
export type ScenarioFile = z.input<typeof scenarioSchema>;

/** The entry type of an optional list. */
type Entry<T> = NonNullable<T> extends readonly (infer E)[] ? E : never;

export type InputJson = Entry<ScenarioFile['inputs']>;
export type ReplyJson = Entry<InputJson['replies']>;
export type ToolCallJson = Entry<ReplyJson['tools']>;
export type ToolJson = NonNullable<ScenarioFile['tools']>[string];
export type McpServerJson = NonNullable<ScenarioFile['mcpServers']>[string];
export type KernelJson = NonNullable<ScenarioFile['kernel']>;
export type ModelJson = NonNullable<ScenarioFile['model']>;
export type FaultsJson = NonNullable<ScenarioFile['faults']>;
export type ChannelJson = Entry<ScenarioFile['channels']>;
export type OutputJson = Entry<ScenarioFile['outputs']>;
export type EventJson = Entry<ScenarioFile['events']>;
export type ResidentJson = Entry<ScenarioFile['residents']>;
/** Integer milliseconds, or a `[min, max]` pair. */
export type RangeJson = NonNullable<ModelJson['firstChunkMs']>;
export type LevelJson = NonNullable<InputJson['level']>;
export type StepJson = NonNullable<InputJson['when']>['step'];

/** A JSON value, as a scenario file holds it (tool-call arguments). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What the generator of root scenarios writes: always a seed and inputs, and `expect: {allTerminal: true}`. */
export type ScenarioJson = ScenarioFile & { seed: number; inputs: InputJson[]; expect: { allTerminal: true } };
