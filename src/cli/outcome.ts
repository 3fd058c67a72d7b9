/**
 * Why a run failed, in the words `sim run` and `sim sweep` print: the unexpected violations (those not
 * listed in `expect.violations`, when `expect.invariants` is on — the rule `report.ok` uses) and the
 * failed expectations, each as one short line.
 */
import type { Report, ReportExpectation, ReportViolation } from '../sim/report/index.ts';
import type { Scenario } from '../sim/scenario/index.ts';
import { unexpectedViolations } from '../sim/simulation.ts';

/** Characters of a first-failure line kept in sweep results; a long message is cut with "…". */
const FAILURE_LINE_MAX = 300;

/** "INV: message" */
export function violationLine(v: ReportViolation): string {
  return `${v.invariant}: ${v.message}`;
}

/** "name: expected X, got Y" (values as JSON). */
export function expectationLine(x: ReportExpectation): string {
  return `${x.name}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`;
}

/**
 * The first unexpected violation, else the first failed expectation, as one line; null when the run
 * is ok. A violation comes first because it is the cause: the `invariants` expectation it fails only
 * repeats it.
 */
export function firstFailure(scenario: Scenario, report: Report): string | null {
  if (report.ok) return null;
  const violation = unexpectedViolations(scenario, report.violations)[0];
  const expectation = report.expectations.find((x) => !x.ok);
  const line =
    violation !== undefined
      ? violationLine(violation)
      : expectation !== undefined
        ? expectationLine(expectation)
        : 'report not ok';
  return oneLine(line);
}

/** Newlines folded to spaces and the length bounded, so a failure stays one printable line. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length <= FAILURE_LINE_MAX ? flat : `${flat.slice(0, FAILURE_LINE_MAX - 1)}…`;
}
