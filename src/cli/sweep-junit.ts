/**
 * `sim sweep --junit FILE` (docs/spec.md §12.1): the sweep as a JUnit XML report, the format CI systems read
 * to show test results. One `<testsuite>` named after the scenario holds one `<testcase>` per seed run,
 * in seed order: `name` "seed N", `classname` the scenario's name, `time` the run's wall time in
 * seconds. A failing seed has a `<failure>` whose `message` is its first failure — the first unexpected
 * violation, else the first failed expectation, else the crash — and whose text adds the fault sites
 * under `--swarm`, the trace hash and the command that re-runs the seed, as the readable output prints
 * them. A crashed seed is a failure like any other, as it is in the summary, so the counts of the
 * report are the summary's. A shard writes the testcases of its own seeds; the properties name the
 * seed range, the shard and the flags that change the runs.
 *
 * The text is XML 1.0: markup characters are escaped, and characters XML cannot carry at all (control
 * characters, lone surrogates — a crash message may hold anything) are replaced with U+FFFD.
 */
import type { SeedResult } from './sweep-seed.ts';
import type { SweepSummary } from './sweep-summary.ts';

export function junitReport(summary: SweepSummary, results: readonly SeedResult[]): string {
  const failures = new Map(summary.failures.map((f) => [f.seed, f]));
  const counts = `tests="${results.length}" failures="${summary.failures.length}" errors="0" skipped="0" time="${seconds(summary.wallMs)}"`;
  const name = attr(summary.scenario);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="homeagent sim sweep" ${counts}>`,
    `  <testsuite name="${name}" ${counts}>`,
    '    <properties>',
    ...properties(summary).map(([k, v]) => `      <property name="${attr(k)}" value="${attr(v)}"/>`),
    '    </properties>',
  ];
  for (const r of results) {
    const testcase = `    <testcase name="seed ${r.seed}" classname="${name}" time="${seconds(r.wallMs)}"`;
    const failure = failures.get(r.seed);
    if (failure === undefined) {
      lines.push(`${testcase}/>`);
      continue;
    }
    const first = failure.firstFailure ?? 'failed';
    const details = [
      `seed ${r.seed}: ${first}`,
      ...(failure.swarm === undefined
        ? []
        : [`swarm sites: ${failure.swarm.length === 0 ? '(none active)' : failure.swarm.join(', ')}`]),
      `trace hash: ${failure.traceHash ?? '(none: the run crashed)'}`,
      `reproduce: ${failure.command}`,
    ];
    lines.push(
      `${testcase}>`,
      `      <failure message="${attr(first)}">${text(details.join('\n'))}</failure>`,
      '    </testcase>',
    );
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

function properties(s: SweepSummary): [string, string][] {
  return [
    ['seeds', `${s.seeds.from}..${s.seeds.to}`],
    ['shard', `${s.shard.index}/${s.shard.count}`],
    ['shuffle-ties', String(s.shuffleTies)],
    ['swarm', String(s.swarm)],
    ['workers', String(s.workers)],
  ];
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Code points XML 1.0 does not allow anywhere, even escaped; \t, \n and \r are allowed. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Character data: `&`, `<` and `>` escaped (quotes are plain text here). */
function text(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/[&<>]/g, (ch) => ESCAPES[ch] ?? ch);
}

/** An attribute value in quotes: quotes escaped too, and tabs and line breaks as references, which keep them. */
function attr(s: string): string {
  return s
    .replace(NOT_XML, '\uFFFD')
    .replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch)
    .replace(/[\t\n\r]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
