/**
 * Generators of valid scenario files (docs/spec.md §12.2) for the kernel properties over generated scenarios
 * (kernel.scenarios.test.ts).
 *
 * The arbitrary produces plain JSON objects, exactly what a scenario file holds; the properties parse
 * them with `parseScenario` (and assert that they parse) before running them, so the generator also
 * exercises the schema. It is built from "raw" records of small integers that are interpreted in one
 * pass (`buildScenario`): an input's trigger names `inputs[ref mod i]`, an earlier input, so there are
 * no cycles and shrinking any number keeps the file valid.
 *
 * What it covers: 1–12 root inputs, queued and interrupts of every level from the sources `cli`, `qq`
 * and `webui/x` (privileged when `builtinPlugins: ["webui"]` is drawn, so some L4 are real L4 and the
 * others are clamped to L3); `at` timings in 0..3000 ms, `when {task, step: Prepare | Model | ToolExec,
 * afterMs}` and `afterTerminal` on earlier inputs; unique texts (or the default "input <id>"), with the
 * occasional deliberate duplicate (same source and text as an earlier input) or empty text; stop
 * inputs with and without text; replies that call up to four scenario tools (0..2000 ms, some
 * parallel-safe, some failing or panicking, plus an unknown tool), `error: "fail"`, now and then
 * `error: "context_full"` (root overflow, §3.9) and per-reply latencies; the fake model's timing,
 * `cancelAware` and `cancelLagMs`; small fault rates (a stall always comes with a small
 * `kernel.modelTimeoutMs`, so stalls end); a tiny `kernel.maxQueue` (backpressure, interrupt overflow),
 * small `cooldownMs`, `maxToolTurns` and `dedupWindowMs`; `expect: {allTerminal: true}` only.
 *
 * Issue-4 features, under the same random interleavings: `outputs` (1–3 devices, some without the
 * "text" cap) and replies that call `output_send__<device>` (declared or not, valid and malformed
 * arguments), `output_list_channels` and `input_channels` (every view, unknown views, `detail` with and
 * without a name, ill-typed arguments); inputchs registered at t = 0 with plugins and owners (some not
 * a live agent: fallback routing), inputs on them, and `registerChannel` / `unregisterChannel` events
 * at random times; `memory_write` with valid, invalid and ill-typed triples, `memory_recall` with
 * keywords (and refusable or ill-typed arguments); `kernel.consolidateEveryTurns` 1..3, queued and
 * interrupt inputs on `_consolidation_`, and `kernelReplies` for root:1.. (JSON triples, fenced JSON,
 * malformed text, errors, an answer that also calls an output tool) — given by number because panic
 * notices, overflow notices and consolidations share that numbering — plus inputs triggered on
 * root:<n>'s Prepare or Model step.
 *
 * MCP-shaped servers (docs/spec.md §12.2 `mcpServers`), in about half the scenarios: one server `srv`
 * whose three tools share one argument schema, some answering `isError`, one listed later, now and
 * then a downtime (from the start, for a while, or for good, so calls are cut and tool lists change),
 * and replies that call its tools with valid arguments, arguments of the wrong type or missing, or not
 * an object, and a tool it never lists; scenario-mcp-checks.ts checks each call's outcome.
 *
 * About one scenario in five starts with a climb (queued ← L1 ← L2 ← L3 ← L4, each on the previous
 * one's Model step), so the stack reaches its bound; bunched arrivals fill the queues.
 *
 * One concept a file: scenario-json.ts (the file's types, from the scenario schema),
 * scenario-vocabulary.ts (names and pools), scenario-raw.ts (the raw record), scenario-draws.ts
 * (drawing it) and scenario-build.ts (interpreting it). The R3 property's kernel-level plans are in
 * r3-case-arbitrary.ts.
 */
import type fc from 'fast-check';
import { buildScenario } from './scenario-build.ts';
import { rawScenarioArb } from './scenario-draws.ts';
import type { ScenarioJson } from './scenario-json.ts';

/** Valid scenario files (docs/spec.md §12.2) over the root, as plain JSON objects. */
export const scenarioJsonArb: fc.Arbitrary<ScenarioJson> = rawScenarioArb.map(buildScenario);
