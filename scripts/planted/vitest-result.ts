/**
 * Reading vitest's JSON reporter output (`--reporter=json --outputFile=…`): which tests failed, named
 * `file › full test name` with the file relative to the copy's root. A file that failed without any
 * failing test (it did not load, or a hook threw) counts as one failure named after the file.
 */
import { relative } from 'node:path';

interface AssertionResult {
  readonly fullName?: string;
  readonly title?: string;
  readonly status?: string;
  readonly failureMessages?: readonly string[];
}

interface FileResult {
  readonly name?: string;
  readonly status?: string;
  readonly message?: string;
  readonly assertionResults?: readonly AssertionResult[];
}

export interface FailedTest {
  /** `file › full test name`. */
  readonly name: string;
  /** The first line of the first failure message, for the report. */
  readonly message: string;
}

export interface TestRun {
  readonly total: number;
  readonly failed: readonly FailedTest[];
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n').find((l) => l.trim() !== '');
  return line === undefined ? '' : line.trim().slice(0, 200);
}

/** Throws when the text is not a vitest JSON report: the caller reports the run as an error. */
export function readVitestJson(json: string, root: string): TestRun {
  const parsed = JSON.parse(json) as { testResults?: unknown };
  if (!Array.isArray(parsed.testResults)) throw new Error('not a vitest JSON report: no testResults');
  const files = parsed.testResults as readonly FileResult[];
  const failed: FailedTest[] = [];
  let total = 0;
  for (const file of files) {
    const path = relative(root, file.name ?? '?')
      .split('\\')
      .join('/');
    const tests = file.assertionResults ?? [];
    total += tests.length;
    let anyFailed = false;
    for (const test of tests) {
      if (test.status !== 'failed') continue;
      anyFailed = true;
      failed.push({
        name: `${path} › ${test.fullName ?? test.title ?? '?'}`,
        message: firstLine(test.failureMessages?.[0]),
      });
    }
    if (file.status === 'failed' && !anyFailed)
      failed.push({ name: `${path} › (file)`, message: firstLine(file.message) });
  }
  return { total, failed };
}
