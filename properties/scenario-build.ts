/**
 * Interpreting a raw record (scenario-raw.ts) as a scenario file, in one pass: an input's trigger names
 * an earlier input, so there are no cycles; pool indexes that fall outside their pool name something
 * never declared (a device, a channel, a tool), which the kernel must refuse. About one scenario in
 * five starts with a climb (queued ← L1 ← L2 ← L3 ← L4, each on the previous one's Model step).
 */
import type {
  ChannelJson,
  EventJson,
  FaultsJson,
  InputJson,
  JsonValue,
  KernelJson,
  ModelJson,
  OutputJson,
  ReplyJson,
  ScenarioJson,
  ToolCallJson,
  ToolJson,
  McpServerJson,
} from './scenario-json.ts';
import {
  PREVIOUS,
  type RawCall,
  type RawInput,
  type RawMcp,
  type RawMcpArgs,
  type RawRecallShape,
  type RawReply,
  type RawScenario,
  type RawSendArgs,
  type RawTiming,
  type RawView,
  type RawWriteShape,
} from './scenario-raw.ts';
import {
  CAPS,
  CHANNEL_NAMES,
  CONSOLIDATION_ANSWERS,
  CONSOLIDATION_CHANNEL,
  DEVICES,
  LEVELS,
  MCP_SCHEMA,
  MCP_SERVER,
  MCP_TOOL_NAMES,
  MCP_UNLISTED_TOOL,
  OWNERS,
  PLUGINS,
  RECALL_KEYWORDS,
  SOURCES,
  TOOL_NAMES,
  TRIPLE_POOL,
  UNDECLARED_DEVICE,
  UNKNOWN_TOOL,
  UNREGISTERED_CHANNEL,
} from './scenario-vocabulary.ts';

function put<T extends object, K extends keyof T>(obj: T, key: K, value: T[K] | null): void {
  if (value !== null) obj[key] = value;
}

function buildReply(r: RawReply, owner: string, n: number, outputs: readonly string[]): ReplyJson {
  switch (r.kind) {
    case 'text': {
      const reply: ReplyJson = r.explicit ? { text: `answer ${n} of ${owner}` } : {};
      put(reply, 'firstChunkMs', r.firstChunkMs);
      return reply;
    }
    case 'tools': {
      const reply: ReplyJson = { tools: r.calls.map((c, k) => buildCall(c, `${owner} ${n}.${k}`, outputs)) };
      if (r.withText) reply.text = `calling tools (${n})`;
      put(reply, 'firstChunkMs', r.firstChunkMs);
      return reply;
    }
    case 'fail':
      return { error: 'fail' };
    case 'contextFull':
      return { error: 'context_full' };
  }
}

function buildCall(c: RawCall, tag: string, outputs: readonly string[]): ToolCallJson {
  switch (c.kind) {
    case 'scenario': {
      const name = TOOL_NAMES[c.tool] ?? UNKNOWN_TOOL;
      return c.arg === null ? { name } : { name, args: { n: c.arg } };
    }
    case 'mcp': {
      const name = `${MCP_SERVER}__${MCP_TOOL_NAMES[c.tool] ?? MCP_UNLISTED_TOOL}`;
      const args: { [A in RawMcpArgs]: JsonValue } = {
        valid: { n: 1 },
        wrongType: { n: 'one' },
        missing: { m: 1 },
        notObject: [1],
      };
      return { name, args: args[c.args] };
    }
    case 'send': {
      const declared = c.declared && outputs.length > 0 ? outputs[c.device % outputs.length] : undefined;
      const name = `output_send__${declared ?? DEVICES[c.device] ?? UNDECLARED_DEVICE}`;
      const text = `message from ${tag}`;
      const args: { [A in RawSendArgs]: JsonValue } = {
        text: { text },
        typed: { text, type: 'text' },
        emptyText: { text: '' },
        noText: { message: text },
        numText: { text: 7 },
        badType: { text, type: 'audio' },
        notObject: text,
      };
      return { name, args: args[c.args] };
    }
    case 'listOutputs':
      return { name: 'output_list_channels' };
    case 'inputChannels': {
      const name = 'input_channels';
      const channel = CHANNEL_NAMES[c.name] ?? UNREGISTERED_CHANNEL;
      const args: { [V in RawView]: JsonValue | undefined } = {
        absent: undefined,
        all: { view: 'all' },
        mine: { view: 'mine' },
        unassigned: { view: 'unassigned' },
        by_agent: { view: 'by_agent' },
        detail: { view: 'detail', name: channel },
        detailNoName: { view: 'detail' },
        bogus: { view: 'everything' },
        numView: { view: 2 },
        notObject: ['all'],
      };
      const a = args[c.view];
      return a === undefined ? { name } : { name, args: a };
    }
    case 'memoryWrite': {
      const triples: JsonValue[] = c.triples.map((i) => ({ ...(TRIPLE_POOL[i] ?? {}) }));
      const args: { [S in RawWriteShape]: JsonValue } = {
        triples: { triples },
        notArray: { triples: 'Alice knows Bob' },
        missingField: { triples: [{ subject: 'Alice', relation: 'knows' }] },
        numField: { triples: [{ subject: 42, relation: 'knows', object: 'Bob' }] },
        noTriples: { facts: triples },
        notObject: 'Alice knows Bob',
      };
      return { name: 'memory_write', args: args[c.shape] };
    }
    case 'memoryRecall': {
      const keywords = c.keywords.map((i) => RECALL_KEYWORDS[i] ?? 'Alice');
      const args: { [S in RawRecallShape]: JsonValue } = {
        keywords: c.depth === null ? { keywords } : { keywords, depth: c.depth },
        emptyKeywords: { keywords: [] },
        deepDepth: { keywords, depth: 9 },
        notArray: { keywords: keywords.join(' ') },
        noKeywords: { depth: 1 },
        numKeyword: { keywords: [1, 2] },
        notObject: keywords.join(' '),
      };
      return { name: 'memory_recall', args: args[c.shape] };
    }
  }
}

/** A copy of a consolidation answer (the builder never shares objects between scenarios). */
function consolidationReplies(index: number): ReplyJson[] {
  const answer = CONSOLIDATION_ANSWERS[index] ?? CONSOLIDATION_ANSWERS[0] ?? [];
  return JSON.parse(JSON.stringify(answer)) as ReplyJson[];
}

/** The text the kernel sees for a built input (for duplicates), or null for a stop without text. */
function effectiveText(input: InputJson): string | null {
  if (input.stop === true) return input.text === undefined || input.text === '' ? null : input.text;
  return input.text ?? `input ${input.id}`;
}

function buildInput(raw: RawInput, i: number, earlier: readonly InputJson[], outputs: readonly string[]): InputJson {
  const id = `in-${i}`;
  const source = SOURCES[raw.source] ?? 'cli';
  const input: InputJson =
    raw.kind === 'queued' ? { id, class: 'queued', source } : { id, class: 'interrupt', level: raw.level, source };
  const pickEarlier = (ref: number): InputJson | undefined =>
    earlier.length === 0 ? undefined : earlier[ref === PREVIOUS ? earlier.length - 1 : ref % earlier.length];

  if (raw.kind === 'stop') {
    input.stop = true;
    if (raw.stopText === 'empty') input.text = '';
    else if (raw.stopText === 'text') input.text = `stop text ${i}`;
  } else {
    switch (raw.text.kind) {
      case 'unique':
        input.text = `text ${i}`;
        break;
      case 'default':
        break;
      case 'empty':
        input.text = '';
        break;
      case 'duplicate': {
        const original = pickEarlier(raw.text.ref);
        const text = original === undefined ? null : effectiveText(original);
        if (original !== undefined && text !== null) {
          // Same source and text as an earlier submission: a duplicate within the dedup window.
          input.text = text;
          input.source = original.source ?? 'cli';
        } else {
          input.text = `text ${i}`;
        }
        break;
      }
    }
  }

  const t = raw.timing;
  if (t.kind === 'at') input.at = t.at;
  else if (t.kind === 'whenKernel') input.when = { task: `root:${t.n}`, step: t.step, afterMs: t.afterMs };
  else if (t.kind === 'when' || t.kind === 'afterTerminal') {
    const target = pickEarlier(t.ref);
    if (target === undefined) input.at = 0;
    else if (t.kind === 'afterTerminal') input.afterTerminal = target.id;
    else
      input.when =
        t.afterMs === null ? { task: target.id, step: t.step } : { task: target.id, step: t.step, afterMs: t.afterMs };
  }

  const channel = raw.channel;
  if (channel.kind === 'named') input.channel = CHANNEL_NAMES[channel.name] ?? UNREGISTERED_CHANNEL;
  else if (channel.kind === 'consolidation') input.channel = CONSOLIDATION_CHANNEL;

  if (raw.replies !== null && !(raw.kind === 'stop' && input.text === undefined)) {
    // A queued input on `_consolidation_` runs the consolidation path (docs/spec.md §3.7): it answers with triples.
    input.replies =
      input.channel === CONSOLIDATION_CHANNEL && input.class === 'queued'
        ? consolidationReplies(raw.consolidationAnswer)
        : raw.replies.map((r, n) => buildReply(r, id, n, outputs));
  }
  return input;
}

/**
 * A climb (docs/spec.md §2.6, E5): input 0 becomes a queued input at 0 and inputs 1..4 interrupts of levels
 * 1..4 (the L4 from the built-in `webui`), each due a few ms after the previous one's model call
 * starts, so the stack can reach its bound of 4. Texts, replies and everything else stay as drawn.
 */
function climbed(raw: RawScenario): RawScenario {
  if (!raw.climb) return raw;
  const inputs = raw.inputs.map((input, i): RawInput => {
    if (i > 4) return input;
    const afterMs = input.timing.kind === 'at' ? input.timing.at % 20 : 0;
    const timing: RawTiming = i === 0 ? { kind: 'at', at: 0 } : { kind: 'when', ref: PREVIOUS, step: 'Model', afterMs };
    const level = LEVELS[i - 1] ?? 'L1';
    return {
      ...input,
      kind: i === 0 ? 'queued' : 'interrupt',
      level,
      source: level === 'L4' ? SOURCES.indexOf('webui/x') : input.source,
      text: { kind: 'unique' },
      timing,
      // The climb runs on the default channels (a consolidation task would be critical, an interrupt
      // on `_consolidation_` invalid); an owned inputch only changes the routing trace.
      channel: input.channel.kind === 'consolidation' ? { kind: 'default' } : input.channel,
    };
  });
  return { ...raw, webui: true, inputs };
}

/** The MCP-shaped server: every tool with MCP_SCHEMA, listed at its `listedAt`, and its downtime. */
function buildMcpServer(mcp: RawMcp): McpServerJson {
  const tools: McpServerJson['tools'] = {};
  mcp.tools.forEach((t, i) => {
    const name = MCP_TOOL_NAMES[i];
    if (name === undefined) return;
    tools[name] = {
      inputSchema: structuredClone(MCP_SCHEMA) as Record<string, unknown>,
      durationMs: t.durationMs,
      ...(t.isError ? { isError: true } : {}),
      ...(t.listedAt > 0 ? { listedAt: t.listedAt } : {}),
    };
  });
  const server: McpServerJson = { tools };
  if (mcp.parallelSafe) server.parallelSafe = true;
  put(server, 'timeoutMs', mcp.timeoutMs);
  const down = mcp.down;
  if (down !== null)
    server.down = [down.backAfterMs === null ? { at: down.at } : { at: down.at, backAfterMs: down.backAfterMs }];
  return server;
}

export function buildScenario(drawn: RawScenario): ScenarioJson {
  const raw = climbed(drawn);
  const outputs: OutputJson[] = [];
  for (const o of raw.outputs ?? []) {
    const name = DEVICES[o.device] ?? UNDECLARED_DEVICE;
    if (outputs.some((d) => d.name === name)) continue;
    const caps = CAPS[o.caps] ?? null;
    outputs.push(caps === null ? { name } : { name, caps: [...caps] });
  }

  const inputs: InputJson[] = [];
  const deviceNames = outputs.map((o) => o.name);
  raw.inputs.forEach((r, i) => inputs.push(buildInput(r, i, inputs, deviceNames)));

  const kernel: KernelJson = {};
  put(kernel, 'maxQueue', raw.kernel.maxQueue);
  put(kernel, 'cooldownMs', raw.kernel.cooldownMs);
  put(kernel, 'dedupWindowMs', raw.kernel.dedupWindowMs);
  put(kernel, 'maxToolTurns', raw.kernel.maxToolTurns);
  put(kernel, 'modelTimeoutMs', raw.kernel.modelTimeoutMs);
  // A stalled call ends only by its timeout (or a cancellation): keep stalls short.
  if (raw.faults.modelStallRate !== null && kernel.modelTimeoutMs === undefined) kernel.modelTimeoutMs = 5000;

  const model: ModelJson = {};
  put(model, 'firstChunkMs', raw.model.firstChunkMs);
  put(model, 'chunkMs', raw.model.chunkMs);
  put(model, 'chunks', raw.model.chunks);
  put(model, 'cancelAware', raw.model.cancelAware);
  put(model, 'cancelLagMs', raw.model.cancelLagMs);

  const tools: Record<string, ToolJson> = {};
  raw.tools.forEach((t, i) => {
    const name = TOOL_NAMES[i];
    if (t !== null && name !== undefined) tools[name] = t;
  });

  const faults: FaultsJson = {};
  put(faults, 'toolPanicRate', raw.faults.toolPanicRate);
  put(faults, 'toolFailRate', raw.faults.toolFailRate);
  put(faults, 'modelErrorRate', raw.faults.modelErrorRate);
  put(faults, 'modelIgnoresCancelRate', raw.faults.modelIgnoresCancelRate);
  put(faults, 'modelStallRate', raw.faults.modelStallRate);

  put(kernel, 'consolidateEveryTurns', raw.consolidation.everyTurns);

  const channels: ChannelJson[] = [];
  for (const c of raw.channels) {
    const name = CHANNEL_NAMES[c.name] ?? UNREGISTERED_CHANNEL;
    if (channels.some((d) => d.name === name)) continue;
    const def: ChannelJson = { name };
    put(def, 'plugin', PLUGINS[c.plugin] ?? null);
    put(def, 'owner', OWNERS[c.owner] ?? null);
    if (c.output) def.output = DEVICES[0];
    channels.push(def);
  }

  // A crash can lose a channel event (an input like any other) or refuse it while down, which the
  // registry model of scenario-checks.ts does not follow: a scenario that crashes has none.
  const channelEvents = raw.crash === null ? raw.events : [];
  const events: EventJson[] = channelEvents.map((e): EventJson => {
    const name = CHANNEL_NAMES[e.name] ?? UNREGISTERED_CHANNEL;
    if (e.kind === 'unregister') return { at: e.at, unregisterChannel: name };
    const registerChannel: { name: string; plugin?: string; owner?: string } = { name };
    put(registerChannel, 'plugin', PLUGINS[e.plugin] ?? null);
    put(registerChannel, 'owner', OWNERS[e.owner] ?? null);
    return { at: e.at, registerChannel };
  });
  if (raw.crash !== null) events.push({ at: raw.crash.at, crash: { restartAfterMs: raw.crash.restartAfterMs } });

  // Kernel tasks are numbered root:1, root:2, … across panics, overflows and consolidations alike, so
  // the answers are given by number, whatever kind of kernel task each turns out to be.
  const kernelReplies: Record<string, ReplyJson[]> = {};
  (raw.consolidation.kernelReplies ?? []).forEach((answer, i) => {
    kernelReplies[`root:${i + 1}`] = consolidationReplies(answer);
  });

  const scenario: ScenarioJson = {
    version: 1,
    name: 'generated',
    seed: raw.seed,
    inputs,
    expect: { allTerminal: true },
  };
  if (Object.keys(kernel).length > 0) scenario.kernel = kernel;
  if (raw.webui) scenario.builtinPlugins = ['webui'];
  if (Object.keys(model).length > 0) scenario.model = model;
  if (Object.keys(tools).length > 0) scenario.tools = tools;
  if (channels.length > 0) scenario.channels = channels;
  if (outputs.length > 0) scenario.outputs = outputs;
  if (events.length > 0) scenario.events = events;
  if (raw.mcp !== null) scenario.mcpServers = { [MCP_SERVER]: buildMcpServer(raw.mcp) };
  if (raw.crash !== null) {
    const { sync, batchMs, snapshotEvery } = raw.crash;
    scenario.journal = { sync, batchMs, snapshotEvery };
  }
  if (Object.keys(kernelReplies).length > 0) scenario.kernelReplies = kernelReplies;
  if (Object.keys(faults).length > 0) scenario.faults = faults;
  return scenario;
}
