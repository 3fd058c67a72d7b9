/**
 * Scenario files (docs/spec.md §12.2): the public entry — the loader, and the names the rest of the code
 * imports. The contract itself lives in scenario/, one concept a file:
 *  - scenario/types.ts      the normalized Scenario the simulator consumes, and its defaults;
 *  - scenario/bounds.ts     the bounds on every number of a file, and the run limits' defaults;
 *  - scenario/schema.ts     the strict zod shape schema (pass 1);
 *  - scenario/checks.ts     the cross-field and cross-entry rules over the raw JSON (pass 2);
 *  - scenario/problems.ts   zod and cross-field issues → the sorted `{path, message}` problems;
 *  - scenario/normalize.ts  a checked document → the normalized Scenario, every default applied.
 *
 * Theory of operation. A scenario file is untrusted input, so it is checked here, at the boundary, and
 * nothing past this entry sees zod (STYLE rule 6). Checking is two passes over the raw JSON, and both
 * always run, so that one bad field never hides another. Only when both passes find nothing is the
 * parsed value normalized.
 */
import { readFileSync } from 'node:fs';
import { decodeUtf8 } from '../../validation/utf8.ts';
import { assert } from '../../kernel/index.ts';
import { crossFieldIssues } from './checks.ts';
import { normalize } from './normalize.ts';
import { finish, messageFor, toIssues } from './problems.ts';
import { scenarioSchema } from './schema.ts';
import type { ParseResult } from './types.ts';

export {
  ARGS_DEPTH_MAX,
  DEFAULT_MAX_EVENTS,
  DEFAULT_MAX_VIRTUAL_MS,
  INPUTS_MAX,
  MODEL_CHUNKS_MAX,
  SEED_MAX,
  TIME_MS_MAX,
} from './bounds.ts';
export { formatPath } from '../../validation/problem.ts';
/** A scenario file as written (docs/scenario-format.md), before any default: what `parseScenario` checks. */
export type { ScenarioIn as ScenarioJson } from './schema.ts';
export { DEFAULT_JOURNAL, DEFAULT_MODEL, DEFAULT_SEED, DEFAULT_VICTIM_TIMEOUT_MS } from './types.ts';
export type {
  AgentExpect,
  ChannelDef,
  CounterExpect,
  CounterExpects,
  Expect,
  Faults,
  GenerateConfig,
  InterruptInput,
  JournalConfig,
  KernelOverrides,
  LevelKey,
  Limits,
  ModelConfig,
  OutputDef,
  OutputExpect,
  ParseResult,
  Problem,
  QueuedInput,
  Range,
  Reply,
  ReplyToolCall,
  ResidentDef,
  Scenario,
  ScenarioEvent,
  ScenarioInput,
  StopInput,
  TaskFieldExpect,
  Timing,
  ToolDef,
  McpDowntime,
  McpServerDef,
  McpToolDef,
} from './types.ts';

/** Validate a parsed JSON document as a scenario; on failure, every problem of every entry. */
export function parseScenario(json: unknown): ParseResult {
  const shape = scenarioSchema.safeParse(json, { error: messageFor });
  const issues = [...(shape.success ? [] : shape.error.issues.flatMap(toIssues)), ...crossFieldIssues(json)];
  if (!shape.success || issues.length > 0) {
    assert(issues.length > 0, 'SCENARIO: a failed shape pass reports at least one issue');
    return { ok: false, problems: finish(issues) };
  }
  return { ok: true, scenario: normalize(shape.data) };
}

/**
 * Read and validate a scenario file. An unreadable file, bytes that are not UTF-8 (a leading BOM is
 * fine) or invalid JSON is one problem at path "".
 */
export function loadScenarioFile(path: string): ParseResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `cannot read scenario file ${path}: ${errorText(err)}` }] };
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return { ok: false, problems: [{ path: '', message: `scenario file ${path} ${decoded.message}` }] };
  const text = decoded.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      problems: [{ path: '', message: `scenario file ${path} is not valid JSON: ${errorText(err)}` }],
    };
  }
  return parseScenario(json);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
