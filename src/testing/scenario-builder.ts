/**
 * A typed builder of scenario files (docs/scenario-format.md): `scenario('name').input(…)
 * .interrupt(…).expect(…)` writes the document a scenario file holds, `toJSON()` returns it (so
 * `JSON.stringify(builder)` is the file), and `build()` checks it into the Scenario that runScenario
 * runs.
 *
 * Theory of operation. The builder holds the file's document and nothing else: every method returns
 * a new builder with one more entry or setting, so a base scenario can be varied in several tests
 * without one test's additions reaching another's. It checks nothing itself; `build()` hands the
 * document to the library's parseScenario, the one checker of scenario files, which throws a
 * ScenarioError with every problem and its JSON path. The argument types are the file format's own
 * (derived from the checker's schema), so an editor completes the keys and a misspelt one is a type
 * error before it is a run-time problem.
 */
import { parseScenario } from '../library/scenarios.ts';
import type { Scenario, ScenarioJson } from '../index.ts';

type Item<T> = T extends readonly (infer U)[] ? U : never;

/** One entry of `inputs`, as the file writes it. */
export type InputJson = Item<NonNullable<ScenarioJson['inputs']>>;
/** One model answer of `replies` or `kernelReplies`. */
export type ReplyJson = Item<NonNullable<InputJson['replies']>>;
/** One fake tool of `tools` (its name is the key). */
export type ToolJson = NonNullable<ScenarioJson['tools']>[string];
/** The `expect` block: what the run must show. */
export type ExpectJson = NonNullable<ScenarioJson['expect']>;
export type KernelJson = NonNullable<ScenarioJson['kernel']>;
export type ModelJson = NonNullable<ScenarioJson['model']>;
export type ChannelJson = Item<NonNullable<ScenarioJson['channels']>>;
export type OutputJson = Item<NonNullable<ScenarioJson['outputs']>>;
export type ResidentJson = Item<NonNullable<ScenarioJson['residents']>>;
export type EventJson = Item<NonNullable<ScenarioJson['events']>>;
export type GenerateJson = NonNullable<ScenarioJson['generate']>;
export type FaultsJson = NonNullable<ScenarioJson['faults']>;
export type LimitsJson = NonNullable<ScenarioJson['limits']>;
/** An interrupt's level: L1 background, L2 message, L3 interactive, L4 critical. */
export type LevelName = NonNullable<InputJson['level']>;

/** A queued input's keys besides its id: `text`, `source`, `at` / `when` / `afterTerminal`, `replies`, … */
export type QueuedInputOptions = Omit<InputJson, 'id' | 'class' | 'level' | 'stop'>;
/** An interrupt's keys besides its id and level; `stop: true` makes it the stop button. */
export type InterruptOptions = Omit<InputJson, 'id' | 'class' | 'level'>;

/** Starts a scenario named `name` (lowercase letters, digits and "-"), format version 1. */
export function scenario(name: string): ScenarioBuilder {
  return new ScenarioBuilder({ version: 1, name });
}

export class ScenarioBuilder {
  private readonly doc: ScenarioJson;

  /** Starts from a scenario file's document (a copy is kept), to vary it; `scenario(name)` starts an empty one. */
  constructor(document: ScenarioJson) {
    this.doc = structuredClone(document);
  }

  describe(description: string): ScenarioBuilder {
    return this.with({ description });
  }

  /** The seed of every random draw of the run (default 1); runScenario's `seed` overrides it. */
  seed(seed: number): ScenarioBuilder {
    return this.with({ seed });
  }

  /** Kernel settings over the kernel's defaults, merged over those of earlier calls. */
  kernel(settings: KernelJson): ScenarioBuilder {
    return this.with({ kernel: { ...this.doc.kernel, ...settings } });
  }

  /** The fake model's timing and cancel behaviour, merged over those of earlier calls. */
  model(settings: ModelJson): ScenarioBuilder {
    return this.with({ model: { ...this.doc.model, ...settings } });
  }

  /** Plugins whose sources are kernel-level on the root (only they may raise L4). */
  builtinPlugins(...names: string[]): ScenarioBuilder {
    return this.with({ builtinPlugins: [...(this.doc.builtinPlugins ?? []), ...names] });
  }

  /** A fake tool the model may call. */
  tool(name: string, tool: ToolJson): ScenarioBuilder {
    return this.with({ tools: { ...this.doc.tools, [name]: tool } });
  }

  channel(channel: ChannelJson): ScenarioBuilder {
    return this.with({ channels: [...(this.doc.channels ?? []), channel] });
  }

  output(output: OutputJson): ScenarioBuilder {
    return this.with({ outputs: [...(this.doc.outputs ?? []), output] });
  }

  resident(resident: ResidentJson): ScenarioBuilder {
    return this.with({ residents: [...(this.doc.residents ?? []), resident] });
  }

  event(event: EventJson): ScenarioBuilder {
    return this.with({ events: [...(this.doc.events ?? []), event] });
  }

  /** Stop the root agent at this virtual time. */
  stopAt(ms: number): ScenarioBuilder {
    return this.with({ stopAt: ms });
  }

  /** A queued input: it waits its turn in the FIFO and never preempts. Due at 0 unless timed. */
  input(id: string, options: QueuedInputOptions = {}): ScenarioBuilder {
    return this.withInput({ id, class: 'queued', ...options });
  }

  /** An interrupt of `level`: it preempts a running task of strictly lower effective level. */
  interrupt(id: string, level: LevelName, options: InterruptOptions = {}): ScenarioBuilder {
    return this.withInput({ id, class: 'interrupt', level, ...options });
  }

  /** Model answers for a task the kernel creates itself, named `<agent>:<n>`. */
  kernelReplies(task: string, replies: readonly ReplyJson[]): ScenarioBuilder {
    return this.with({ kernelReplies: { ...this.doc.kernelReplies, [task]: [...replies] } });
  }

  generate(settings: GenerateJson): ScenarioBuilder {
    return this.with({ generate: { ...this.doc.generate, ...settings } });
  }

  faults(rates: FaultsJson): ScenarioBuilder {
    return this.with({ faults: { ...this.doc.faults, ...rates } });
  }

  limits(limits: LimitsJson): ScenarioBuilder {
    return this.with({ limits: { ...this.doc.limits, ...limits } });
  }

  /** What the run must show, merged key by key over the expectations of earlier calls. */
  expect(expectations: ExpectJson): ScenarioBuilder {
    return this.with({ expect: { ...this.doc.expect, ...expectations } });
  }

  /** The scenario file's document (a copy): `JSON.stringify(builder, null, 2)` writes the file. */
  toJSON(): ScenarioJson {
    return structuredClone(this.doc);
  }

  /** The checked, normalized scenario; throws a ScenarioError listing every problem of the document. */
  build(): Scenario {
    return parseScenario(this.toJSON());
  }

  private withInput(input: InputJson): ScenarioBuilder {
    return this.with({ inputs: [...(this.doc.inputs ?? []), input] });
  }

  private with(change: Partial<ScenarioJson>): ScenarioBuilder {
    return new ScenarioBuilder({ ...this.doc, ...change });
  }
}
