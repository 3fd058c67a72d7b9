/**
 * Checking a scenario's `expect` block against its run report (docs/spec.md §12.2 "Expect", §12.3).
 *
 * Theory of operation. `evaluateExpectations` is a pure function of (normalized Expect, Report, the
 * triggers that never fired): no I/O, no clock, no randomness. It returns one `ReportExpectation` per
 * checked item, passing or failing, in a stable order: the keys of Expect in the order docs/spec.md §12.2 lists
 * them, each record or list in its own entry order, per-level counters by level "1".."4", and the
 * unfired triggers last. finalize.ts stores the list in `report.expectations` and folds it into
 * `report.ok`, hence the exit code.
 *
 * Every entry has a readable dotted `name` (`terminal.q`, `counters.root.preemptsByLevel.3`,
 * `equal[0]`) and the JSON `path` of the expectation in the scenario file, written like the scenario
 * problems (`formatPath`): `expect.counters.root.preemptsByLevel["3"]`, `expect.tasks["gi1-2"].modelCalls`.
 *
 * Decisions that the spec leaves open:
 *  - `allTerminal` and `invariants` default to true; when false the check is skipped and not listed.
 *  - `invariants` and `violations` are one check, named `invariants`: the distinct invariant names of
 *    `report.violations` must equal `expect.violations ?? []` as a set (a scenario that must fail has
 *    to fail exactly that way). Its path is `expect.violations` when that list is given, else
 *    `expect.invariants`. With `invariants: false`, `violations` is not checked either.
 *  - Anything named but absent (task, agent, counter, level, task field) fails with `actual: null`,
 *    one entry per item that was asked for. Lookups use own properties only, so a name such as
 *    "constructor" is simply absent.
 *  - `equal` references are `agent.counter` or `agent.counter.N` (N a level "1".."4" of a per-level
 *    counter). Both must resolve and be deep-equal; `agent.preemptsByLevel` without a level resolves to
 *    the whole per-level record. `expected` is the relation as text, `actual` the resolved values.
 *  - `outputs` is one entry per channel: the same number of outputs, each matching the listed fields
 *    exactly. A channel with no output is `[]`.
 *  - `exitCode` is not evaluated here: it describes the process exit code, which finalize.ts compares
 *    when `sim run` asks it to (the exit code follows from the verdict these entries feed).
 *  - An unfired trigger (docs/spec.md §12.2.1) is a failing `trigger.<id>.fired` entry (expected true, actual
 *    false). Triggers live on inputs, not in the expect block, so its path is `expect.triggers.<id>`
 *    (`expect.triggers["<id>"]` when the id is not an identifier), a synthetic location.
 */
import type {
  CounterExpect,
  CounterExpects,
  Expect,
  LevelKey,
  OutputExpect,
  TaskFieldExpect,
} from '../scenario/index.ts';
import { formatPath } from '../scenario/index.ts';
import type { ReportExpectation, ReportOutput, UncheckedReport } from './types.ts';

type Segment = string | number;

const LEVEL_KEYS: readonly LevelKey[] = ['1', '2', '3', '4'];

export interface ExpectExtra {
  /** Input ids whose `when`/`afterTerminal` trigger could no longer fire. */
  readonly unfiredTriggers: readonly string[];
}

export function evaluateExpectations(expect: Expect, report: UncheckedReport, extra: ExpectExtra): ReportExpectation[] {
  const out = new Collector();
  if (expect.allTerminal) checkAllTerminal(report, out);
  if (expect.invariants) checkInvariants(expect.violations, report, out);
  if (expect.terminal !== undefined) checkTerminal(expect.terminal, report, out);
  if (expect.replyContains !== undefined) checkReplyContains(expect.replyContains, report, out);
  if (expect.maxStackDepth !== undefined) {
    out.add(
      ['maxStackDepth'],
      report.maxStackDepth === expect.maxStackDepth,
      expect.maxStackDepth,
      report.maxStackDepth,
    );
  }
  if (expect.suspendOrder !== undefined) checkOrder('suspendOrder', expect.suspendOrder, report.suspendOrder, out);
  if (expect.resumeOrder !== undefined) checkOrder('resumeOrder', expect.resumeOrder, report.resumeOrder, out);
  if (expect.finishOrder !== undefined) checkOrder('finishOrder', expect.finishOrder, report.finishOrder, out);
  if (expect.counters !== undefined) checkCounters('counters', expect.counters, report, (a, e) => a === e, out);
  if (expect.countersMin !== undefined) checkCounters('countersMin', expect.countersMin, report, (a, e) => a >= e, out);
  if (expect.tasks !== undefined) checkTasks(expect.tasks, report, out);
  if (expect.equal !== undefined) checkEqual(expect.equal, report, out);
  if (expect.outputs !== undefined) checkOutputs(expect.outputs, report, out);
  if (expect.agents !== undefined) checkAgents(expect.agents, report, out);
  // `violations` is part of the `invariants` check; `exitCode` is finalize.ts's (see the file comment).
  for (const id of extra.unfiredTriggers) out.addTrigger(id);
  return out.entries;
}

/** Structural equality of JSON-like values; an object key whose value is undefined counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x: unknown, i) => deepEqual(x, b[i]));
  }
  const ra = a as Readonly<Record<string, unknown>>;
  const rb = b as Readonly<Record<string, unknown>>;
  const ka = definedKeys(ra);
  const kb = definedKeys(rb);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}

// ---------------------------------------------------------------- the checks, in spec order

function checkAllTerminal(report: UncheckedReport, out: Collector): void {
  // A lost submission was never acknowledged: no terminal is owed to it (docs/spec.md §12.2 `crash`).
  const lost = new Set((report.lost ?? []).map((l) => l.id));
  const offending = Object.entries(report.tasks)
    .filter(([id]) => !lost.has(id))
    // A task without a terminal has terminalCount 0 (its terminal is set by the first one), so one test covers both.
    .filter(([, t]) => t.terminalCount !== 1)
    .map(([id]) => id);
  out.add(['allTerminal'], offending.length === 0, [], offending);
}

function checkInvariants(violations: readonly string[] | undefined, report: UncheckedReport, out: Collector): void {
  const expected = distinctSorted(violations ?? []);
  const actual = distinctSorted(report.violations.map((v) => v.invariant));
  const path = formatPath(['expect', violations === undefined ? 'invariants' : 'violations']);
  out.addAt('invariants', path, deepEqual(expected, actual), expected, actual);
}

function checkTerminal(terminal: NonNullable<Expect['terminal']>, report: UncheckedReport, out: Collector): void {
  for (const [id, kind] of Object.entries(terminal)) {
    const actual = own(report.tasks, id)?.terminal ?? null;
    out.add(['terminal', id], actual === kind, kind, actual);
  }
}

function checkReplyContains(
  replyContains: Readonly<Record<string, string>>,
  report: UncheckedReport,
  out: Collector,
): void {
  for (const [id, text] of Object.entries(replyContains)) {
    const actual = own(report.tasks, id)?.reply ?? null;
    out.add(['replyContains', id], actual !== null && actual.includes(text), text, actual);
  }
}

function checkOrder(
  key: 'suspendOrder' | 'resumeOrder' | 'finishOrder',
  expected: readonly string[],
  actual: readonly string[],
  out: Collector,
): void {
  out.add([key], deepEqual(expected, actual), expected, actual);
}

/** `counters` (equal) and `countersMin` (at least): one entry per listed counter, or per listed level. */
function checkCounters(
  key: 'counters' | 'countersMin',
  expects: CounterExpects,
  report: UncheckedReport,
  holds: (actual: number, expected: number) => boolean,
  out: Collector,
): void {
  for (const [agent, names] of Object.entries(expects)) {
    const counters = own(report.counters, agent);
    for (const [name, expected] of Object.entries(names)) {
      const actual = counters === undefined ? undefined : ownField(counters, name);
      checkCounter([key, agent, name], expected, actual, holds, out);
    }
  }
}

function checkCounter(
  at: readonly Segment[],
  expected: CounterExpect,
  actual: unknown,
  holds: (actual: number, expected: number) => boolean,
  out: Collector,
): void {
  if (typeof expected === 'number') {
    const ok = typeof actual === 'number' && holds(actual, expected);
    out.add(at, ok, expected, actual ?? null);
    return;
  }
  for (const level of LEVEL_KEYS) {
    const want = expected[level];
    if (want === undefined) continue;
    const value = isRecord(actual) ? ownField(actual, level) : undefined;
    const ok = typeof value === 'number' && holds(value, want);
    out.add([...at, level], ok, want, value ?? null);
  }
}

function checkTasks(tasks: NonNullable<Expect['tasks']>, report: UncheckedReport, out: Collector): void {
  for (const [id, fields] of Object.entries(tasks)) {
    const task = own(report.tasks, id);
    for (const [field, want] of Object.entries(fields)) {
      const found = task === undefined ? undefined : ownField(task, field);
      // No expected value deep-equals undefined and undefined is no number, so a missing field fails here.
      const ok = fieldHolds(want, found);
      out.add(['tasks', id, field], ok, fieldExpected(want), found ?? null);
    }
  }
}

function checkEqual(pairs: readonly (readonly [string, string])[], report: UncheckedReport, out: Collector): void {
  pairs.forEach(([left, right], i) => {
    const a = resolveCounter(left, report);
    const b = resolveCounter(right, report);
    // A resolved counter never deep-equals undefined, so checking `a` alone rules out a missing `b` too.
    const ok = a !== undefined && deepEqual(a, b);
    const actual: Record<string, unknown> = {};
    actual[left] = a ?? null;
    actual[right] = b ?? null;
    out.add(['equal', i], ok, `${left} == ${right}`, actual);
  });
}

function checkOutputs(
  outputs: Readonly<Record<string, readonly OutputExpect[]>>,
  report: UncheckedReport,
  out: Collector,
): void {
  for (const [channel, expected] of Object.entries(outputs)) {
    const actual: readonly ReportOutput[] = own(report.outputs, channel) ?? [];
    const ok = actual.length === expected.length && expected.every((want, i) => outputMatches(want, actual[i]));
    out.add(['outputs', channel], ok, expected, actual);
  }
}

function checkAgents(agents: NonNullable<Expect['agents']>, report: UncheckedReport, out: Collector): void {
  for (const [id, want] of Object.entries(agents)) {
    const agent = own(report.agents, id);
    if (want.state !== undefined) {
      const actual = agent?.state ?? null;
      out.add(['agents', id, 'state'], actual === want.state, want.state, actual);
    }
    if (want.tableSize !== undefined) {
      const actual = agent?.tableSize ?? null;
      out.add(['agents', id, 'tableSize'], actual === want.tableSize, want.tableSize, actual);
    }
  }
}

// ---------------------------------------------------------------- leaf helpers

/** Collects entries; the name is the dotted form of the segments, the path the JSON path under `expect`. */
class Collector {
  readonly entries: ReportExpectation[] = [];

  add(at: readonly Segment[], ok: boolean, expected: unknown, actual: unknown): void {
    this.addAt(dottedName(at), formatPath(['expect', ...at]), ok, expected, actual);
  }

  addAt(name: string, path: string, ok: boolean, expected: unknown, actual: unknown): void {
    this.entries.push({ name, path, ok, expected, actual });
  }

  addTrigger(id: string): void {
    this.addAt(`trigger.${id}.fired`, formatPath(['expect', 'triggers', id]), false, true, false);
  }
}

/** `counters.root.preemptsByLevel.3`, `equal[0]`. */
function dottedName(at: readonly Segment[]): string {
  let name = '';
  for (const s of at) {
    if (typeof s === 'number') name += `[${s}]`;
    else name += name === '' ? s : `.${s}`;
  }
  return name;
}

/** `agent.counter` or `agent.counter.N`; undefined when anything is missing or the shape is wrong. */
function resolveCounter(ref: string, report: UncheckedReport): unknown {
  const [agent, name, level, ...rest] = ref.split('.');
  if (agent === undefined || name === undefined || rest.length > 0) return undefined;
  const counters = own(report.counters, agent);
  const value = counters === undefined ? undefined : ownField(counters, name);
  if (level === undefined) return value;
  return isRecord(value) ? ownField(value, level) : undefined;
}

function fieldHolds(want: TaskFieldExpect, actual: unknown): boolean {
  switch (want.kind) {
    case 'equals':
      return deepEqual(want.value, actual);
    case 'range':
      return (
        typeof actual === 'number' &&
        (want.min === undefined || actual >= want.min) &&
        (want.max === undefined || actual <= want.max)
      );
  }
}

/** What the report shows as expected: the value, or the range as written (`{min, max}`). */
function fieldExpected(want: TaskFieldExpect): unknown {
  if (want.kind === 'equals') return want.value;
  const range: { min?: number; max?: number } = {};
  if (want.min !== undefined) range.min = want.min;
  if (want.max !== undefined) range.max = want.max;
  return range;
}

function outputMatches(want: OutputExpect, actual: ReportOutput | undefined): boolean {
  // Stryker disable next-line BooleanLiteral: unreachable, checkOutputs compares only lists of the same length
  if (actual === undefined) return false;
  return (
    (want.task === undefined || want.task === actual.task) && (want.text === undefined || want.text === actual.text)
  );
}

/** An own entry of a record: inherited names (`constructor`, `toString`) are never found. */
function own<T>(rec: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/** An own field of a report object looked up by a name from the scenario file. */
function ownField(obj: object, key: string): unknown {
  return own(obj as Readonly<Record<string, unknown>>, key);
}

function isRecord(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function definedKeys(rec: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(rec).filter((k) => rec[k] !== undefined);
}

function distinctSorted(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}
