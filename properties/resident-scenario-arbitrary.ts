/**
 * Generators of valid scenario files with residents (docs/spec.md §10, §12.2), for the sibling of the kernel
 * property over generated scenarios (kernel.residents.test.ts). Like scenario-arbitrary.ts, it draws
 * raw records of small integers and builds the JSON in one pass, so every draw is a valid file and
 * every shrink stays one: an input's trigger names an earlier input, a channel index is taken modulo
 * the channels, an agent index modulo the agents.
 *
 * What it covers: 1–4 residents of both kinds, each owning some of four inputchs (some stay the
 * root's), small windows that fill, narrowed tool grants, task prompts; inputs addressed to the root or
 * a resident or arriving on an inputch (routing decides, a destroyed owner falls back), queued and
 * interrupts of every level; replies that call runner tools (slow, failing, panicking), `notify_parent`
 * and `inputch_note` (on the root: unknown tools), `resident_agents` with every action (list, create,
 * send, inspect, compress, reclaim, destroy with residual policies and channel dispositions, refused
 * ids), long answers, failures; `kernelReplies` for the first kernel tasks of the root (the notices of
 * its children: answered with a compress, a destroy, a send or text) and of each resident (task
 * prompts, parent messages); `events` that destroy a resident (with and without a residual policy and
 * disposition) or stop one, at random times; `parentMessage` both ways; small fault rates.
 */
import fc from 'fast-check';
import type {
  EventJson,
  InputJson,
  JsonValue,
  LevelJson,
  ReplyJson,
  ResidentJson,
  ScenarioFile,
  ToolJson,
} from './scenario-json.ts';

export const RESIDENT_CHANNELS = ['ch-1', 'ch-2', 'ch-3', 'ch-4'] as const;
const TOOLS = ['alpha', 'beta', 'gamma'] as const;
const LEVELS: readonly LevelJson[] = ['L1', 'L2', 'L3', 'L4'];
const RESIDUALS = ['keep', 'drop'] as const;
const DISPOSITIONS = ['release', 'keep', 'handback'] as const;
const LONG = `a long answer ${'x'.repeat(110)}`;
const UNKNOWN_WHO = 7;
const whoArb = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 3 }) },
  { weight: 1, arbitrary: fc.constant(UNKNOWN_WHO) },
);

/**
 * What this generator writes: a scenario file with a seed, residents and inputs (some addressed to a
 * resident, `agent`), and `expect: {allTerminal: true}`.
 */
export type ResidentScenarioJson = ScenarioFile & {
  seed: number;
  residents: ResidentJson[];
  inputs: InputJson[];
  expect: { allTerminal: true };
};

// ---------------------------------------------------------------- raw draws

type RawControl =
  | { readonly action: 'list' }
  | { readonly action: 'inspect' | 'compress'; readonly who: number }
  | { readonly action: 'send'; readonly who: number }
  | {
      readonly action: 'destroy' | 'reclaim';
      readonly who: number;
      readonly residual: number;
      readonly channels: number;
    }
  | { readonly action: 'create'; readonly kind: number; readonly channel: number | null };

type RawReply =
  | { readonly kind: 'text' }
  | { readonly kind: 'long' }
  | { readonly kind: 'fail' }
  | { readonly kind: 'tool'; readonly tool: number }
  | { readonly kind: 'notify' }
  | { readonly kind: 'note' }
  | { readonly kind: 'control'; readonly control: RawControl };

interface RawResident {
  readonly rt: boolean;
  readonly window: number | null;
  readonly prompt: boolean;
  readonly narrowTools: boolean;
}

interface RawInput {
  readonly to:
    | { readonly kind: 'root' }
    | { readonly kind: 'agent'; readonly index: number }
    | { readonly kind: 'channel'; readonly index: number };
  readonly level: number | null;
  readonly timing:
    | { readonly kind: 'at'; readonly at: number }
    | { readonly kind: 'after'; readonly ref: number }
    | { readonly kind: 'when'; readonly ref: number; readonly afterMs: number };
  readonly replies: readonly RawReply[] | null;
}

interface RawEvent {
  readonly at: number;
  readonly who: number;
  readonly stop: boolean;
  readonly residual: number | null;
  readonly channels: number | null;
}

interface RawScenario {
  readonly seed: number;
  readonly discard: boolean;
  readonly smallQueue: boolean;
  readonly cooldown: boolean;
  readonly model: { readonly firstChunkMs: number; readonly chunkMs: number; readonly chunks: number };
  readonly toolMs: readonly number[];
  readonly residents: readonly RawResident[];
  /** For each inputch: the resident that owns it (index), or null for the root. */
  readonly owners: readonly (number | null)[];
  readonly inputs: readonly RawInput[];
  readonly events: readonly RawEvent[];
  readonly rootReplies: readonly (readonly RawReply[])[];
  readonly childReplies: readonly (readonly RawReply[])[];
  readonly faults: boolean;
  /** A backlog on the first resident (three slow queued inputs at 0) destroyed while it waits. */
  readonly backlog: { readonly at: number; readonly drop: boolean } | null;
}

const controlArb: fc.Arbitrary<RawControl> = fc.oneof(
  fc.constant({ action: 'list' as const }),
  fc.record({ action: fc.constantFrom('inspect' as const, 'compress' as const), who: whoArb }),
  fc.record({ action: fc.constant('send' as const), who: whoArb }),
  fc.record({
    action: fc.constantFrom('destroy' as const, 'reclaim' as const),
    who: whoArb,
    residual: fc.nat({ max: 2 }),
    channels: fc.nat({ max: 3 }),
  }),
  fc.record({
    action: fc.constant('create' as const),
    kind: fc.nat({ max: 1 }),
    channel: fc.option(fc.nat({ max: 3 }), { nil: null }),
  }),
);

const replyArb: fc.Arbitrary<RawReply> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'text' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'long' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tool' as const), tool: fc.nat({ max: TOOLS.length - 1 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'notify' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'note' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('control' as const), control: controlArb }) },
);

const repliesArb = fc.array(replyArb, { minLength: 1, maxLength: 3 });

/**
 * The root's own kernel tasks are mostly its children's notices (notifies, context-full signals,
 * panics): it answers them as a parent would, most often by acting on a child.
 */
const rootRepliesArb = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('control' as const),
        control: fc.record({ action: fc.constant('compress' as const), who: whoArb }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('control' as const), control: controlArb }) },
    { weight: 1, arbitrary: replyArb },
  ),
  { minLength: 1, maxLength: 2 },
);

const rawInputArb: fc.Arbitrary<RawInput> = fc.record({
  to: fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'root' as const }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('agent' as const), index: fc.nat({ max: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('channel' as const), index: fc.nat({ max: 3 }) }) },
  ),
  level: fc.option(fc.nat({ max: 3 }), { nil: null, freq: 2 }),
  timing: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('at' as const),
        at: fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 2, arbitrary: fc.integer({ min: 0, max: 2500 }) },
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('after' as const), ref: fc.nat({ max: 20 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('when' as const),
        ref: fc.nat({ max: 20 }),
        afterMs: fc.integer({ min: 0, max: 30 }),
      }),
    },
  ),
  replies: fc.option(repliesArb, { nil: null, freq: 4 }),
});

const rawScenarioArb: fc.Arbitrary<RawScenario> = fc.record({
  seed: fc.nat({ max: 1000 }),
  discard: fc.boolean(),
  smallQueue: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  cooldown: fc.boolean(),
  model: fc.record({
    firstChunkMs: fc.integer({ min: 5, max: 200 }),
    chunkMs: fc.integer({ min: 0, max: 40 }),
    chunks: fc.integer({ min: 1, max: 3 }),
  }),
  toolMs: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: TOOLS.length, maxLength: TOOLS.length }),
  residents: fc.array(
    fc.record({
      rt: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      window: fc.constantFrom<number | null>(120, 120, 300, null),
      prompt: fc.boolean(),
      narrowTools: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  owners: fc.array(fc.option(fc.nat({ max: 3 }), { nil: null, freq: 4 }), {
    minLength: RESIDENT_CHANNELS.length,
    maxLength: RESIDENT_CHANNELS.length,
  }),
  inputs: fc.array(rawInputArb, { minLength: 1, maxLength: 16 }),
  events: fc.array(
    fc.record({
      at: fc.oneof(
        { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 2500 }) },
      ),
      who: fc.nat({ max: 3 }),
      stop: fc.boolean(),
      residual: fc.option(fc.nat({ max: 1 }), { nil: null }),
      channels: fc.option(fc.nat({ max: 2 }), { nil: null }),
    }),
    { maxLength: 3 },
  ),
  rootReplies: fc.array(rootRepliesArb, { maxLength: 4 }),
  childReplies: fc.array(repliesArb, { maxLength: 3 }),
  faults: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  backlog: fc.option(fc.record({ at: fc.integer({ min: 20, max: 300 }), drop: fc.boolean() }), { nil: null, freq: 2 }),
});

// ---------------------------------------------------------------- building

function residentId(i: number): string {
  return `r${i + 1}`;
}

function buildControl(c: RawControl, residents: number, tag: string): JsonValue {
  // `who` 7 names a child that does not exist: an "unknown child" tool error.
  const who = (n: number): string => (n === UNKNOWN_WHO ? 'nobody' : residentId(n % residents));
  switch (c.action) {
    case 'list':
      return { action: 'list' };
    case 'inspect':
    case 'compress':
      return { action: c.action, id: who(c.who) };
    case 'send':
      return { action: 'send', id: who(c.who), text: `message from ${tag}` };
    case 'destroy':
    case 'reclaim': {
      const args: { [key: string]: JsonValue } = { action: c.action, id: who(c.who) };
      const residual = RESIDUALS[c.residual];
      const channels = DISPOSITIONS[c.channels];
      if (residual !== undefined) args.residual = residual;
      if (channels !== undefined) args.channels = channels;
      return args;
    }
    case 'create': {
      const args: { [key: string]: JsonValue } = {
        action: 'create',
        id: `n-${tag}`,
        kind: c.kind === 0 ? 'resident' : 'rt',
        task_prompt: `prompt of n-${tag}`,
      };
      if (c.channel !== null) args.input_chs = [RESIDENT_CHANNELS[c.channel] as string];
      return args;
    }
  }
}

function buildReply(r: RawReply, residents: number, tag: string): ReplyJson {
  switch (r.kind) {
    case 'text':
      return { text: `answer of ${tag}` };
    case 'long':
      return { text: LONG };
    case 'fail':
      return { error: 'fail' };
    case 'tool':
      return { tools: [{ name: TOOLS[r.tool] ?? 'alpha', args: { of: tag } }] };
    case 'notify':
      return { tools: [{ name: 'notify_parent', args: { text: `news from ${tag}` } }] };
    case 'note':
      return { tools: [{ name: 'inputch_note', args: { text: `note of ${tag}` } }] };
    case 'control':
      return { tools: [{ name: 'resident_agents', args: buildControl(r.control, residents, tag) }] };
  }
}

/** A reply list that ends with a text, so a task that calls tools also finishes. */
function buildReplies(raw: readonly RawReply[], residents: number, tag: string): ReplyJson[] {
  const replies = raw.map((r, n) => buildReply(r, residents, `${tag}-${n}`));
  const last = replies[replies.length - 1];
  if (last !== undefined && last.tools !== undefined) replies.push({ text: `done ${tag}` });
  return replies;
}

export function buildResidentScenario(raw: RawScenario): ResidentScenarioJson {
  const n = raw.residents.length;
  const residents: ResidentJson[] = raw.residents.map((r, i) => {
    const def: ResidentJson = { id: residentId(i) };
    if (r.rt) def.kind = 'rt';
    if (r.window !== null) def.contextWindowTokens = r.window;
    if (r.prompt) def.taskPrompt = `prompt of ${residentId(i)}`;
    if (r.narrowTools) def.tools = ['alpha'];
    return def;
  });
  raw.owners.forEach((owner, c) => {
    const r = owner === null ? undefined : residents[owner % n];
    if (r !== undefined) r.inputChs = [...(r.inputChs ?? []), RESIDENT_CHANNELS[c] as string];
  });

  const inputs: InputJson[] = raw.inputs.map((ri, i) => {
    const id = `in-${i}`;
    const input: InputJson =
      ri.level === null
        ? { id, class: 'queued', source: 'user' }
        : { id, class: 'interrupt', level: LEVELS[ri.level] ?? 'L1', source: 'user' };
    input.text = `text of ${id}`;
    if (ri.to.kind === 'agent') input.agent = residentId(ri.to.index % n);
    if (ri.to.kind === 'channel') input.channel = RESIDENT_CHANNELS[ri.to.index % RESIDENT_CHANNELS.length] as string;
    const t = ri.timing;
    if (t.kind === 'at' || i === 0) input.at = t.kind === 'at' ? t.at : 0;
    else if (t.kind === 'after') input.afterTerminal = `in-${t.ref % i}`;
    else input.when = { task: `in-${t.ref % i}`, step: 'Model', afterMs: t.afterMs };
    if (ri.replies !== null) input.replies = buildReplies(ri.replies, n, id);
    return input;
  });

  // docs/spec.md §10.2a step 3 on purpose: work waits on a resident when a destroy event removes it.
  const target = residents.find((r) => r.kind !== 'rt');
  if (raw.backlog !== null && target !== undefined) {
    for (let k = 0; k < 3; k += 1) {
      const id = `backlog-${k}`;
      inputs.push({
        id,
        class: 'queued',
        source: 'user',
        agent: target.id,
        text: `text of ${id}`,
        at: 0,
        replies: [{ text: `answer of ${id}`, firstChunkMs: 400 }],
      });
    }
  }

  const kernelReplies: Record<string, ReplyJson[]> = {};
  raw.rootReplies.forEach((r, k) => {
    kernelReplies[`root:${k + 1}`] = buildReplies(r, n, `root-${k + 1}`);
  });
  raw.childReplies.forEach((r, k) => {
    const agent = residentId(k % n);
    const key = `${agent}:${Math.floor(k / n) + 1}`;
    kernelReplies[key] = buildReplies(r, n, `${agent}-${Math.floor(k / n) + 1}`);
  });

  const events: EventJson[] = raw.events.map((e) => {
    const id = residentId(e.who % n);
    if (e.stop) return { at: e.at, stopAgent: id };
    const destroy: { id: string; residual?: 'keep' | 'drop'; channels?: 'release' | 'keep' | 'handback' } = { id };
    if (e.residual !== null) destroy.residual = RESIDUALS[e.residual] ?? 'keep';
    if (e.channels !== null) destroy.channels = DISPOSITIONS[e.channels] ?? 'release';
    return { at: e.at, destroy };
  });

  if (raw.backlog !== null && target !== undefined) {
    events.push({ at: raw.backlog.at, destroy: { id: target.id, residual: raw.backlog.drop ? 'drop' : 'keep' } });
  }

  const tools: Record<string, ToolJson> = {};
  TOOLS.forEach((name, i) => {
    const tool: ToolJson = { durationMs: raw.toolMs[i] ?? 0 };
    if (name === 'beta') tool.fails = true;
    if (name === 'gamma') tool.panics = true;
    tools[name] = tool;
  });

  const scenario: ResidentScenarioJson = {
    version: 1,
    name: 'generated-residents',
    seed: raw.seed,
    model: { ...raw.model },
    tools,
    channels: RESIDENT_CHANNELS.map((name) => ({ name, plugin: 'chat' })),
    residents,
    inputs,
    expect: { allTerminal: true },
  };
  const kernel: NonNullable<ResidentScenarioJson['kernel']> = {};
  if (raw.discard) kernel.parentMessage = 'discard';
  if (raw.smallQueue) kernel.maxQueue = 2;
  if (raw.cooldown) kernel.cooldownMs = 0;
  if (Object.keys(kernel).length > 0) scenario.kernel = kernel;
  if (events.length > 0) scenario.events = events;
  if (Object.keys(kernelReplies).length > 0) scenario.kernelReplies = kernelReplies;
  if (raw.faults) scenario.faults = { toolPanicRate: 0.05, modelErrorRate: 0.05 };
  return scenario;
}

/** Valid scenario files with residents, child traffic and tree events, as plain JSON objects. */
export const residentScenarioArb: fc.Arbitrary<ResidentScenarioJson> = rawScenarioArb.map(buildResidentScenario);
